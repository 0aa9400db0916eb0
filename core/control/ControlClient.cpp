#include "control/ControlClient.h"

#include "base/UniqueFd.h"

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace sb {

using proto::Message;
using proto::MsgType;

namespace {

long long nowMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int remaining(long long deadline)
{
    if (deadline < 0) return -1;
    long long left = deadline - nowMs();
    return left > 0 ? static_cast<int>(left) : 0;
}

Error timedOut(const std::string& what)
{
    return sysError("timed out waiting for " + what, ETIMEDOUT);
}

} // namespace

Result<std::unique_ptr<ControlClient>> ControlClient::connect(const std::string& sessionId,
                                                              const std::string& clientName,
                                                              proto::Role role, int timeoutMs)
{
    return connectPath(proto::socketPath(sessionId), clientName, role, timeoutMs);
}

Result<std::unique_ptr<ControlClient>> ControlClient::connectPath(const fs::path& socket,
                                                                  const std::string& clientName,
                                                                  proto::Role role, int timeoutMs,
                                                                  std::uint32_t version)
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket.native().size() >= sizeof addr.sun_path)
        return inputError("socket path " + socket.string() + " is too long for a unix socket");
    std::memcpy(addr.sun_path, socket.c_str(), socket.native().size() + 1);
    UniqueFd owned(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!owned) return sysError("socket");
    // A unix stream connect completes at once (or fails): no need for a non-blocking connect.
    if (::connect(owned.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
        return sysError("connect to " + socket.string());
    const int fd = owned.get();
    std::unique_ptr<ControlClient> client(new ControlClient(owned.release()));
    if (::fcntl(fd, F_SETFL, O_NONBLOCK) != 0)
        return sysError("make the control socket non-blocking");
    if (auto e = client->handshake(clientName, role, version, timeoutMs)) {
        // A supervisor from before version 2 refuses the newer hello: speak its version.
        if (version > proto::kOldestVersion &&
            e->message.find("is not supported") != std::string::npos)
            return connectPath(socket, clientName, role, timeoutMs, proto::kOldestVersion);
        return *e;
    }
    return client;
}

Result<std::unique_ptr<ControlClient>> ControlClient::connectStream(UniqueFd stream,
                                                                    const std::string& clientName,
                                                                    proto::Role role, int timeoutMs)
{
    const int fd = stream.get();
    std::unique_ptr<ControlClient> client(new ControlClient(stream.release()));
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
        return sysError("make the control stream non-blocking");
    if (auto e = client->handshake(clientName, role, proto::kVersion, timeoutMs)) return *e;
    return client;
}

bool ControlClient::hasFeature(const char* name, std::uint32_t since) const
{
    const json features = m_welcome.value("features", json::array());
    return m_version >= since && features.is_array() &&
           std::find(features.begin(), features.end(), name) != features.end();
}

bool ControlClient::servesPorts() const
{
    return hasFeature("ports", 3);
}

bool ControlClient::servesPrograms() const
{
    return hasFeature("exec", 2);
}

Result<json> ControlClient::requestWithReply(MsgType type, MsgType replyType, json body,
                                             int timeoutMs)
{
    const std::uint64_t id = m_nextRequestId++;
    body["id"] = id;
    json reply;
    if (auto e = request(proto::jsonMessage(type, std::move(body)), proto::typeName(type), id,
                         timeoutMs, &reply, replyType))
        return *e;
    return reply;
}

Result<json> ControlClient::ports(json body, int timeoutMs)
{
    if (!servesPorts())
        return unsupported("this session's supervisor forwards no ports (it predates port "
                           "previews, or its sandbox cannot make sockets)");
    return requestWithReply(MsgType::PortRequest, MsgType::PortReply, std::move(body), timeoutMs);
}

Result<json> ControlClient::snapshot(const std::string& name, int timeoutMs)
{
    if (m_version < 3)
        return unsupported("this session's supervisor predates snapshots of running sessions: "
                           "stop it to take its snapshot");
    auto reply = requestWithReply(MsgType::SnapshotRequest, MsgType::SnapshotReply,
                                  {{"name", name}}, timeoutMs);
    if (!reply) return reply.error();
    return reply->value("snapshot", json::object());
}

Status ControlClient::pause(bool paused, int timeoutMs)
{
    if (m_version < 5)
        return unsupported("this session's supervisor predates pausing a running session");
    auto reply = requestWithReply(MsgType::PauseRequest, MsgType::PauseReply, {{"paused", paused}},
                                  timeoutMs);
    if (!reply) return reply.error();
    return {};
}

std::unique_ptr<ControlClient> ControlClient::adopt(int fd, std::uint32_t version)
{
    std::unique_ptr<ControlClient> client(new ControlClient(fd));
    client->m_version = version;
    return client;
}

ControlClient::~ControlClient()
{
    ::close(m_fd);
}

Status ControlClient::handshake(const std::string& clientName, proto::Role role,
                                std::uint32_t version, int timeoutMs)
{
    json hello = {{"version", version}, {"client", clientName}, {"role", proto::roleName(role)}};
    if (auto e = sendFrame(proto::encodeJson(MsgType::Hello, hello), timeoutMs)) {
        // A supervisor that refuses this peer says why and hangs up before reading the hello.
        auto refusal = receive(timeoutMs);
        if (refusal && refusal->type == MsgType::Error) return proto::errorFromBody(refusal->body);
        return e;
    }
    auto reply = receive(timeoutMs);
    if (!reply) return reply.error();
    if (reply->type == MsgType::Error) return proto::errorFromBody(reply->body);
    if (reply->type != MsgType::Welcome)
        return inputError(std::string("the supervisor answered hello with ") +
                          proto::typeName(reply->type));
    m_welcome = reply->body;
    m_version = m_welcome.value("version", 1u);
    auto session = proto::sessionSummaryFromJson(m_welcome.value("session", json::object()));
    if (!session) return session.error();
    m_session = *session;
    for (const json& r : m_welcome.value("pending", json::array())) {
        auto request = proto::approvalRequestFromJson(r);
        if (!request) return request.error();
        m_pending.push_back(*request);
    }
    return {};
}

Status ControlClient::send(const Message& message, int timeoutMs)
{
    return sendFrame(proto::encode(message), timeoutMs);
}

Status ControlClient::sendFrame(std::string_view frame, int timeoutMs)
{
    long long deadline = timeoutMs < 0 ? -1 : nowMs() + timeoutMs;
    while (!frame.empty()) {
        ssize_t n = ::send(m_fd, frame.data(), frame.size(), MSG_NOSIGNAL);
        if (n > 0) {
            frame.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{m_fd, POLLOUT, 0};
            int rc = ::poll(&p, 1, remaining(deadline));
            if (rc == 0) return timedOut("the supervisor to read");
            continue;
        }
        return sysError("send to the supervisor"); // reading finds out how it ended
    }
    return {};
}

Status ControlClient::subscribe(std::optional<std::uint64_t> fromSeq)
{
    json body = json::object();
    if (fromSeq) body["from_seq"] = *fromSeq;
    return sendFrame(proto::encodeJson(MsgType::Subscribe, body));
}

Status ControlClient::sendInput(std::string_view keys)
{
    std::string frame = proto::encodeBytes(MsgType::Input, m_inputSeq, keys);
    m_inputSeq += keys.size();
    return sendFrame(frame);
}

Status ControlClient::resize(unsigned rows, unsigned cols)
{
    return sendFrame(proto::encodeJson(MsgType::Resize, {{"rows", rows}, {"cols", cols}}));
}

Status ControlClient::answer(std::uint64_t id, const ApprovalAnswer& answer, int timeoutMs)
{
    Message m;
    m.type = MsgType::ApprovalAnswer;
    m.body = proto::toJson(answer);
    m.body["id"] = id;
    return request(m, "approval_answer", id, timeoutMs);
}

Status ControlClient::stop(bool kill, int timeoutMs)
{
    Message m;
    m.type = kill ? MsgType::Kill : MsgType::Stop;
    return request(m, proto::typeName(m.type), std::nullopt, timeoutMs);
}

Result<proto::PolicyUpdateResult>
ControlClient::updatePolicy(const nlohmann::json& document, const std::string& file, int timeoutMs)
{
    // An older supervisor would take the unknown message for a protocol violation.
    if (m_session.effectivePolicy.is_null())
        return unsupported("this session's supervisor predates policy updates; start a new "
                           "session for the policy to apply");
    Message m;
    m.type = MsgType::PolicyUpdate;
    m.body = proto::toJson(proto::PolicyUpdate{document, file});
    json ack;
    if (auto e = request(m, proto::typeName(m.type), std::nullopt, timeoutMs, &ack)) return *e;
    return proto::policyUpdateResultFromJson(ack);
}

Status ControlClient::request(const Message& message, std::string_view ref,
                              std::optional<std::uint64_t> id, int timeoutMs, json* ack,
                              MsgType replyType)
{
    long long deadline = nowMs() + timeoutMs;
    if (auto e = send(message, timeoutMs)) return e;
    std::deque<Message> aside;
    auto restore = [&] {
        for (auto it = aside.rbegin(); it != aside.rend(); ++it)
            m_backlog.push_front(std::move(*it));
    };
    for (;;) {
        auto reply = receive(remaining(deadline));
        if (!reply) {
            restore();
            return reply.error();
        }
        const json& body = reply->body;
        const bool idMatches = !id || body.value("id", json()) == json(*id);
        const bool ours = body.value("ref", std::string()) == ref && idMatches;
        if (reply->type == MsgType::Error && (ours || body.value("fatal", false))) {
            restore();
            return proto::errorFromBody(body);
        }
        if (reply->type == replyType && (replyType == MsgType::Ack ? ours : idMatches)) {
            restore();
            if (ack) *ack = body;
            return {};
        }
        aside.push_back(std::move(*reply));
    }
}

Status ControlClient::readAvailable()
{
    for (;;) {
        std::span<char> room = m_decoder.writable(256 * 1024);
        ssize_t n = ::read(m_fd, room.data(), room.size());
        if (n > 0) {
            m_decoder.commit(static_cast<std::size_t>(n));
            if (static_cast<std::size_t>(n) < room.size()) return {};
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {};
        m_closed = true;
        if (n < 0) return sysError("read from the supervisor");
        return Error{ErrorCode::NotFound, 0, "the supervisor closed the connection"};
    }
}

Result<bool> ControlClient::next(Message& out)
{
    if (!m_backlog.empty()) {
        out = std::move(m_backlog.front());
        m_backlog.pop_front();
        return true;
    }
    return m_decoder.next(out);
}

Result<Message> ControlClient::receive(int timeoutMs)
{
    long long deadline = timeoutMs < 0 ? -1 : nowMs() + timeoutMs;
    for (;;) {
        Message m;
        auto got = next(m);
        if (!got) return got.error();
        if (*got) return m;
        if (m_closed) return Error{ErrorCode::NotFound, 0, "the supervisor closed the connection"};
        pollfd p{m_fd, POLLIN, 0};
        int rc = ::poll(&p, 1, remaining(deadline));
        if (rc < 0 && errno != EINTR) return sysError("poll the control socket");
        if (rc == 0) return timedOut("the supervisor");
        if (auto e = readAvailable()) {
            // Messages that arrived before the close still count (the exit, a final error).
            auto last = next(m);
            if (last && *last) return m;
            return *e;
        }
    }
}

} // namespace sb
