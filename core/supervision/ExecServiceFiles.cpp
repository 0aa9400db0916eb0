// ExecService: what the exec helper says, and programs' file requests (read, write, stat,
// list, mkdir, remove, rename, symlink), done by the helper inside the sandbox.
#include "base/ActivityKinds.h"
#include "base/Bytes.h"
#include "base/FileMetadata.h"
#include "sandbox/SandboxChannel.h"
#include "supervision/ExecServiceInternal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/wait.h>

namespace sb {

using json = nlohmann::json;
using proto::MsgType;

namespace {

const char* errnoCode(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return "not_found";
    case EEXIST:
    case ENOTEMPTY:
    case EISDIR:
        return "conflict";
    case EINVAL:
    case E2BIG:
    case ENAMETOOLONG:
        return "invalid_input";
    case EACCES:
    case EPERM:
    case EROFS:
        return "permission_denied";
    default:
        return "system";
    }
}

// Uploads a client may have open at once (each holds a descriptor here).
constexpr std::size_t kMaxUploadsPerClient = 16;

json failureReply(int err, const std::string& message)
{
    return {{"ok", false},
            {"error", {{"code", errnoCode(err)}, {"errno", err}, {"message", message}}}};
}

// Writes all of `data` to a regular file's descriptor.
int writeAll(int fd, std::string_view data)
{
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
}

} // namespace

void ExecService::onHelperMessage()
{
    ChannelMessage m = receiveChannelMessage(m_channel, kMaxChannelMessage);
    if (m.text.empty()) {
        if (!m.truncated && errno != EAGAIN) helperGone("it ended");
        return;
    }
    json reply = json::parse(m.text, nullptr, false);
    const std::uint64_t id = reply.is_object() ? reply.value("id", std::uint64_t{0}) : 0;
    if (auto it = m_execs.find(id); it != m_execs.end()) {
        Exec& e = *it->second;
        const std::string op = reply.value("op", "");
        if (op == "spawned") {
            onSpawned(e, reply, m.fds);
        } else if (op == "spawn_failed") {
            e.exited = true;
            e.exitedAtMs = m_clock.monotonicMs();
            e.error = reply.value("message", std::string("the process could not start"));
            e.closeAll();
        } else if (op == "exec_failed") {
            const int err = reply.value("errno", 0);
            if (err == EPERM && m_hooks.denialIn)
                if (auto d = m_hooks.denialIn(e.pid, e.startedUnixMs))
                    e.denied = d->first, e.deniedCommand = d->second;
            if (reply.value("cwd", false))
                e.error = "working folder '" + e.cwd + "': " + std::strerror(err);
            else if (!e.denied)
                e.error = err == ENOENT ? "command not found: " + e.argv.front()
                                        : e.argv.front() + ": " + std::strerror(err);
        } else if (op == "exited") {
            const int status = reply.value("status", 0);
            if (WIFEXITED(status)) e.exitCode = WEXITSTATUS(status);
            if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
            e.exited = true;
            e.exitedAtMs = m_clock.monotonicMs();
        }
    } else if (auto f = m_files.find(id); f != m_files.end()) {
        onFileReply(*f->second, reply, m.fds);
    }
}

void ExecService::onSpawned(Exec& e, const json& reply, std::vector<UniqueFd>& fds)
{
    e.pid = reply.value("pid", std::int64_t{0});
    if (e.tty && !fds.empty()) {
        e.ptyMaster = fds.front().release();
        ::fcntl(e.ptyMaster, F_SETFL, O_NONBLOCK);
    }
    if (!e.clientGone)
        sendToClient(e.client,
                     proto::encodeJson(MsgType::ExecStarted, {{"id", e.clientId}, {"pid", e.pid}}));
    if (m_hooks.pendingApprovals)
        for (const ApprovalRequest& request : m_hooks.pendingApprovals())
            tellApproval(e, request);
    // What the client sent while it was starting: its input, then its signals, in order.
    flushInput(e);
    for (int sig : std::exchange(e.heldSignals, {}))
        (void)toHelper({{"op", "signal"}, {"id", e.spawnId}, {"signal", sig}});
}

Status ExecService::fileRequest(std::uint64_t client, const std::string& name, const json& body)
{
    if (!body.contains("id") || !body["id"].is_number_unsigned())
        return inputError("file_request needs an \"id\" (a number the client chose)");
    auto op = std::make_unique<FileOp>();
    op->client = client;
    op->clientId = body["id"].get<std::uint64_t>();
    op->by = body.value("origin", name);
    op->op = body.value("op", "");
    op->path = getBytes(body, "path").value_or("");
    if (op->path.empty()) return inputError("file_request needs a \"path\"");
    json toSend = json::object();
    putBytes(toSend, "path", op->path);
    if (op->op == "read") {
        op->offset = body.value("offset", std::uint64_t{0});
        op->dataFrame = body.value("data_frame", false);
        op->limit = std::min<std::uint64_t>(body.value("limit", proto::kMaxFileChunk),
                                            proto::kMaxFileChunk);
        toSend["op"] = "open_read";
    } else if (op->op == "write") {
        std::optional<std::string> data;
        if (body.value("data_frame", false)) { // its content came first, as bytes
            auto it = m_fileData.find({client, op->clientId});
            if (it == m_fileData.end())
                return inputError("a write with \"data_frame\" comes after its file_data frame "
                                  "(seq: the write's id)");
            data = std::move(it->second);
            m_fileData.erase(it);
        } else if (body.contains("data_base64") && body["data_base64"].is_string()) {
            data = fromBase64(body["data_base64"].get<std::string>());
        } else {
            data = body.value("data", std::string());
        }
        if (!data) return inputError("file_request: \"data_base64\" is not base64");
        if (data->size() > proto::kMaxFileChunk)
            return inputError("a write carries at most " + std::to_string(proto::kMaxFileChunk) +
                              " bytes (write the rest with \"append\")");
        op->data = std::move(*data);
        op->bytes = op->data.size();
        op->more = body.value("more", false);
        if (body.contains("metadata")) {
            if (body.contains("upload") || body.value("append", false))
                return inputError("\"metadata\" go with a write that replaces the file (an "
                                  "upload's first part), not with \"append\" or a later part");
            if (auto e = checkFileMetadata(body["metadata"])) return e->within("file_request");
        }
        if (body.contains("upload")) return continueUpload(std::move(op), body);
        if (op->more && body.value("append", false))
            return inputError("a write with \"more\" starts an upload: it cannot \"append\"");
        if (op->more && std::count_if(m_uploads.begin(), m_uploads.end(), [&](const auto& u) {
                            return u.second->client == client;
                        }) >= static_cast<std::ptrdiff_t>(kMaxUploadsPerClient))
            return inputError("at most " + std::to_string(kMaxUploadsPerClient) +
                              " uploads at once on one connection");
        toSend["op"] = "open_write";
        for (const char* key : {"mode", "append", "parents", "metadata"})
            if (body.contains(key)) toSend[key] = body[key];
    } else if (op->op == "stat" || op->op == "list" || op->op == "mkdir" || op->op == "remove" ||
               op->op == "rename" || op->op == "symlink") {
        toSend["op"] = op->op;
        for (const char* key : {"recursive", "max", "parents", "overwrite", "mode"})
            if (body.contains(key)) toSend[key] = body[key];
        if (op->op == "rename") {
            auto to = getBytes(body, "to");
            if (!to || to->empty()) return inputError("a rename needs \"to\"");
            putBytes(toSend, "to", *to);
        }
        if (op->op == "symlink") {
            auto target = getBytes(body, "target");
            if (!target || target->empty()) return inputError("a symlink needs \"target\"");
            putBytes(toSend, "target", *target);
        }
    } else {
        return inputError("unknown file operation '" + op->op +
                          "' (expected read, write, stat, list, mkdir, remove, rename or symlink)");
    }
    const std::uint64_t hid = m_nextSpawn++;
    toSend["id"] = hid;
    FileOp* raw = op.get();
    m_files[hid] = std::move(op);
    auto send = [this, raw, hid, toSend] {
        Status sent = m_helper == HelperState::Ready
                          ? toHelper(toSend)
                          : Status{Error{ErrorCode::System, 0,
                                         "cannot start the exec helper: " + m_helperError}};
        if (sent) {
            replyFile(*raw, {{"ok", false},
                             {"error", {{"code", "system"}, {"message", sent->describe()}}}});
            m_files.erase(hid);
        }
    };
    whenHelperReady(std::move(send));
    return {};
}

// A write's content as bytes (version 4), kept until its file_request comes: the next frame on
// the same connection, in order.
Status ExecService::fileData(std::uint64_t client, std::uint64_t id, std::string bytes)
{
    if (bytes.size() > proto::kMaxFileChunk)
        return inputError("a file_data frame carries at most " +
                          std::to_string(proto::kMaxFileChunk) + " bytes");
    if (std::count_if(m_fileData.begin(), m_fileData.end(), [&](const auto& d) {
            return d.first.first == client;
        }) >= static_cast<std::ptrdiff_t>(kMaxUploadsPerClient))
        return inputError("file_data frames wait for their file_request: at most " +
                          std::to_string(kMaxUploadsPerClient) + " at once");
    m_fileData[{client, id}] = std::move(bytes);
    return {};
}

// A later part of an upload: written here, into the temporary file the first part opened; the
// last one has the helper rename it over the target.
Status ExecService::continueUpload(std::unique_ptr<FileOp> op, const json& body)
{
    if (!body["upload"].is_number_unsigned())
        return inputError("\"upload\" is the number the upload's first part answered");
    const std::uint64_t hid = body["upload"].get<std::uint64_t>();
    auto it = m_uploads.find(hid);
    if (it == m_uploads.end() || it->second->client != op->client || it->second->path != op->path)
        return inputError("no upload " + std::to_string(hid) + " of " + op->path +
                          " in progress on this connection");
    Upload& upload = *it->second;
    if (body.value("abort", false)) { // the client gives it up: the target stays as it was
        (void)toHelper({{"op", "abort"}, {"id", hid}});
        m_uploads.erase(it);
        replyFile(*op, {{"ok", true}});
        return {};
    }
    if (int err = writeAll(upload.fd.get(), op->data)) {
        (void)toHelper({{"op", "abort"}, {"id", hid}});
        m_uploads.erase(it);
        replyFile(*op, failureReply(err, op->path + ": " + std::strerror(err)));
        return {};
    }
    upload.bytes += op->data.size();
    op->bytes = upload.bytes;
    if (op->more) {
        replyFile(*op, {{"ok", true}, {"upload", hid}, {"bytes", upload.bytes}});
        return {};
    }
    m_uploads.erase(it);
    op->committing = true;
    if (auto e = toHelper({{"op", "commit"}, {"id", hid}})) {
        replyFile(*op, failureReply(0, e->describe()));
        return {};
    }
    m_files[hid] = std::move(op); // the helper's answer to the commit ends it
    return {};
}

void ExecService::abortUploads(std::uint64_t client)
{
    for (auto it = m_uploads.begin(); it != m_uploads.end();) {
        if (client != 0 && it->second->client != client) {
            ++it;
            continue;
        }
        (void)toHelper({{"op", "abort"}, {"id", it->first}});
        it = m_uploads.erase(it);
    }
}

void ExecService::onFileReply(FileOp& op, const json& reply, const std::vector<UniqueFd>& fds)
{
    const std::uint64_t hid = reply.value("id", std::uint64_t{0});
    auto done = [&](json answer) {
        replyFile(op, std::move(answer));
        m_files.erase(hid);
    };
    if (op.clientGone) { // rolled back: a temporary file the helper made for it goes
        if (op.op == "write" && !op.committing && reply.value("commit", false))
            (void)toHelper({{"op", "abort"}, {"id", hid}});
        m_files.erase(hid);
        return;
    }
    if (!reply.value("ok", false))
        return done(
            failureReply(reply.value("errno", 0), reply.value("message", std::string("failed"))));
    if (op.op == "read") {
        if (fds.empty())
            return done({{"ok", false}, {"error", {{"code", "system"}, {"message", "no file"}}}});
        const int fd = fds.front().get();
        const std::uint64_t size = reply.value("size", std::uint64_t{0});
        std::string data(static_cast<std::size_t>(std::min<std::uint64_t>(
                             op.limit, size > op.offset ? size - op.offset : 0)),
                         '\0');
        std::size_t got = 0;
        while (got < data.size()) {
            ssize_t n = ::pread(fd, data.data() + got, data.size() - got,
                                static_cast<off_t>(op.offset + got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        data.resize(got);
        json answer = {{"ok", true},
                       {"size", size},
                       {"offset", op.offset},
                       {"eof", op.offset + got >= size},
                       {"mode", reply.value("mode", 0)}};
        if (op.dataFrame) { // the bytes, then the reply that says they were all, queued as one
            answer["data_frame"] = true;
            answer["length"] = got;
            answer["id"] = op.clientId;
            const std::uint64_t client = op.client;
            std::string frames = proto::encodeBytes(MsgType::FileData, op.clientId, data);
            frames += proto::encodeJson(MsgType::FileReply, answer);
            m_files.erase(hid); // `op` with it
            sendToClient(client, frames);
            return;
        } else {
            answer["data_base64"] = base64(data);
        }
        return done(answer);
    }
    if (op.op == "write" && !op.committing) {
        if (fds.empty())
            return done({{"ok", false}, {"error", {{"code", "system"}, {"message", "no file"}}}});
        if (int err = writeAll(fds.front().get(), op.data)) {
            (void)toHelper({{"op", "abort"}, {"id", hid}});
            return done(failureReply(err, op.path + ": " + std::strerror(err)));
        }
        if (op.more) { // the temporary file stays open for the upload's further parts
            auto upload = std::make_unique<Upload>();
            upload->client = op.client;
            upload->fd.reset(::fcntl(fds.front().get(), F_DUPFD_CLOEXEC, 3));
            upload->path = op.path;
            upload->bytes = op.data.size();
            if (!upload->fd) {
                const int err = errno;
                (void)toHelper({{"op", "abort"}, {"id", hid}});
                return done(failureReply(err, op.path + ": " + std::strerror(err)));
            }
            m_uploads[hid] = std::move(upload);
            return done({{"ok", true}, {"upload", hid}, {"bytes", op.data.size()}});
        }
        if (reply.value("commit", false)) {
            op.committing = true;
            if (auto e = toHelper({{"op", "commit"}, {"id", hid}}))
                return done(
                    {{"ok", false}, {"error", {{"code", "system"}, {"message", e->describe()}}}});
            return; // the helper's answer to the commit ends it
        }
    }
    json answer = reply;
    answer.erase("id");
    answer.erase("op");
    if (op.op == "write") answer["bytes"] = op.bytes;
    if (op.op != "read" && op.op != "stat" && op.op != "list" && m_hooks.activity) {
        json event = {{"kind", activity::kFiles}, {"op", op.op}, {"by", op.by}};
        putBytes(event, "path", op.path);
        if (op.op == "write") event["bytes"] = op.bytes;
        m_hooks.activity(event);
    }
    done(answer);
}

void ExecService::replyFile(const FileOp& op, json reply)
{
    if (op.clientGone) return;
    reply["id"] = op.clientId;
    sendToClient(op.client, proto::encodeJson(MsgType::FileReply, reply));
}

} // namespace sb
