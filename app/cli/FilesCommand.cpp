// files: a running session's files as its sandbox sees them (control protocol version 2,
// docs/protocol.md, "Files"). Copies are all or nothing on both sides: `get` writes a temporary
// file beside the local file and renames it over it once the whole content arrived; `put`
// sends a large file as one upload, which the supervisor keeps in a temporary file beside the
// target until its last part, and drops if this program ends before that.
#include "Commands.h"
#include "base/Bytes.h"
#include "base/UniqueFd.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <deque>
#include <fcntl.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using sb::proto::MsgType;

namespace sbcli {
namespace {

struct FilesArgs {
    std::string session;
    std::string path, target;
    bool recursive = false, parents = false, json = false;
    std::string mode;
};

// Whether file contents may travel as bytes (file_data frames, version 4) instead of base64 in
// the JSON: a quarter less to send, and nothing to encode, escape and parse.
bool dataFrames(const sb::ControlClient& client)
{
    return client.version() >= 4;
}

// A file_reply (or an error naming a request) as a result. The message names the path and says
// the errno's text already (protocol.md): no errno here, or describe() would say it twice.
sb::Result<json> resultOf(const sb::proto::Message& m)
{
    if (m.type == MsgType::Error) return sb::proto::errorFromBody(m.body);
    if (m.body.value("ok", false)) return m.body;
    const json& error = m.body["error"];
    const std::string code = error.value("code", "");
    return sb::Error{code == "not_found"       ? sb::ErrorCode::NotFound
                     : code == "conflict"      ? sb::ErrorCode::Conflict
                     : code == "invalid_input" ? sb::ErrorCode::InvalidInput
                                               : sb::ErrorCode::System,
                     0, error.value("message", std::string("failed"))};
}

// Replies and read contents that came while another request's reply was awaited.
std::map<std::uint64_t, sb::Result<json>> g_earlyReplies;
std::map<std::uint64_t, std::string> g_earlyData;

// Sends one file request, a write's `content` as a file_data frame right before it; its id.
sb::Result<std::uint64_t> sendFileRequest(sb::ControlClient& client, json request,
                                          std::string* content = nullptr)
{
    static std::uint64_t next = 1;
    const std::uint64_t id = next++;
    request["id"] = id;
    request["origin"] = "sandbench-cli files";
    if (content) {
        sb::proto::Message data;
        data.type = MsgType::FileData;
        data.seq = id;
        data.bytes = std::move(*content);
        if (auto e = client.send(data)) return *e;
        request["data_frame"] = true;
    }
    if (auto e = client.send(sb::proto::jsonMessage(MsgType::FileRequest, request))) return *e;
    return id;
}

// The reply to request `id`; `out` gets a read's content when it came as a file_data frame.
sb::Result<json> awaitFileReply(sb::ControlClient& client, std::uint64_t id,
                                std::string* out = nullptr)
{
    auto takeData = [&] {
        if (auto d = g_earlyData.find(id); d != g_earlyData.end()) {
            if (out) *out = std::move(d->second);
            g_earlyData.erase(d);
        }
    };
    if (auto early = g_earlyReplies.find(id); early != g_earlyReplies.end()) {
        sb::Result<json> reply = std::move(early->second);
        g_earlyReplies.erase(early);
        takeData();
        return reply;
    }
    for (;;) {
        auto m = client.receive(60000);
        if (!m) return m.error();
        if (m->type == MsgType::FileData) {
            g_earlyData[m->seq] = std::move(m->bytes);
        } else if (m->type == MsgType::FileReply || m->type == MsgType::Error) {
            const std::uint64_t replyId = m->body.value("id", std::uint64_t{0});
            if (replyId == id) {
                takeData();
                return resultOf(*m);
            }
            if (replyId != 0) g_earlyReplies.emplace(replyId, resultOf(*m));
        }
    }
}

// One file request and its reply (see the two above).
sb::Result<json> fileRequest(sb::ControlClient& client, json request, std::string* out = nullptr,
                             std::string* content = nullptr)
{
    auto id = sendFileRequest(client, std::move(request), content);
    if (!id) return id.error();
    return awaitFileReply(client, *id, out);
}

// A failed request about `path`, said once: the supervisor's messages name the path already;
// the others (a request refused as a whole) get it in front.
int failOn(const std::string& path, const sb::Error& error)
{
    const std::string& m = error.message;
    const bool named = m.compare(0, path.size(), path) == 0 &&
                       (m.size() == path.size() || m[path.size()] == ':' || m[path.size()] == ' ');
    return fail(named ? error : error.within(path));
}

// The temporary file of the copy in progress, for a stop signal's handler to remove.
char g_copyTemp[4096];

void removeCopyAndStop(int signal)
{
    if (g_copyTemp[0] != 0) ::unlink(g_copyTemp);
    ::signal(signal, SIG_DFL);
    ::raise(signal); // ends as that signal says, as without this handler
}

// Where `get` writes: a temporary file beside the local file, renamed over it by commit(); gone
// again if commit() never comes, nor when a stop signal (Ctrl-C, SIGTERM, SIGHUP) ends the
// program first. A local file that is not a regular one (a device, a FIFO) is written
// directly: there is no content of its own to keep.
class LocalCopy {
  public:
    LocalCopy() = default;
    LocalCopy(const LocalCopy&) = delete;
    LocalCopy& operator=(const LocalCopy&) = delete;
    ~LocalCopy()
    {
        if (!m_temp.empty()) ::unlink(m_temp.c_str());
        forget();
    }

    sb::Status open(const std::string& target)
    {
        struct stat st {};
        const bool exists = ::stat(target.c_str(), &st) == 0; // through a link: its file
        if (exists && S_ISDIR(st.st_mode))
            return sb::inputError("cannot write " + target + ": it is a folder");
        if (exists && !S_ISREG(st.st_mode)) {
            m_fd.reset(::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
            return m_fd ? sb::Status{} : sb::Status{sb::sysError("cannot write " + target)};
        }
        std::error_code ec;
        m_final = exists ? fs::canonical(target, ec) : fs::path(target);
        if (ec) m_final = target;
        const fs::path dir = m_final.has_parent_path() ? m_final.parent_path() : fs::path(".");
        std::string name =
            (dir / ("." + m_final.filename().string() + ".sandbench-get-XXXXXX")).string();
        const int fd = ::mkostemp(name.data(), O_CLOEXEC);
        if (fd < 0) return sb::sysError("cannot write " + target + " (a temporary file beside it)");
        m_fd.reset(fd);
        m_temp = name;
        if (name.size() < sizeof g_copyTemp) {
            std::memcpy(g_copyTemp, name.c_str(), name.size() + 1);
            for (int signal : {SIGINT, SIGTERM, SIGHUP})
                ::signal(signal, removeCopyAndStop);
        }
        const mode_t mask = ::umask(0);
        ::umask(mask);
        (void)::fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
        if (exists) (void)!::fchown(fd, st.st_uid, st.st_gid); // root keeps the owner, as cp does
        return {};
    }

    sb::Status write(std::string_view data)
    {
        while (!data.empty()) {
            ssize_t n = ::write(m_fd.get(), data.data(), data.size());
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return sb::sysError("write " + shown());
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return {};
    }

    sb::Status commit()
    {
        if (m_temp.empty()) return {};
        if (::fsync(m_fd.get()) != 0) return sb::sysError("write " + shown());
        if (::rename(m_temp.c_str(), m_final.c_str()) != 0)
            return sb::sysError("replace " + m_final.string());
        m_temp.clear();
        forget();
        return {};
    }

  private:
    static void forget()
    {
        for (int signal : {SIGINT, SIGTERM, SIGHUP})
            ::signal(signal, SIG_DFL);
        g_copyTemp[0] = 0;
    }

    std::string shown() const { return m_final.empty() ? "the local file" : m_final.string(); }

    sb::UniqueFd m_fd;
    fs::path m_final, m_temp;
};

int getFile(sb::ControlClient& c, const FilesArgs& args)
{
    const bool toStdout = args.target.empty() || args.target == "-";
    LocalCopy out;
    if (!toStdout)
        if (auto e = out.open(args.target)) return fail(*e);
    json read = {{"op", "read"}};
    sb::putBytes(read, "path", args.path);
    if (dataFrames(c)) read["data_frame"] = true;
    // Two parts asked for at a time: the supervisor reads the next while this one is written.
    // Half the largest part each, so that what waits for this program in the supervisor stays
    // within what it keeps for a client that does not read (ControlServer, 8 MiB).
    constexpr std::uint64_t kPart = sb::proto::kMaxFileChunk / 2;
    read["limit"] = kPart;
    std::deque<std::uint64_t> asked; // request ids, in the order of their offsets
    std::uint64_t nextOffset = 0;
    auto ask = [&]() -> sb::Status {
        read["offset"] = nextOffset;
        auto id = sendFileRequest(c, read);
        if (!id) return id.error();
        asked.push_back(*id);
        nextOffset += kPart;
        return {};
    };
    for (int i = 0; i < 2; ++i)
        if (auto e = ask()) return failOn(args.path, *e);
    std::string bytes;
    for (;;) {
        bytes.clear();
        auto reply = awaitFileReply(c, asked.front(), &bytes);
        asked.pop_front();
        if (!reply) return failOn(args.path, reply.error());
        auto data = reply->value("data_frame", false)
                        ? std::optional<std::string>(std::move(bytes))
                        : sb::fromBase64(reply->value("data_base64", std::string()));
        if (!data || (reply->value("data_frame", false) &&
                      data->size() != reply->value("length", std::uint64_t{0})))
            return fail("a malformed reply from the supervisor");
        const bool eof = reply->value("eof", true) || data->empty();
        // A part cut short before the end: the file shrank while it was read.
        if (!eof && data->size() != kPart)
            return fail(args.path + " shrank while it was copied: the copy was given up");
        if (toStdout)
            std::fwrite(data->data(), 1, data->size(), stdout);
        else if (auto e = out.write(*data))
            return fail(*e);
        if (eof) break;
        if (auto e = ask()) return failOn(args.path, *e);
    }
    if (auto e = out.commit()) return fail(*e);
    return 0;
}

// Up to `most` bytes of `fd` into `part`; whether its end came.
sb::Result<bool> readPart(int fd, std::size_t most, std::string& part)
{
    part.resize(most);
    std::size_t got = 0;
    while (got < most) {
        ssize_t n = ::read(fd, part.data() + got, most - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sb::sysError("read");
        if (n == 0) {
            part.resize(got);
            return true;
        }
        got += static_cast<std::size_t>(n);
    }
    return false;
}

int putFile(sb::ControlClient& c, const FilesArgs& args)
{
    sb::UniqueFd own;
    if (args.path != "-") {
        own.reset(::open(args.path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!own) return fail("cannot read " + args.path + ": " + std::strerror(errno));
    }
    const int in = own ? own.get() : 0;
    json write = {{"op", "write"}};
    sb::putBytes(write, "path", args.target);
    if (!args.mode.empty()) write["mode"] = std::stoul(args.mode, nullptr, 8); // checked: octal
    // One request a part: the first says "more" when others follow, and they name the upload
    // its answer started; the last replaces the target. A supervisor from before uploads
    // answers the first without one: it replaced the target already, the rest is appended.
    std::optional<std::uint64_t> upload;
    bool appending = false;
    std::string part;
    for (bool first = true;; first = false) {
        auto end = readPart(in, sb::proto::kMaxFileChunk, part);
        if (!end)
            return fail("cannot read " + (args.path == "-" ? std::string("stdin") : args.path) +
                        ": " + end.error().describe());
        json request = write;
        const bool asBytes = dataFrames(c);
        if (!asBytes) request["data_base64"] = sb::base64(part);
        if (!*end && !appending) request["more"] = true;
        if (upload) request["upload"] = *upload;
        if (appending) request["append"] = true;
        auto reply = fileRequest(c, request, nullptr, asBytes ? &part : nullptr);
        if (!reply) return failOn(args.target, reply.error());
        if (*end) return 0;
        if (first && reply->contains("upload") && (*reply)["upload"].is_number_unsigned())
            upload = (*reply)["upload"].get<std::uint64_t>();
        else if (first)
            appending = true;
    }
}

// A mode as stat(1) writes it: "0644".
std::string octal(unsigned mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode & 07777);
    return text;
}

// The protocol's entry (stat's reply, a list's entry) for --json: its mode also in octal, since
// JSON numbers are decimal (420 is 0644).
json withOctalMode(json entry)
{
    if (entry.contains("mode") && entry["mode"].is_number_unsigned())
        entry["mode_octal"] = octal(entry["mode"].get<unsigned>());
    return entry;
}

// One entry as `ls -l` would name it: "d src/", "l a -> b", "f x.txt (12 bytes)".
void printEntry(const json& e, const std::string& path)
{
    const std::string type = e.value("type", "");
    if (type == "directory")
        std::printf("d %s/\n", path.c_str());
    else if (type == "symlink")
        std::printf("l %s -> %s\n", path.c_str(), sb::getBytes(e, "target").value_or("").c_str());
    else
        std::printf("%c %s (%llu bytes)\n", type == "file" ? 'f' : 'o', path.c_str(),
                    e.value("size", 0ULL));
}

// stat's reply as stat(1) says it: type, size, mode in octal, owner, modification time.
void printStat(const json& st, const std::string& path)
{
    std::printf("  path: %s\n", path.c_str());
    std::printf("  type: %s", st.value("type", "?").c_str());
    if (auto target = sb::getBytes(st, "target"))
        std::printf(" -> %s%s", target->c_str(), st.value("broken", false) ? " (broken)" : "");
    std::printf("\n  size: %llu bytes\n", st.value("size", 0ULL));
    std::printf("  mode: %s\n", octal(st.value("mode", 0U)).c_str());
    std::printf(" owner: uid %llu, gid %llu (as the sandbox numbers them)\n", st.value("uid", 0ULL),
                st.value("gid", 0ULL));
    const std::int64_t ns = st.value("mtime_ns", std::int64_t{0});
    const std::time_t seconds = static_cast<std::time_t>(ns / 1000000000);
    std::tm tm{};
    ::localtime_r(&seconds, &tm);
    char day[32], zone[8];
    std::strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm);
    std::strftime(zone, sizeof zone, "%z", &tm);
    std::printf(" mtime: %s.%09lld %s\n", day, static_cast<long long>(ns % 1000000000), zone);
}

// `ls FILE` lists that one file, as ls does: a list of a path that is no folder asks for its
// stat instead. An error is the list's when the path is not there either.
int listOneEntry(sb::ControlClient& c, const FilesArgs& args, const sb::Error& listError)
{
    json request = {{"op", "stat"}};
    sb::putBytes(request, "path", args.path);
    auto st = fileRequest(c, request);
    if (!st || st->value("type", "") == "directory") return failOn(args.path, listError);
    json entry = *st;
    entry.erase("ok");
    entry.erase("id");
    sb::putBytes(entry, "path", args.path);
    if (args.json)
        std::printf("%s\n", sb::dumpJson(json{{"entries", json::array({withOctalMode(entry)})},
                                              {"truncated", false}},
                                         2)
                                .c_str());
    else
        printEntry(entry, args.path);
    return 0;
}

int filesCommand(const std::string& op, const FilesArgs& args)
{
    auto client = programClient(args.session, "sandbench-cli files");
    if (!client) return fail(client.error(), kUsageError);
    sb::ControlClient& c = **client;
    if (op == "get") return getFile(c, args);
    if (op == "put") return putFile(c, args);
    json request = {{"op", op}};
    sb::putBytes(request, "path", args.path);
    if (op == "list") request["recursive"] = args.recursive;
    if (op == "mkdir") request["parents"] = args.parents;
    if (op == "remove") request["recursive"] = args.recursive;
    if (op == "rename") sb::putBytes(request, "to", args.target);
    auto reply = fileRequest(c, request);
    if (!reply && op == "list" && reply.error().code != sb::ErrorCode::InvalidInput)
        return listOneEntry(c, args, reply.error());
    if (!reply) return failOn(args.path, reply.error());
    reply->erase("id");
    if (op == "stat" && !args.json) {
        printStat(*reply, args.path);
    } else if (args.json && op == "list") {
        for (auto& e : (*reply)["entries"])
            e = withOctalMode(e);
        std::printf("%s\n", sb::dumpJson(*reply, 2).c_str());
    } else if (args.json) {
        std::printf("%s\n", sb::dumpJson(withOctalMode(*reply), 2).c_str());
    } else if (op == "list") {
        for (const auto& e : (*reply)["entries"])
            printEntry(e, sb::getBytes(e, "path").value_or("?"));
        if (reply->value("truncated", false))
            std::fprintf(stderr, "sandbench: the list stops here (its size bound)\n");
    }
    return 0;
}

// --mode: an octal mode, checked before anything is sent.
CLI::Validator octalMode()
{
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (text.empty() || text.size() > 4 ||
                text.find_first_not_of("01234567") != std::string::npos)
                return "'" + text + "' is not an octal mode from 0 to 7777 (such as 0644)";
            return {};
        },
        "OCTAL");
}

} // namespace

void addFilesCommand(CLI::App& app)
{
    auto args = std::make_shared<FilesArgs>();
    CLI::App* files = app.add_subcommand(
        "files", "Read and write a running session's files as its sandbox sees them");
    files->require_subcommand(1);
    struct Op {
        const char* name;
        const char* op;
        const char* help;
        const char* path;
        const char* target; // second positional, or nullptr
    };
    static const Op ops[] = {
        {"ls", "list", "List a folder (-R: all the way down), or name one file",
         "Folder or file (default: the workspace)", nullptr},
        {"get", "get",
         "Copy a file out (to FILE, replaced only once all of it arrived; or - for "
         "stdout)",
         "File in the sandbox", "Local file"},
        {"put", "put", "Copy a file in, replacing the target atomically (all of it or nothing)",
         "Local file (- for stdin)", "Path in the sandbox"},
        {"stat", "stat", "What is at a path: type, size, mode, owner, modification time", "Path",
         nullptr},
        {"mkdir", "mkdir", "Make a folder (-p: with its parents)", "Folder", nullptr},
        {"rm", "remove", "Remove a file (-r: a folder and what is in it)", "Path", nullptr},
        {"mv", "rename", "Rename or move", "Path", "New path"},
    };
    for (const Op& o : ops) {
        const std::string name = o.name;
        CLI::App* cmd = files->add_subcommand(o.name, o.help);
        cmd->add_option("session", args->session, "Session id")->required();
        auto* path = cmd->add_option("path", args->path, o.path);
        if (name != "ls")
            path->required();
        else
            args->path = ".";
        if (o.target) {
            auto* target = cmd->add_option("target", args->target, o.target);
            if (name != "get") target->required();
        }
        if (name == "ls" || name == "rm")
            cmd->add_flag(name == "ls" ? "-R,--recursive" : "-r,--recursive", args->recursive,
                          "All the way down");
        if (name == "mkdir") cmd->add_flag("-p,--parents", args->parents, "Make parents");
        if (name == "put")
            cmd->add_option("--mode", args->mode, "Octal mode (0644)")->check(octalMode());
        if (name == "ls" || name == "stat")
            cmd->add_flag("--json", args->json,
                          "Output as JSON (the protocol's fields; mode_octal: the mode as 0644)");
        const std::string op = o.op;
        cmd->callback([args, op] { exitWith(filesCommand(op, *args)); });
    }
}

} // namespace sbcli
