// A client of a session's control socket (attach, approve, the GUI, the MCP server). It can be
// used blocking (receive() with a timeout, request() for a command and its acknowledgement) or
// from a poll() loop: watch fd() for POLLIN, call readAvailable(), then take messages with
// next() until it returns false.
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"
#include "control/Protocol.h"

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sb {

class ControlClient {
  public:
    // Connects to the socket of `sessionId` (or a socket path) and completes the handshake.
    // A missing socket is a system error with ENOENT, a socket nobody listens on ECONNREFUSED;
    // a supervisor that refuses the hello gives its reason.
    static Result<std::unique_ptr<ControlClient>> connect(const std::string& sessionId,
                                                          const std::string& clientName,
                                                          proto::Role role, int timeoutMs = 5000);
    static Result<std::unique_ptr<ControlClient>>
    connectPath(const std::filesystem::path& socket, const std::string& clientName,
                proto::Role role, int timeoutMs = 5000, std::uint32_t version = proto::kVersion);
    // A client over `stream`, a connection to a supervisor made some other way (a channel of a
    // dial stream to another host, remote/RemoteHost.h), with the handshake done as above.
    static Result<std::unique_ptr<ControlClient>> connectStream(UniqueFd stream,
                                                                const std::string& clientName,
                                                                proto::Role role,
                                                                int timeoutMs = 5000);
    // A client over `fd`, a socket whose handshake is over or never happens (fuzz targets and
    // tests, with a fake supervisor at the other end). It owns `fd`.
    static std::unique_ptr<ControlClient> adopt(int fd, std::uint32_t version = proto::kVersion);
    ~ControlClient();
    ControlClient(const ControlClient&) = delete;
    ControlClient& operator=(const ControlClient&) = delete;

    int fd() const { return m_fd; }
    // The welcome's body, and its parts decoded.
    const nlohmann::json& welcome() const { return m_welcome; }
    const proto::SessionSummary& session() const { return m_session; }
    const std::vector<ApprovalRequest>& pendingAtWelcome() const { return m_pending; }
    // The protocol version the supervisor agreed to, and whether it runs processes and file
    // requests for programs (version 2, "features": exec and files).
    std::uint32_t version() const { return m_version; }
    bool servesPrograms() const;
    // Port previews (version 3, "features": ports).
    bool servesPorts() const;

    // Writing waits (up to `timeoutMs` in total) while the socket buffer is full.
    Status send(const proto::Message& message, int timeoutMs = 5000);
    Status sendFrame(std::string_view frame, int timeoutMs = 5000);
    // Terminal output from `fromSeq`, or from the oldest byte the supervisor still holds.
    Status subscribe(std::optional<std::uint64_t> fromSeq = std::nullopt);
    Status sendInput(std::string_view keys);
    Status resize(unsigned rows, unsigned cols);

    // Sends and waits for the supervisor's acknowledgement; its error message becomes the Error.
    // Messages that arrive meanwhile stay queued for next()/receive().
    Status answer(std::uint64_t id, const ApprovalAnswer& answer, int timeoutMs = 10000);
    Status stop(bool kill, int timeoutMs = 10000);
    // policy_update: `document` (a whole policy, as parsed JSON) becomes the session's policy,
    // `file` (absolute, or empty) where it is saved. Which sections took effect at once, or only
    // for new sessions; the supervisor's refusal (the old policy stays) as the Error.
    Result<proto::PolicyUpdateResult> updatePolicy(const nlohmann::json& document,
                                                   const std::string& file, int timeoutMs = 10000);

    // Reads what the socket holds without blocking. An error means the connection is over
    // (closed by the supervisor, or a frame this client cannot parse).
    Status readAvailable();
    // The next buffered message; false when none is complete yet.
    Result<bool> next(proto::Message& out);
    // Blocks up to `timeoutMs` (-1: without limit) for the next message. Timing out is a system
    // error with ETIMEDOUT.
    Result<proto::Message> receive(int timeoutMs = -1);
    bool closed() const { return m_closed; }

    // A port_request ({op: list | expose | close, port, host_port}; the id is added) and its
    // port_reply's body: "listening" and "forwards" for list, "forward" for expose.
    Result<nlohmann::json> ports(nlohmann::json body, int timeoutMs = 10000);
    // snapshot_request (version 3): the supervisor freezes the sandbox and copies its layer as
    // snapshot `name` (empty: snapshot-N); the reply's "snapshot".
    Result<nlohmann::json> snapshot(const std::string& name, int timeoutMs = 60000);
    // pause_request (version 5): the supervisor freezes (`paused`) or thaws the sandbox.
    Status pause(bool paused, int timeoutMs = 30000);

  private:
    explicit ControlClient(int fd) : m_fd(fd) {}
    Status handshake(const std::string& clientName, proto::Role role, std::uint32_t version,
                     int timeoutMs);
    // Whether the welcome's "features" has `name`, on a connection of version `since` or newer.
    bool hasFeature(const char* name, std::uint32_t since) const;
    // A request of `type` with the next request id added to `body`, and the body of its reply
    // of `replyType` (or the error naming the request).
    Result<nlohmann::json> requestWithReply(proto::MsgType type, proto::MsgType replyType,
                                            nlohmann::json body, int timeoutMs);
    // Sends and waits for the answer: an ack naming `ref` (and `id`), or a message of
    // `replyType` with that id; its body in `ack`.
    Status request(const proto::Message& message, std::string_view ref,
                   std::optional<std::uint64_t> id, int timeoutMs, nlohmann::json* ack = nullptr,
                   proto::MsgType replyType = proto::MsgType::Ack);

    int m_fd;
    bool m_closed = false;
    proto::FrameDecoder m_decoder;
    std::deque<proto::Message> m_backlog; // set aside while request() waited for its answer
    std::uint64_t m_inputSeq = 0;
    std::uint64_t m_nextRequestId = 1;
    std::uint32_t m_version = 1;
    nlohmann::json m_welcome;
    proto::SessionSummary m_session;
    std::vector<ApprovalRequest> m_pending;
};

} // namespace sb
