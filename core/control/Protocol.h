// The control protocol between a session's supervisor and its clients (GUI, attach, MCP):
// frames, message types, their JSON bodies, and where the socket lives. docs/protocol.md is the
// reference; this header is its implementation.
//
// A frame is [u32 length, little-endian][u8 type][payload], where length counts the type byte
// and the payload. Terminal output and input carry [u64 seq, little-endian][raw bytes]; every
// other message carries one JSON object.
#pragma once

#include "base/Error.h"
#include "policy/Approval.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace sb::proto {

// `stop`: SIGTERM to the session's processes, then SIGKILL this long after if they are still
// there (a client can say so to its user).
inline constexpr long long kStopGraceMs = 5000;

// The newest version this build speaks; a supervisor also serves version 1 clients (which know
// no exec or file messages), version 2 ones (no port messages) and version 3 ones (file contents
// in base64 only), version 4 ones (no pause) and version 5 ones (no execution records).
constexpr std::uint32_t kVersion = 6;
constexpr std::uint32_t kOldestVersion = 1;
constexpr std::size_t kLengthBytes = 4;
constexpr std::size_t kHeaderBytes = kLengthBytes + 1;
// A bytes frame's header: length, type, seq.
constexpr std::size_t kBytesHeaderBytes = kHeaderBytes + 8;
// The largest value of the length field either side accepts: a bigger frame is a protocol
// violation and closes the connection.
constexpr std::size_t kMaxFrameBytes = std::size_t{16} << 20;

enum class MsgType : std::uint8_t {
    Hello = 1,            // client → server, first message: version, client name, role
    Welcome = 2,          // server → client: session summary, output window, pending approvals
    Subscribe = 3,        // client → server: start terminal output and activity events
    Subscribed = 4,       // server → client: where the output stream starts
    Output = 5,           // server → client: seq + terminal bytes
    Input = 6,            // client → server (interactive): seq + keys
    Resize = 7,           // client → server (interactive): rows, cols
    Event = 8,            // server → client: activity event
    ApprovalRequest = 9,  // server → client
    ApprovalAnswer = 10,  // client → server
    ApprovalOutcome = 11, // server → client (all)
    Stop = 12,            // client → server: SIGTERM to the sandbox
    Kill = 13,            // client → server: SIGKILL to the sandbox
    Exit = 14,            // server → client: the session ended; the server closes next
    Error = 15,           // either way: {message, code, fatal, ref}
    Lagged = 16,          // server → client: output was lost; the stream resumes at resume_seq
    Ack = 17,             // server → client: the request named in ref was carried out
    PolicyUpdate = 18,    // client → server: a new policy document for the running session
    // Version 2: programs run processes in the session and use its files (docs/protocol.md).
    ExecStart = 19,   // client → server: {id, argv | shell, cwd, env, timeout_ms, tty, stdin…}
    ExecStarted = 20, // server → client: {id, pid}
    ExecOutput = 21,  // server → client, bytes: seq = id·256 + stream (1 stdout, 2 stderr/pty)
    ExecInput = 22,   // client → server, bytes: seq = id
    ExecControl = 23, // client → server: {id, signal? | close_stdin? | rows+cols?}
    ExecEvent = 24,   // server → client: {id, approval: request} while an approval holds it
    ExecExit = 25,    // server → client: {id, exit_code, signal, timed_out, denied?, error?}
    FileRequest = 26, // client → server: {id, op, path, …}
    FileReply = 27,   // server → client: {id, ok, …} or {id, ok: false, error: {code, message}}
    // Version 3: port previews and snapshots of a running session (docs/protocol.md).
    PortRequest = 28,     // client → server: {id, op: list | expose | close, port, host_port}
    PortReply = 29,       // server → client: {id, ok, listening, forwards | forward}
    SnapshotRequest = 30, // client → server: {id, name}
    SnapshotReply = 31,   // server → client: {id, ok, snapshot: {name, entries, bytes, …}}
    // Version 4: file contents as bytes, not base64 in JSON (docs/protocol.md, "Files").
    FileData = 32, // either way, bytes: seq = a file request's id; before its request or reply
    // Version 5: pausing a running session (the cgroup freezer) and resuming it.
    PauseRequest = 33, // client → server: {id, paused: true | false}
    PauseReply = 34,   // server → client: {id, ok, paused}
    // Version 6: a code interpreter's execution and its results, for the recording and clients.
    ExecutionRecord = 35,   // client → server: {id, execution: {code, results, …}}
    ExecutionRecorded = 36, // server → client: {id, ok}
};
constexpr std::uint8_t kLastType = static_cast<std::uint8_t>(MsgType::ExecutionRecorded);
// The exec stream numbers inside an ExecOutput's seq.
constexpr std::uint64_t kExecStdout = 1, kExecStderr = 2;
// The largest file content one FileRequest or FileReply carries (base64 in the JSON body, or
// a FileData frame before it): larger files are read with offset/limit, written as an upload of
// several parts ("more").
constexpr std::size_t kMaxFileChunk = std::size_t{8} << 20;

const char* typeName(MsgType type);
bool isKnownType(std::uint8_t type);
bool carriesBytes(MsgType type); // Output, Input, ExecOutput, ExecInput, FileData
// The version a message type came with.
std::uint32_t versionOf(MsgType type);

enum class Role { Viewer, Interactive };
const char* roleName(Role role);
std::optional<Role> parseRole(std::string_view name);

struct Message {
    MsgType type = MsgType::Error;
    nlohmann::json body = nlohmann::json::object(); // JSON messages
    std::uint64_t seq = 0;                          // Output, Input
    std::string bytes;                              // Output, Input
};

// A JSON message (the type and its body).
inline Message jsonMessage(MsgType type, nlohmann::json body = nlohmann::json::object())
{
    Message m;
    m.type = type;
    m.body = std::move(body);
    return m;
}

// Encoding never fails: bodies are objects the caller built. Sizes above kMaxFrameBytes are the
// caller's bug; the server splits terminal output into frames far below it.
std::string encodeJson(MsgType type, const nlohmann::json& body);
std::string encodeBytes(MsgType type, std::uint64_t seq, std::string_view bytes);
std::string encode(const Message& message);
// The 13-byte header of a bytes frame whose payload is `size` bytes, for writev() from a buffer
// the caller owns.
std::array<char, kBytesHeaderBytes> bytesHeader(MsgType type, std::uint64_t seq, std::size_t size);
// The error message body: {"message", "code", "fatal", "ref"}.
nlohmann::json errorBody(const Error& error, bool fatal, std::string_view ref = {});
// The protocol's name for an error code ("conflict", "not_found", …) and back.
const char* errorCodeName(ErrorCode code);
ErrorCode parseErrorCode(std::string_view name);
// An Error message's body as an sb::Error.
Error errorFromBody(const nlohmann::json& body);

// Reassembles frames from a byte stream. Any malformed frame is an error after which the
// connection must be dropped: framing cannot be resynchronised.
class FrameDecoder {
  public:
    explicit FrameDecoder(std::size_t maxFrameBytes = kMaxFrameBytes) : m_maxFrame(maxFrameBytes) {}
    // Room for at least `atLeast` more bytes; read() into it, then commit() what arrived.
    std::span<char> writable(std::size_t atLeast);
    void commit(std::size_t bytes) { m_end += bytes; }
    void feed(std::string_view bytes);
    // True with `out` filled when a whole message was buffered; false when more bytes are needed.
    Result<bool> next(Message& out);
    std::size_t buffered() const { return m_end - m_begin; }

  private:
    std::vector<char> m_buf;
    std::size_t m_begin = 0, m_end = 0;
    std::size_t m_maxFrame;
};

// What the supervisor tells a client about its session (the welcome's "session").
struct SessionSummary {
    std::string id;
    std::vector<std::string> command;
    std::string workspace;
    // Where the sandbox sees the workspace, when not at its own path (start --workspace-at).
    std::string workspaceInside;
    std::int64_t startedUnixMs = 0;
    nlohmann::json policy = nlohmann::json::object(); // e.g. {"network": "none", "commands": "ask"}
    unsigned rows = 0, cols = 0;                      // the pty's size; 0 without a pty
    // What an editor of the running policy needs. Empty/null from supervisors that predate
    // policy_update; a non-null effectivePolicy says the supervisor takes policy_update.
    std::string policyFile;       // the document the policy came from; empty for a preset
    std::string policyPreset;     // the preset's name; empty for a file
    std::string learnedRulesFile; // where "always" answers are saved; empty: nowhere
    // The policy in force as a whole document (sb::policyToJson), the user's rules only.
    nlohmann::json effectivePolicy;
    // The learned rules merged before them: {"commands": [rule…], "network": [rule…]}.
    nlohmann::json learnedRules = nlohmann::json::object();
    // The answers given for this session so far, as rules (sb::SessionAnswers), same shape;
    // a client adds the later ones from the approval outcomes it hears.
    nlohmann::json sessionRules = nlohmann::json::object();
};

nlohmann::json toJson(const SessionSummary& summary);
Result<SessionSummary> sessionSummaryFromJson(const nlohmann::json& body);

// policy_update: {"policy": {…a whole policy document…}, "file": "/abs/path.json"?}. Its ack
// names the sections of the document that changed: applied at once, or deferred (only a new
// session gets them: filesystem, network.mode, limits, env).
struct PolicyUpdate {
    nlohmann::json policy = nlohmann::json::object();
    std::string file; // empty: the session's documents stay where they were
};
struct PolicyUpdateResult {
    std::vector<std::string> applied;
    std::vector<std::string> deferred;
};
nlohmann::json toJson(const PolicyUpdate& update);
Result<PolicyUpdate> policyUpdateFromJson(const nlohmann::json& body);
nlohmann::json toJson(const PolicyUpdateResult& result); // the ack's body, "ref" included
Result<PolicyUpdateResult> policyUpdateResultFromJson(const nlohmann::json& ack);

// Approval vocabulary on the wire: kinds "command"/"network"; scopes "exact", "subcommand",
// "program", "hostport", "host", "domain"; durations "once", "session", "always".
const char* approvalKindName(ApprovalKind kind);
const char* approvalScopeName(ApprovalScope scope);
const char* approvalDurationName(ApprovalDuration duration);
std::optional<ApprovalKind> parseApprovalKind(std::string_view name);
std::optional<ApprovalScope> parseApprovalScope(std::string_view name);
std::optional<ApprovalDuration> parseApprovalDuration(std::string_view name);
// Command scopes fit command requests, network scopes network requests.
bool scopeFitsKind(ApprovalScope scope, ApprovalKind kind);
// One line for people: "git push origin" or "example.com:443 (connect)".
std::string describeRequest(const ApprovalRequest& request);

nlohmann::json toJson(const ApprovalRequest& request);
nlohmann::json toJson(const ApprovalAnswer& answer);
nlohmann::json toJson(const ApprovalOutcome& outcome);
Result<ApprovalRequest> approvalRequestFromJson(const nlohmann::json& body);
Result<ApprovalAnswer> approvalAnswerFromJson(const nlohmann::json& body);
Result<ApprovalOutcome> approvalOutcomeFromJson(const nlohmann::json& body);

// $XDG_RUNTIME_DIR/sandbench/<session>.sock
std::filesystem::path socketPath(const std::string& sessionId);

// Who may talk to a supervisor: its own user, and root (who could read the socket anyway by
// other means, and runs system tools such as a root-run GUI). Everyone else is refused even if
// the file modes were loosened by mistake.
bool peerAllowed(uid_t peerUid, uid_t ownerUid);

} // namespace sb::proto
