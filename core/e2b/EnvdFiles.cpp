// The in-sandbox API's files: E2B's filesystem.Filesystem service over Connect (Stat, ListDir,
// MakeDir, Move, Remove) and its /files endpoint (read, and write from multipart or raw
// bodies). Each is file requests of the control protocol, so the sandbox's own view answers:
// the overlay with the session's changes, masked secrets, and no way out to the host.
#include "base/Bytes.h"
#include "base/FileMetadata.h"
#include "control/Protocol.h"
#include "e2b/E2bInternal.h"
#include "e2b/Gunzip.h"
#include "sandbox/Identity.h"

#include <algorithm>
#include <cctype>
#include <grp.h>
#include <pwd.h>

namespace sb::e2b {

using json = nlohmann::json;

namespace {

// What one request to the sandbox carries: half what the control protocol allows (8 MiB), so
// that requests of many HTTP threads at once hold less memory.
constexpr std::size_t kPart = proto::kMaxFileChunk / 2;

// E2B's templates run as `user`: the sandbox's own uid (sandboxIdentity: the caller's, or
// 65534 under root) is that user inside, whatever the host calls it. Other owners by the host's
// names (what the sandbox cannot map shows as the overflow uid, 65534: under root the same as
// its user's, so there root's files inside also say `user`; docs/e2b.md).
constexpr const char* kTemplateUser = "user";

std::string userName(unsigned uid)
{
    if (uid == sandboxIdentity().uid) return kTemplateUser;
    passwd pw{}, *found = nullptr;
    char buf[1024];
    if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr) return pw.pw_name;
    return std::to_string(uid);
}

std::string groupName(unsigned gid)
{
    if (gid == sandboxIdentity().gid) return kTemplateUser;
    group gr{}, *found = nullptr;
    char buf[1024];
    if (::getgrgid_r(gid, &gr, buf, sizeof buf, &found) == 0 && found != nullptr) return gr.gr_name;
    return std::to_string(gid);
}

// "-rw-r--r--", as ls and envd write it.
std::string permissions(const std::string& type, unsigned mode)
{
    std::string s = type == "directory" ? "d" : type == "symlink" ? "l" : "-";
    const char* rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i)
        s += (mode & (0400u >> i)) != 0 ? rwx[i] : '-';
    return s;
}

std::string baseName(const std::string& path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A failed file reply as a Connect error.
RpcError fileError(const json& reply)
{
    const json error = reply.value("error", json::object());
    const std::string code = error.value("code", std::string("system"));
    const std::string message = error.value("message", std::string("failed"));
    if (code == "not_found") return {"not_found", message};
    if (code == "conflict") return {"already_exists", message};
    if (code == "invalid_input") return {"invalid_argument", message};
    if (code == "permission_denied") return {"permission_denied", message};
    return {"internal", message};
}

int httpStatusOfFileError(const json& reply)
{
    const std::string code = reply.value("error", json::object()).value("code", std::string());
    if (code == "not_found") return 404;
    if (code == "invalid_input" || code == "conflict") return 400;
    if (code == "permission_denied") return 403;
    return 500;
}

bool ok(const Result<json>& reply)
{
    return reply && reply->value("ok", false);
}

} // namespace

json entryInfo(const json& entry, const std::string& path)
{
    const std::string type = entry.value("type", std::string("other"));
    const unsigned mode = entry.value("mode", 0u);
    json info = {{"name", baseName(path)},
                 {"type", type == "file"        ? "FILE_TYPE_FILE"
                          : type == "directory" ? "FILE_TYPE_DIRECTORY"
                          : type == "symlink"   ? "FILE_TYPE_SYMLINK"
                                                : "FILE_TYPE_UNSPECIFIED"},
                 {"path", path},
                 {"size", std::to_string(entry.value("size", 0LL))},
                 {"mode", mode},
                 {"permissions", permissions(type, mode)},
                 {"owner", userName(entry.value("uid", 0u))},
                 {"group", groupName(entry.value("gid", 0u))},
                 {"modifiedTime", rfc3339(entry.value("mtime_ns", 0LL))}};
    // Its metadata (envd 0.6.2): the file's "user.e2b." attributes, however they were set.
    if (entry.contains("metadata") && entry["metadata"].is_object() && !entry["metadata"].empty())
        info["metadata"] = entry["metadata"];
    // envd gives a link's target as an absolute path: a relative one is from the link's folder.
    if (auto target = getBytes(entry, "target")) {
        const std::size_t slash = path.rfind('/');
        const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash);
        info["symlinkTarget"] = target->starts_with("/") ? absoluteIn("/", *target)
                                                         : absoluteIn(folder, "./" + *target);
    }
    return info;
}

void Api::filesystemRpc(http::Exchange& ex, Sandbox& sandbox, std::string_view method)
{
    SessionLink& link = *sandbox.link;
    if (method == "WatchDir") return watchDir(ex, link, m_options.home, m_options.maxJsonBody);
    auto request = jsonBody(ex, m_options.maxJsonBody);
    if (!request) return rpcFail(ex, rpcError(request.error()));
    auto pathField = [&](const char* name) -> Result<std::string> {
        if (!request->contains(name) || !(*request)[name].is_string())
            return inputError(std::string(name) + " (a path) is missing");
        return absoluteIn(m_options.home, (*request)[name].get<std::string>());
    };
    auto stat = [&](const std::string& path) -> Result<json> {
        auto reply = link.file({{"op", "stat"}, {"path", path}});
        if (!reply) return reply.error();
        return *reply;
    };
    auto entryReply = [&](const std::string& path) {
        auto reply = stat(path);
        if (!reply) return rpcFail(ex, rpcError(reply.error()));
        if (!reply->value("ok", false)) return rpcFail(ex, fileError(*reply));
        sendJson(ex, 200, {{"entry", entryInfo(*reply, path)}});
    };

    if (method == "Stat") {
        auto path = pathField("path");
        if (!path) return rpcFail(ex, rpcError(path.error()));
        return entryReply(*path);
    }
    if (method == "ListDir") {
        auto path = pathField("path");
        if (!path) return rpcFail(ex, rpcError(path.error()));
        const json depthField = request->value("depth", json(1));
        const unsigned depth = depthField.is_number_unsigned() && depthField.get<unsigned>() > 0
                                   ? depthField.get<unsigned>()
                                   : 1;
        auto reply =
            link.file({{"op", "list"}, {"path", *path}, {"recursive", depth > 1}, {"max", 10000}});
        if (!reply) return rpcFail(ex, rpcError(reply.error()));
        if (!reply->value("ok", false)) return rpcFail(ex, fileError(*reply));
        json entries = json::array();
        for (const json& e : reply->value("entries", json::array())) {
            const std::string rel = getBytes(e, "path").value_or("");
            if (static_cast<unsigned>(std::count(rel.begin(), rel.end(), '/')) >= depth) continue;
            entries.push_back(entryInfo(e, *path == "/" ? "/" + rel : *path + "/" + rel));
        }
        return sendJson(ex, 200, {{"entries", entries}});
    }
    if (method == "MakeDir") {
        auto path = pathField("path");
        if (!path) return rpcFail(ex, rpcError(path.error()));
        if (ok(stat(*path)))
            return rpcFail(ex, {"already_exists", "path " + *path + " already exists"});
        auto reply = link.file({{"op", "mkdir"}, {"path", *path}, {"parents", true}});
        if (!reply) return rpcFail(ex, rpcError(reply.error()));
        if (!reply->value("ok", false)) return rpcFail(ex, fileError(*reply));
        return entryReply(*path);
    }
    if (method == "Move") {
        auto from = pathField("source");
        auto to = pathField("destination");
        if (!from) return rpcFail(ex, rpcError(from.error()));
        if (!to) return rpcFail(ex, rpcError(to.error()));
        auto reply =
            link.file({{"op", "rename"}, {"path", *from}, {"to", *to}, {"overwrite", true}});
        if (!reply) return rpcFail(ex, rpcError(reply.error()));
        if (!reply->value("ok", false)) return rpcFail(ex, fileError(*reply));
        return entryReply(*to);
    }
    if (method == "Remove") {
        auto path = pathField("path");
        if (!path) return rpcFail(ex, rpcError(path.error()));
        auto reply = link.file({{"op", "remove"}, {"path", *path}, {"recursive", true}});
        if (!reply) return rpcFail(ex, rpcError(reply.error()));
        // A path that is not there is already removed, as envd's RemoveAll has it.
        if (!reply->value("ok", false) && fileError(*reply).code != "not_found")
            return rpcFail(ex, fileError(*reply));
        return sendJson(ex, 200, json::object());
    }
    rpcFail(ex, {"unimplemented", "filesystem." + std::string(method) + " is not served"});
}

void Api::readFile(http::Exchange& ex, Sandbox& sandbox)
{
    const auto query = http::queryValue(ex.rawQuery(), "path");
    if (!query || query->empty()) return restError(ex, 400, "the path parameter is missing");
    const std::string path = absoluteIn(m_options.home, *query);
    std::uint64_t offset = 0;
    bool streaming = false;
    for (;;) {
        auto reply = sandbox.link->file(
            {{"op", "read"}, {"path", path}, {"offset", offset}, {"limit", kPart}});
        const bool good = ok(reply);
        if (!good && !streaming) {
            if (!reply) return restError(ex, 500, reply.error().describe());
            return restError(ex, httpStatusOfFileError(*reply), fileError(*reply).message);
        }
        if (!good) return; // the file changed under the read: the body ends short
        auto data = fromBase64(reply->value("data_base64", std::string()));
        const bool eof = reply->value("eof", true);
        if (!streaming && eof)
            return ex.respond(200, "application/octet-stream", data.value_or(""));
        if (!streaming && !ex.beginStream(200, "application/octet-stream")) return;
        streaming = true;
        if (!data || !ex.writeChunk(*data) || eof) return;
        if (data->empty()) return; // nothing more came although it is not at its end
        offset += data->size();
    }
}

namespace {

// Writes one file as one upload (docs/protocol.md, "Files"): parts with "more", the last
// without, and the target changes only once the last is in. A writer dropped before finish()
// (the client went away, the upload grew too large) gives the upload up: the target stays as it
// was. A supervisor from before uploads replaces the file with the first part and appends.
class FileWriter {
  public:
    FileWriter(SessionLink& link, std::string path, json metadata)
        : m_link(link), m_path(std::move(path)), m_metadata(std::move(metadata))
    {
    }
    FileWriter(const FileWriter&) = delete;
    FileWriter& operator=(const FileWriter&) = delete;
    ~FileWriter()
    {
        if (m_upload && !m_finished)
            (void)m_link.file(
                {{"op", "write"}, {"path", m_path}, {"upload", *m_upload}, {"abort", true}});
    }
    Status add(std::string_view bytes)
    {
        m_buffer.append(bytes);
        while (m_buffer.size() > kPart)
            if (auto e = send(kPart, true)) return e;
        return {};
    }
    Status finish()
    {
        if (auto e = send(m_buffer.size(), false)) return e;
        m_finished = true;
        if (m_rewrites) m_link.announceWrite(m_path);
        return {};
    }
    const std::string& path() const { return m_path; }

  private:
    Status send(std::size_t size, bool more)
    {
        // Watched: whether this rewrites a file that is there, which the session's watch may
        // not tell (a file it reported added once); a new file's addition it does tell.
        if (!m_sent && m_link.watchingFiles()) {
            auto there = m_link.file({{"op", "stat"}, {"path", m_path}});
            m_rewrites =
                there && there->value("ok", false) && there->value("type", std::string()) == "file";
        }
        json request = {{"op", "write"},
                        {"path", m_path},
                        {"data_base64", base64(std::string_view(m_buffer).substr(0, size))}};
        if (more && !m_appending) request["more"] = true;
        // Metadata go with the first part, and the file gets them when it is put in place.
        if (!m_sent && !m_metadata.empty()) request["metadata"] = m_metadata;
        m_sent = true;
        if (m_upload) request["upload"] = *m_upload;
        if (m_appending) request["append"] = true;
        auto reply = m_link.file(std::move(request));
        if (!reply) return reply.error();
        if (!reply->value("ok", false)) {
            m_upload.reset(); // the supervisor dropped it with the failure
            const json error = reply->value("error", json::object());
            const std::string code = error.value("code", std::string());
            return Error{code == "not_found"                             ? ErrorCode::NotFound
                         : code == "invalid_input" || code == "conflict" ? ErrorCode::InvalidInput
                                                                         : ErrorCode::System,
                         0, error.value("message", std::string("write failed: ") + m_path)};
        }
        if (more && !m_upload && !m_appending) {
            if (reply->contains("upload") && (*reply)["upload"].is_number_unsigned())
                m_upload = (*reply)["upload"].get<std::uint64_t>();
            else
                m_appending = true;
        }
        m_buffer.erase(0, size);
        return {};
    }

    SessionLink& m_link;
    std::string m_path;
    json m_metadata;
    std::string m_buffer;
    std::optional<std::uint64_t> m_upload;
    bool m_appending = false, m_finished = false, m_sent = false;
    bool m_rewrites = false; // a watched file that was there: its write is announced
};

int statusOf(const Error& e)
{
    return e.code == ErrorCode::InvalidInput ? 400 : e.code == ErrorCode::NotFound ? 404 : 500;
}

// What a write answers of a file written. With metadata, the file's own as the sandbox keeps
// them: a session that did not keep them (its supervisor older than this server) fails the
// write rather than answer what it asked for.
Result<json> writtenJson(SessionLink& link, const std::string& path, const json& metadata)
{
    json written = {{"name", baseName(path)}, {"type", "file"}, {"path", path}};
    if (metadata.empty()) return written;
    auto reply = link.file({{"op", "stat"}, {"path", path}});
    if (!reply) return reply.error();
    const json kept = reply->value("metadata", json::object());
    if (kept != metadata)
        return Error{ErrorCode::Unsupported, 0,
                     "the sandbox's session did not keep the metadata of " + path +
                         " (its supervisor is older than this server)"};
    written["metadata"] = kept;
    return written;
}

// The metadata of a write: its X-Metadata-KEY headers (keys in lower case, as envd has them),
// checked as the sandbox will check them.
Result<json> metadataHeaders(const http::Exchange& ex)
{
    constexpr std::string_view kPrefix = "x-metadata-";
    json metadata = json::object();
    for (const auto& [name, value] : ex.requestHeaders()) {
        if (name.size() < kPrefix.size()) continue;
        std::string lower(name);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!lower.starts_with(kPrefix)) continue;
        const std::string key = lower.substr(kPrefix.size());
        if (!metadata.contains(key)) metadata[key] = std::string(value); // the first one counts
    }
    if (auto e = checkFileMetadata(metadata)) return *e;
    return metadata;
}

// The parts named "file" of a multipart upload, each written where its filename (or the path
// parameter) says.
class UploadSink : public http::FormSink {
  public:
    UploadSink(SessionLink& link, std::string home, std::optional<std::string> path,
               std::size_t limit, json metadata)
        : m_link(link), m_home(std::move(home)), m_path(std::move(path)), m_limit(limit),
          m_metadata(std::move(metadata))
    {
    }
    bool beginPart(std::string_view name, std::string_view filename) override
    {
        if (name != "file") return false;
        const std::string target = m_path ? *m_path : std::string(filename);
        if (target.empty()) {
            failure = inputError("a file part has no filename and there is no path parameter");
            return false;
        }
        m_writer.emplace(m_link, absoluteIn(m_home, target), m_metadata);
        return true;
    }
    bool partData(std::string_view bytes) override
    {
        m_total += bytes.size();
        if (m_total > m_limit) {
            failure = inputError("the upload is larger than " + std::to_string(m_limit) + " bytes");
            return false;
        }
        failure = m_writer->add(bytes);
        return !failure;
    }
    bool endPart() override
    {
        failure = m_writer->finish();
        if (!failure) {
            auto entry = writtenJson(m_link, m_writer->path(), m_metadata);
            if (entry)
                written.push_back(std::move(*entry));
            else
                failure = entry.error();
        }
        m_writer.reset();
        return !failure;
    }

    Status failure;
    json written = json::array();

  private:
    SessionLink& m_link;
    std::string m_home;
    std::optional<std::string> m_path;
    std::size_t m_limit;
    std::size_t m_total = 0;
    json m_metadata;
    std::optional<FileWriter> m_writer;
};

} // namespace

void Api::writeFiles(http::Exchange& ex, Sandbox& sandbox)
{
    auto pathParam = http::queryValue(ex.rawQuery(), "path");
    if (pathParam && pathParam->empty()) pathParam.reset();
    auto metadata = metadataHeaders(ex);
    if (!metadata) return restError(ex, 400, metadata.error().message);
    const std::string type(ex.header("Content-Type").value_or(""));
    if (type.starts_with("multipart/form-data")) {
        UploadSink sink(*sandbox.link, m_options.home, pathParam, m_options.maxUpload, *metadata);
        if (auto e = ex.readForm(sink)) return restError(ex, 400, e->message);
        if (sink.failure) return restError(ex, statusOf(*sink.failure), sink.failure->message);
        if (sink.written.empty())
            return restError(ex, 400, "no file part (a part named \"file\") in the upload");
        return sendJson(ex, 200, sink.written);
    }
    // A raw body: one file, named by the path parameter.
    if (!pathParam) return restError(ex, 400, "the path parameter is missing");
    const auto encoding = ex.header("Content-Encoding");
    const bool gzip = encoding && *encoding == "gzip";
    if (encoding && !gzip && *encoding != "identity")
        return restError(ex, 400,
                         "uploads encoded as " + std::string(*encoding) +
                             " are not supported: send the file as it is, or gzip-encoded");
    FileWriter writer(*sandbox.link, absoluteIn(m_options.home, *pathParam), *metadata);
    // A gzip-encoded body is decoded as it arrives; the bound holds for what it decodes to.
    std::unique_ptr<Gunzip> gunzip;
    if (gzip) {
        auto opened = Gunzip::open([&writer](std::string_view bytes) { return writer.add(bytes); },
                                   m_options.maxUpload);
        if (!opened) return restError(ex, 500, opened.error().describe());
        gunzip = std::move(*opened);
    }
    Status failure;
    std::size_t total = 0;
    Status read = ex.readBody([&](std::string_view bytes) {
        total += bytes.size();
        if (total > m_options.maxUpload) {
            failure = inputError("the upload is larger than " +
                                 std::to_string(m_options.maxUpload) + " bytes");
            return false;
        }
        failure = gunzip ? gunzip->feed(bytes) : writer.add(bytes);
        return !failure;
    });
    if (read) return restError(ex, 400, read->message);
    if (!failure && gunzip) failure = gunzip->finish();
    if (!failure) failure = writer.finish();
    if (failure) return restError(ex, statusOf(*failure), failure->message);
    auto written = writtenJson(*sandbox.link, writer.path(), *metadata);
    if (!written) return restError(ex, statusOf(written.error()), written.error().message);
    sendJson(ex, 200, json::array({std::move(*written)}));
}

} // namespace sb::e2b
