#include "control/ControlServer.h"

#include "base/Paths.h"
#include "base/Session.h"
#include "base/UniqueFd.h"
#include "control/ControlServerClient.h"
#include "control/PeerCheck.h"

#include <algorithm>
#include <cstring>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace sb {

using proto::MsgType;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kReadBudget = 4 * kReadChunk; // per wake-up, so one client cannot starve

Result<sockaddr_un> unixAddress(const fs::path& path)
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.native().size() >= sizeof addr.sun_path)
        return inputError("socket path " + path.string() + " is too long for a unix socket");
    std::memcpy(addr.sun_path, path.c_str(), path.native().size() + 1);
    return addr;
}

// The runtime directory holds every session's socket: it must be ours and private, or another
// user could swap a socket in (the /tmp fallback is shared by everyone).
Status prepareRuntimeDirectory(const fs::path& dir)
{
    std::error_code ec;
    fs::create_directories(dir.parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return sysError("create " + dir.string());
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return sysError("stat " + dir.string());
    if (!S_ISDIR(st.st_mode)) return inputError(dir.string() + " is not a folder");
    if (st.st_uid != ::geteuid())
        return inputError(dir.string() + " belongs to uid " + std::to_string(st.st_uid) +
                          ", not to this user; refusing to put control sockets there");
    if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0)
        return sysError("chmod 0700 " + dir.string());
    return {};
}

// A socket file with no listener behind it is stale: its supervisor died without cleaning up.
Status removeIfStale(const fs::path& path, const std::string& sessionId)
{
    auto addr = unixAddress(path);
    if (!addr) return addr.error();
    const UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return sysError("socket");
    const int rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr);
    const int err = errno;
    if (rc == 0)
        return Error{ErrorCode::Conflict, 0,
                     "session " + sessionId + " already has a live supervisor on " + path.string()};
    if (err == ENOENT) return {};
    if (err == ECONNREFUSED) {
        if (::unlink(path.c_str()) != 0 && errno != ENOENT)
            return sysError("remove stale socket " + path.string());
        return {};
    }
    return sysError("probe " + path.string(), err);
}

} // namespace

ControlServer::ControlServer(fs::path path, int listenFd, SessionBackend& backend,
                             ControlServerOptions options)
    : m_path(std::move(path)), m_listenFd(listenFd), m_backend(backend),
      m_options(std::move(options)), m_ring(std::max<std::size_t>(m_options.ringBytes, 1))
{
    if (m_options.ownerUid == static_cast<uid_t>(-1)) m_options.ownerUid = ::geteuid();
    if (!m_options.log)
        m_options.log = [](const std::string& text) { spdlog::warn("control socket: {}", text); };
}

Result<std::unique_ptr<ControlServer>> ControlServer::listen(const std::string& sessionId,
                                                             SessionBackend& backend,
                                                             ControlServerOptions options)
{
    if (!isValidSessionId(sessionId)) return inputError("invalid session id '" + sessionId + "'");
    fs::path dir = runtimeDirectory();
    if (auto e = prepareRuntimeDirectory(dir)) return *e;
    fs::path path = proto::socketPath(sessionId);
    if (auto e = removeIfStale(path, sessionId)) return *e;

    // Bound under a private name and renamed into place once listening, so the public name
    // never points at a socket without a listener (which `ls` would take for stale).
    fs::path temp = dir / ("." + sessionId + "." + std::to_string(::getpid()) + ".tmp");
    auto addr = unixAddress(temp);
    if (!addr) return addr.error();
    if (auto final = unixAddress(path); !final) return final.error();
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd) return sysError("socket");
    ::unlink(temp.c_str());
    auto fail = [&](Error e) {
        ::unlink(temp.c_str());
        return e;
    };
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0)
        return fail(sysError("bind " + temp.string()));
    if (::chmod(temp.c_str(), 0600) != 0) return fail(sysError("chmod " + temp.string()));
    if (::listen(fd.get(), 64) != 0) return fail(sysError("listen on " + temp.string()));
    if (::rename(temp.c_str(), path.c_str()) != 0)
        return fail(sysError("rename " + temp.string() + " to " + path.string()));
    return std::unique_ptr<ControlServer>(
        new ControlServer(path, fd.release(), backend, std::move(options)));
}

ControlServer::~ControlServer()
{
    for (auto& c : m_clients)
        if (c->fd >= 0) ::close(c->fd);
    ::close(m_listenFd);
    ::unlink(m_path.c_str());
}

std::uint64_t ControlServer::oldestSeq() const
{
    return m_nextSeq > m_ring.size() ? m_nextSeq - m_ring.size() : 0;
}

std::size_t ControlServer::subscriberCount() const
{
    return static_cast<std::size_t>(
        std::count_if(m_clients.begin(), m_clients.end(),
                      [](const auto& c) { return !c->dead && c->subscribed; }));
}

bool ControlServer::hasOutputWaiting(const Client& c) const
{
    if (c.writeClosed) return false;
    return !c.inflight.empty() || !c.control.empty() || (c.subscribed && c.cursor < m_nextSeq) ||
           (c.exitQueued && !c.exitSent);
}

bool ControlServer::flushed() const
{
    return std::none_of(m_clients.begin(), m_clients.end(),
                        [&](const auto& c) { return !c->dead && hasOutputWaiting(*c); });
}

void ControlServer::fillPollFds(std::vector<pollfd>& fds) const
{
    fds.push_back({m_listenFd, POLLIN, 0});
    for (const auto& c : m_clients)
        if (!c->dead)
            fds.push_back(
                {c->fd, static_cast<short>(POLLIN | (hasOutputWaiting(*c) ? POLLOUT : 0)), 0});
}

void ControlServer::handle(const std::vector<pollfd>& fds)
{
    for (const pollfd& p : fds) {
        if (p.revents == 0) continue;
        if (p.fd == m_listenFd) {
            acceptClients();
            continue;
        }
        auto it = m_byFd.find(p.fd);
        if (it == m_byFd.end()) continue;
        Client& c = *it->second;
        // Every socket is non-blocking, so readiness that went stale is harmless.
        if (!c.dead && (p.revents & (POLLIN | POLLHUP | POLLERR))) readFrom(c);
        if (!c.dead && (p.revents & POLLOUT)) {
            c.blocked = false;
            flush(c);
        }
    }
    reap();
}

void ControlServer::acceptClients()
{
    for (;;) {
        int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED)
                m_options.log(std::string("accept: ") + std::strerror(errno));
            return;
        }
        ucred cred{};
        socklen_t len = sizeof cred;
        Status refusal;
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
            refusal = sysError("read the peer's credentials");
        else if (!proto::peerAllowed(cred.uid, m_options.ownerUid))
            refusal = Error{ErrorCode::InvalidInput, 0,
                            "connection refused: peer uid " + std::to_string(cred.uid) +
                                " is neither this session's user (uid " +
                                std::to_string(m_options.ownerUid) + ") nor root"};
        else if (auto outside = checkPeerOutsideSandboxes(fd, cred.pid))
            refusal = std::move(outside);
        else if (m_clients.size() >= m_options.maxClients)
            refusal = Error{ErrorCode::Conflict, 0,
                            "too many clients (" + std::to_string(m_options.maxClients) + ")"};
        if (refusal) {
            m_options.log("refused pid " + std::to_string(cred.pid) + ": " + refusal->describe());
            std::string frame = proto::encodeJson(MsgType::Error, proto::errorBody(*refusal, true));
            (void)::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            ::close(fd);
            continue;
        }
        auto c = std::make_unique<Client>();
        c->id = m_nextClientId++;
        c->fd = fd;
        c->pid = cred.pid;
        c->uid = cred.uid;
        m_byFd[fd] = c.get();
        m_clients.push_back(std::move(c));
    }
}

void ControlServer::readFrom(Client& c)
{
    for (std::size_t budget = 0; budget < kReadBudget && !c.dead;) {
        std::span<char> room = c.decoder.writable(kReadChunk);
        ssize_t n = ::read(c.fd, room.data(), room.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            // End of file or a reset is a client going away, which needs no message.
            bool gone = n == 0 || errno == ECONNRESET;
            std::string why = gone ? "" : std::string("read: ") + std::strerror(errno);
            if (n == 0 && c.decoder.buffered() > 0)
                why = "connection closed in the middle of a frame (" +
                      std::to_string(c.decoder.buffered()) + " bytes)";
            dropClient(c, why);
            return;
        }
        c.decoder.commit(static_cast<std::size_t>(n));
        budget += static_cast<std::size_t>(n);
        proto::Message m;
        for (;;) {
            auto got = c.decoder.next(m);
            if (!got) {
                sendError(c, got.error(), true);
                dropClient(c, "protocol violation: " + got.error().message);
                return;
            }
            if (!*got) break;
            // A field of the wrong type in a client's message is that client's error.
            const char* type = proto::typeName(m.type);
            if (auto e = guarded(type, [&]() -> Status {
                    dispatch(c, m);
                    return {};
                }))
                if (!c.dead) sendError(c, *e, false, type);
            if (c.dead) return;
        }
    }
}

void ControlServer::dispatch(Client& c, proto::Message& m)
{
    if (!c.greeted && m.type != MsgType::Hello) {
        Error e = inputError(std::string("expected hello first, got ") + proto::typeName(m.type));
        sendError(c, e, true);
        dropClient(c, "protocol violation: " + e.message);
        return;
    }
    if (proto::versionOf(m.type) > c.version) {
        Error e = inputError(std::string(proto::typeName(m.type)) + " needs protocol version " +
                             std::to_string(proto::versionOf(m.type)) +
                             " (this connection speaks " + std::to_string(c.version) + ")");
        sendError(c, e, true);
        dropClient(c, "protocol violation: " + e.message);
        return;
    }
    bool interactive = c.role == proto::Role::Interactive;
    switch (m.type) {
    case MsgType::ExecStart:
    case MsgType::ExecInput:
    case MsgType::ExecControl:
    case MsgType::FileRequest:
    case MsgType::FileData:
    case MsgType::PortRequest:
    case MsgType::SnapshotRequest:
    case MsgType::PauseRequest:
    case MsgType::ExecutionRecord:
        onProgramRequest(c, m);
        return;
    case MsgType::Hello:
        onHello(c, m.body);
        return;
    case MsgType::Subscribe:
        onSubscribe(c, m.body);
        return;
    case MsgType::ApprovalAnswer:
        onAnswer(c, m.body);
        return;
    case MsgType::PolicyUpdate: // viewers too: like stop, it needs no terminal
        onPolicyUpdate(c, m.body);
        return;
    case MsgType::Input:
        if (!interactive)
            return sendError(c,
                             inputError("viewers cannot send terminal input; attach as "
                                        "interactive (sandbench-cli attach --interactive)"),
                             false, "input");
        m_backend.writeTerminalInput(m.bytes);
        return;
    case MsgType::Resize: {
        if (!interactive)
            return sendError(c, inputError("viewers cannot resize the terminal"), false, "resize");
        long rows = m.body.value("rows", 0L), cols = m.body.value("cols", 0L);
        if (rows < 1 || rows > 65535 || cols < 1 || cols > 65535)
            return sendError(c, inputError("resize needs rows and cols between 1 and 65535"), false,
                             "resize");
        m_backend.resize(static_cast<unsigned>(rows), static_cast<unsigned>(cols));
        return;
    }
    case MsgType::Stop:
    case MsgType::Kill: {
        bool kill = m.type == MsgType::Kill;
        m_options.log(std::string(kill ? "kill" : "stop") + " requested by " + c.name + " (pid " +
                      std::to_string(c.pid) + ")");
        m_backend.stop(kill);
        sendControl(c, proto::encodeJson(MsgType::Ack, {{"ref", proto::typeName(m.type)}}));
        return;
    }
    case MsgType::Error:
        m_options.log("client " + c.name + " reported: " + m.body.value("message", std::string()));
        return;
    default: {
        Error e =
            inputError(std::string("unexpected message from a client: ") + proto::typeName(m.type));
        sendError(c, e, true);
        dropClient(c, "protocol violation: " + e.message);
    }
    }
}

void ControlServer::onHello(Client& c, const json& body)
{
    auto violation = [&](const std::string& text) {
        Error e = inputError(text);
        sendError(c, e, true, "hello");
        dropClient(c, "handshake refused: " + text);
    };
    if (c.greeted) return violation("second hello on one connection");
    // A client names the newest version it speaks; the answer is the newest both speak.
    auto version = body.value("version", json());
    if (!version.is_number_unsigned() || version.get<std::uint64_t>() < proto::kOldestVersion)
        return violation("protocol version " + version.dump() +
                         " is not supported (this supervisor speaks versions " +
                         std::to_string(proto::kOldestVersion) + " to " +
                         std::to_string(proto::kVersion) + ")");
    c.version = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(version.get<std::uint64_t>(), proto::kVersion));
    auto role = proto::parseRole(body.value("role", std::string("viewer")));
    if (!role)
        return violation("unknown role " + body.value("role", json()).dump() +
                         " (expected viewer or interactive)");
    c.role = *role;
    c.name = body.value("client", std::string("unnamed"));
    c.greeted = true;

    json pending = json::array();
    for (const ApprovalRequest& r : m_backend.pendingApprovals())
        pending.push_back(proto::toJson(r));
    json features = json::array();
    if (c.version >= 2 && m_backend.servesPrograms()) features = {"exec", "files"};
    if (c.version >= 3 && m_backend.servesPorts()) features.push_back("ports");
    json welcome = {{"version", c.version},
                    {"features", std::move(features)},
                    {"session", proto::toJson(m_backend.summary())},
                    {"role", proto::roleName(c.role)},
                    {"output", {{"oldest_seq", oldestSeq()}, {"next_seq", m_nextSeq}}},
                    {"pending", pending},
                    {"exited", m_exited}};
    if (m_exited) welcome["exit_status"] = m_exitStatus;
    sendControl(c, proto::encodeJson(MsgType::Welcome, welcome));
    if (m_exited) {
        c.exitQueued = true;
        flush(c);
    }
}

void ControlServer::onProgramRequest(Client& c, proto::Message& m)
{
    std::string ref = proto::typeName(m.type);
    std::optional<std::uint64_t> id;
    if (!proto::carriesBytes(m.type) && m.body.contains("id") && m.body["id"].is_number_unsigned())
        id = m.body["id"].get<std::uint64_t>();
    else if (proto::carriesBytes(m.type))
        id = m.seq;
    // File contents as file_data frames came with version 4: an older client gets base64 only.
    Status refused;
    if (m.type == MsgType::FileRequest && c.version < 4 && m.body.value("data_frame", false))
        refused = inputError("\"data_frame\" needs protocol version 4 (this connection speaks " +
                             std::to_string(c.version) + ")");
    if (auto e = refused ? refused : m_backend.clientRequest(c.id, c.name, m)) {
        json body = proto::errorBody(*e, false, ref);
        if (id) body["id"] = *id;
        sendControl(c, proto::encodeJson(MsgType::Error, body));
    }
}

ControlServer::Client* ControlServer::findClient(std::uint64_t id) const
{
    for (const auto& c : m_clients)
        if (c->id == id && !c->dead) return c.get();
    return nullptr;
}

bool ControlServer::sendTo(std::uint64_t client, const std::string& frame)
{
    Client* c = findClient(client);
    if (!c) return false;
    sendControl(*c, frame);
    return !c->dead;
}

std::size_t ControlServer::queuedBytes(std::uint64_t client) const
{
    const Client* c = findClient(client);
    return c ? c->controlBytes : 0;
}

void ControlServer::onSubscribe(Client& c, const json& body)
{
    std::uint64_t oldest = oldestSeq();
    std::uint64_t start = oldest;
    json requested = body.value("from_seq", json());
    bool truncated = false;
    if (body.value("live", false)) {
        start = m_nextSeq;
    } else if (requested.is_number_unsigned()) {
        auto want = requested.get<std::uint64_t>();
        truncated = want < oldest;
        start = std::clamp(want, oldest, m_nextSeq);
    } else if (!requested.is_null()) {
        return sendError(c, inputError("from_seq must be a non-negative integer"), false,
                         "subscribe");
    }
    c.subscribed = true;
    c.cursor = start;
    m_backend.clientSubscribed();
    sendControl(c, proto::encodeJson(MsgType::Subscribed, {{"from_seq", start},
                                                           {"requested_seq", requested},
                                                           {"truncated", truncated},
                                                           {"oldest_seq", oldest},
                                                           {"next_seq", m_nextSeq}}));
}

void ControlServer::onAnswer(Client& c, const json& body)
{
    json id = body.value("id", json());
    if (!id.is_number_unsigned())
        return sendError(c, inputError("approval_answer needs the request's id"), false,
                         "approval_answer");
    auto answer = proto::approvalAnswerFromJson(body);
    if (!answer) return sendError(c, answer.error(), false, "approval_answer");
    if (answer->answeredBy.empty()) answer->answeredBy = c.name;
    if (auto e = m_backend.answerApproval(id.get<std::uint64_t>(), *answer)) {
        json err = proto::errorBody(*e, false, "approval_answer");
        err["id"] = id;
        return sendControl(c, proto::encodeJson(MsgType::Error, err));
    }
    sendControl(c, proto::encodeJson(MsgType::Ack, {{"ref", "approval_answer"}, {"id", id}}));
}

void ControlServer::onPolicyUpdate(Client& c, const json& body)
{
    const char* ref = proto::typeName(MsgType::PolicyUpdate);
    auto update = proto::policyUpdateFromJson(body);
    if (!update) return sendError(c, update.error(), false, ref);
    auto result = m_backend.updatePolicy(*update, c.name);
    if (!result) {
        m_options.log("policy update from " + c.name + " refused: " + result.error().describe());
        return sendError(c, result.error(), false, ref);
    }
    sendControl(c, proto::encodeJson(MsgType::Ack, proto::toJson(*result)));
}

} // namespace sb
