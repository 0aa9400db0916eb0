#include "control/Protocol.h"

#include "base/Bytes.h"
#include "base/Paths.h"

#include <cstring>

namespace sb::proto {
namespace {

using nlohmann::json;

void putLe(char* out, std::uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t getLe(const char* in, int bytes)
{
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
        value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
    return value;
}

std::string frameWith(MsgType type, std::size_t payloadSize)
{
    std::string out;
    out.reserve(kHeaderBytes + payloadSize);
    out.resize(kHeaderBytes);
    putLe(out.data(), payloadSize + 1, 4);
    out[4] = static_cast<char>(type);
    return out;
}

struct Name {
    int value;
    const char* name;
};

constexpr Name kScopes[] = {
    {static_cast<int>(ApprovalScope::ExactCommand), "exact"},
    {static_cast<int>(ApprovalScope::Subcommand), "subcommand"},
    {static_cast<int>(ApprovalScope::AnyArguments), "program"},
    {static_cast<int>(ApprovalScope::HostPort), "hostport"},
    {static_cast<int>(ApprovalScope::Host), "host"},
    {static_cast<int>(ApprovalScope::Domain), "domain"},
};
constexpr Name kDurations[] = {{static_cast<int>(ApprovalDuration::Once), "once"},
                               {static_cast<int>(ApprovalDuration::Session), "session"},
                               {static_cast<int>(ApprovalDuration::Always), "always"}};
constexpr Name kKinds[] = {{static_cast<int>(ApprovalKind::Command), "command"},
                           {static_cast<int>(ApprovalKind::Network), "network"}};
constexpr Name kErrorCodes[] = {
    {static_cast<int>(ErrorCode::System), "system"},
    {static_cast<int>(ErrorCode::InvalidInput), "invalid_input"},
    {static_cast<int>(ErrorCode::Unsupported), "unsupported"},
    {static_cast<int>(ErrorCode::Conflict), "conflict"},
    {static_cast<int>(ErrorCode::NotFound), "not_found"},
    {static_cast<int>(ErrorCode::Internal), "internal"},
};

template <std::size_t N> const char* nameOf(const Name (&table)[N], int value)
{
    for (const Name& n : table)
        if (n.value == value) return n.name;
    return "?";
}

template <std::size_t N> std::optional<int> valueOf(const Name (&table)[N], std::string_view name)
{
    for (const Name& n : table)
        if (name == n.name) return n.value;
    return std::nullopt;
}

} // namespace

const char* typeName(MsgType type)
{
    static const char* const names[] = {"?",
                                        "hello",
                                        "welcome",
                                        "subscribe",
                                        "subscribed",
                                        "output",
                                        "input",
                                        "resize",
                                        "event",
                                        "approval_request",
                                        "approval_answer",
                                        "approval_outcome",
                                        "stop",
                                        "kill",
                                        "exit",
                                        "error",
                                        "lagged",
                                        "ack",
                                        "policy_update",
                                        "exec_start",
                                        "exec_started",
                                        "exec_output",
                                        "exec_input",
                                        "exec_control",
                                        "exec_event",
                                        "exec_exit",
                                        "file_request",
                                        "file_reply",
                                        "port_request",
                                        "port_reply",
                                        "snapshot_request",
                                        "snapshot_reply",
                                        "file_data",
                                        "pause_request",
                                        "pause_reply",
                                        "execution_record",
                                        "execution_recorded"};
    auto index = static_cast<std::size_t>(type);
    return index < std::size(names) ? names[index] : "?";
}

bool isKnownType(std::uint8_t type)
{
    return type >= 1 && type <= kLastType;
}

bool carriesBytes(MsgType type)
{
    return type == MsgType::Output || type == MsgType::Input || type == MsgType::ExecOutput ||
           type == MsgType::ExecInput || type == MsgType::FileData;
}

std::uint32_t versionOf(MsgType type)
{
    const auto t = static_cast<std::uint8_t>(type);
    return t >= static_cast<std::uint8_t>(MsgType::ExecutionRecord) ? 6
           : t >= static_cast<std::uint8_t>(MsgType::PauseRequest)  ? 5
           : t >= static_cast<std::uint8_t>(MsgType::FileData)      ? 4
           : t >= static_cast<std::uint8_t>(MsgType::PortRequest)   ? 3
           : t >= static_cast<std::uint8_t>(MsgType::ExecStart)     ? 2
                                                                    : 1;
}

const char* roleName(Role role)
{
    return role == Role::Interactive ? "interactive" : "viewer";
}

std::optional<Role> parseRole(std::string_view name)
{
    if (name == "viewer") return Role::Viewer;
    if (name == "interactive") return Role::Interactive;
    return std::nullopt;
}

std::string encodeJson(MsgType type, const json& body)
{
    // `{}` in C++ builds a JSON null; every body on the wire is an object. Names the agent
    // chose (file names, argv) may be any bytes: what is not UTF-8 becomes U+FFFD, as in the
    // recording, rather than an exception that would end the supervisor.
    std::string payload =
        body.is_null() ? "{}" : body.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string out = frameWith(type, payload.size());
    out += payload;
    return out;
}

std::array<char, kBytesHeaderBytes> bytesHeader(MsgType type, std::uint64_t seq, std::size_t size)
{
    std::array<char, kBytesHeaderBytes> h{};
    putLe(h.data(), size + 9, 4);
    h[4] = static_cast<char>(type);
    putLe(h.data() + 5, seq, 8);
    return h;
}

std::string encodeBytes(MsgType type, std::uint64_t seq, std::string_view bytes)
{
    auto header = bytesHeader(type, seq, bytes.size());
    std::string out(header.data(), header.size());
    out.append(bytes);
    return out;
}

std::string encode(const Message& message)
{
    return carriesBytes(message.type) ? encodeBytes(message.type, message.seq, message.bytes)
                                      : encodeJson(message.type, message.body);
}

const char* errorCodeName(ErrorCode code)
{
    return nameOf(kErrorCodes, static_cast<int>(code));
}

ErrorCode parseErrorCode(std::string_view name)
{
    auto v = valueOf(kErrorCodes, name);
    return v ? static_cast<ErrorCode>(*v) : ErrorCode::Internal;
}

json errorBody(const Error& error, bool fatal, std::string_view ref)
{
    json body = {
        {"message", error.describe()}, {"code", errorCodeName(error.code)}, {"fatal", fatal}};
    if (!ref.empty()) body["ref"] = ref;
    return body;
}

Error errorFromBody(const json& body)
{
    Error e;
    e.code = parseErrorCode(body.value("code", std::string("internal")));
    e.message = body.value("message", std::string("unspecified error from the peer"));
    return e;
}

std::span<char> FrameDecoder::writable(std::size_t atLeast)
{
    // Slide unread bytes to the front once the consumed part dominates, so the buffer does not
    // grow without bound while staying cheap for a flood of frames.
    if (m_begin > 0 && (m_begin == m_end || m_begin >= m_buf.size() / 2)) {
        std::memmove(m_buf.data(), m_buf.data() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_buf.size() - m_end < atLeast) m_buf.resize(m_end + atLeast);
    return {m_buf.data() + m_end, m_buf.size() - m_end};
}

void FrameDecoder::feed(std::string_view bytes)
{
    std::span<char> room = writable(bytes.size());
    std::memcpy(room.data(), bytes.data(), bytes.size());
    commit(bytes.size());
}

Result<bool> FrameDecoder::next(Message& out)
{
    if (buffered() < kHeaderBytes) return false;
    const char* p = m_buf.data() + m_begin;
    std::uint64_t length = getLe(p, 4);
    auto rawType = static_cast<std::uint8_t>(p[4]);
    // Checked before the payload arrives, so a peer cannot make us buffer 4 GiB first.
    if (length == 0) return inputError("frame with length 0");
    if (length > m_maxFrame)
        return inputError("frame of " + std::to_string(length) + " bytes exceeds the limit of " +
                          std::to_string(m_maxFrame));
    if (!isKnownType(rawType)) return inputError("unknown message type " + std::to_string(rawType));
    if (buffered() < kLengthBytes + length) return false;
    auto type = static_cast<MsgType>(rawType);
    const char* payload = p + kHeaderBytes;
    std::size_t size = length - 1;
    m_begin += kLengthBytes + length;

    out.type = type;
    out.bytes.clear();
    out.seq = 0;
    if (carriesBytes(type)) {
        if (size < 8)
            return inputError(std::string(typeName(type)) + " frame without a sequence number");
        out.seq = getLe(payload, 8);
        out.bytes.assign(payload + 8, size - 8);
        out.body = json::object();
        return true;
    }
    if (size == 0) {
        out.body = json::object();
        return true;
    }
    out.body = json::parse(payload, payload + size, nullptr, /*allow_exceptions=*/false);
    if (!out.body.is_object())
        return inputError(std::string(typeName(type)) + " message whose body is not a JSON object");
    return true;
}

json toJson(const SessionSummary& s)
{
    json j = {{"id", s.id},
              {"command", s.command},
              {"workspace", s.workspace},
              {"started_unix_ms", s.startedUnixMs},
              {"policy", s.policy},
              {"rows", s.rows},
              {"cols", s.cols},
              {"policy_file", s.policyFile},
              {"policy_preset", s.policyPreset},
              {"learned_rules_file", s.learnedRulesFile},
              {"learned_rules", s.learnedRules}};
    if (!s.effectivePolicy.is_null()) j["effective_policy"] = s.effectivePolicy;
    if (!s.workspaceInside.empty()) j["workspace_inside"] = s.workspaceInside;
    if (!s.sessionRules.empty()) j["session_rules"] = s.sessionRules;
    return j;
}

Result<SessionSummary> sessionSummaryFromJson(const json& j)
{
    return guarded("session summary", [&]() -> Result<SessionSummary> {
        SessionSummary s;
        s.id = j.at("id").get<std::string>();
        s.command = j.value("command", std::vector<std::string>{});
        s.workspace = j.value("workspace", std::string());
        s.workspaceInside = j.value("workspace_inside", std::string());
        s.startedUnixMs = j.value("started_unix_ms", std::int64_t{0});
        s.policy = j.value("policy", json::object());
        s.rows = j.value("rows", 0u);
        s.cols = j.value("cols", 0u);
        s.policyFile = j.value("policy_file", std::string());
        s.policyPreset = j.value("policy_preset", std::string());
        s.learnedRulesFile = j.value("learned_rules_file", std::string());
        if (auto it = j.find("effective_policy"); it != j.end() && it->is_object())
            s.effectivePolicy = *it;
        s.learnedRules = j.value("learned_rules", json::object());
        s.sessionRules = j.value("session_rules", json::object());
        return s;
    });
}

json toJson(const PolicyUpdate& u)
{
    json j = {{"policy", u.policy}};
    if (!u.file.empty()) j["file"] = u.file;
    return j;
}

Result<PolicyUpdate> policyUpdateFromJson(const json& j)
{
    PolicyUpdate u;
    auto policy = j.find("policy");
    if (policy == j.end() || !policy->is_object())
        return inputError("policy_update needs \"policy\": a policy document as a JSON object");
    u.policy = *policy;
    if (auto file = j.find("file"); file != j.end() && !file->is_null()) {
        if (!file->is_string() || file->get<std::string>().empty() ||
            file->get<std::string>().front() != '/')
            return inputError("policy_update's \"file\" must be an absolute path (got " +
                              file->dump() + ")");
        u.file = file->get<std::string>();
    }
    return u;
}

json toJson(const PolicyUpdateResult& r)
{
    return {
        {"ref", typeName(MsgType::PolicyUpdate)}, {"applied", r.applied}, {"deferred", r.deferred}};
}

Result<PolicyUpdateResult> policyUpdateResultFromJson(const json& j)
{
    return guarded("policy update acknowledgement", [&]() -> Result<PolicyUpdateResult> {
        PolicyUpdateResult r;
        r.applied = j.value("applied", std::vector<std::string>{});
        r.deferred = j.value("deferred", std::vector<std::string>{});
        return r;
    });
}

const char* approvalKindName(ApprovalKind kind)
{
    return nameOf(kKinds, static_cast<int>(kind));
}
const char* approvalScopeName(ApprovalScope scope)
{
    return nameOf(kScopes, static_cast<int>(scope));
}
const char* approvalDurationName(ApprovalDuration duration)
{
    return nameOf(kDurations, static_cast<int>(duration));
}

std::optional<ApprovalKind> parseApprovalKind(std::string_view name)
{
    auto v = valueOf(kKinds, name);
    return v ? std::optional(static_cast<ApprovalKind>(*v)) : std::nullopt;
}
std::optional<ApprovalScope> parseApprovalScope(std::string_view name)
{
    auto v = valueOf(kScopes, name);
    return v ? std::optional(static_cast<ApprovalScope>(*v)) : std::nullopt;
}
std::optional<ApprovalDuration> parseApprovalDuration(std::string_view name)
{
    auto v = valueOf(kDurations, name);
    return v ? std::optional(static_cast<ApprovalDuration>(*v)) : std::nullopt;
}

bool scopeFitsKind(ApprovalScope scope, ApprovalKind kind)
{
    bool commandScope = scope == ApprovalScope::ExactCommand ||
                        scope == ApprovalScope::Subcommand || scope == ApprovalScope::AnyArguments;
    return commandScope == (kind == ApprovalKind::Command);
}

std::string describeRequest(const ApprovalRequest& r)
{
    if (r.kind == ApprovalKind::Network)
        return r.host + ":" + std::to_string(r.port) +
               (r.protocol.empty() ? "" : " (" + r.protocol + ")") +
               (r.process.empty() ? "" : " by " + describeChain(r.process));
    std::string line;
    for (const std::string& arg : r.argv)
        line += (line.empty() ? "" : " ") + arg;
    return line.empty() ? r.program : line;
}

json toJson(const ApprovalRequest& r)
{
    json j = {{"id", r.id},
              {"kind", approvalKindName(r.kind)},
              {"rule", r.rule},
              {"deadline_unix_ms", r.deadlineUnixMs}};
    if (r.kind == ApprovalKind::Command) {
        putBytes(j, "program", r.program);
        putArgv(j, r.argv);
        putBytes(j, "cwd", r.cwd);
        if (r.pid != 0) j["pid"] = r.pid;
        if (r.session != 0) j["session"] = r.session;
    } else {
        j["host"] = r.host;
        j["port"] = r.port;
        j["protocol"] = r.protocol;
        if (!r.process.empty()) j["process"] = toJson(r.process);
    }
    return j;
}

json toJson(const ApprovalAnswer& a)
{
    json j = {{"allow", a.allow},
              {"scope", approvalScopeName(a.scope)},
              {"duration", approvalDurationName(a.duration)},
              {"answered_by", a.answeredBy}};
    if (a.programOnly) j["program_only"] = true;
    if (a.samePort) j["same_port"] = true;
    return j;
}

json toJson(const ApprovalOutcome& o)
{
    json j = {{"id", o.id},
              {"allow", o.allow},
              {"timed_out", o.timedOut},
              {"cancelled", o.cancelled},
              {"latency_ms", o.latencyMs}};
    if (!o.timedOut && !o.cancelled) j["answer"] = toJson(o.answer);
    if (!o.persistError.empty()) j["persist_error"] = o.persistError;
    return j;
}

Result<ApprovalRequest> approvalRequestFromJson(const json& j)
{
    return guarded("approval request", [&]() -> Result<ApprovalRequest> {
        ApprovalRequest r;
        r.id = j.at("id").get<std::uint64_t>();
        auto kind = parseApprovalKind(j.at("kind").get<std::string>());
        if (!kind) return inputError("approval request of unknown kind " + j.at("kind").dump());
        r.kind = *kind;
        r.program = getBytes(j, "program").value_or("");
        r.argv = getBytesList(j, "argv").value_or(std::vector<std::string>{});
        r.cwd = getBytes(j, "cwd").value_or("");
        r.pid = j.value("pid", std::int64_t{0});
        r.session = j.value("session", std::int64_t{0});
        r.host = j.value("host", std::string());
        r.port = j.value("port", std::uint16_t{0});
        r.protocol = j.value("protocol", std::string());
        if (j.contains("process")) r.process = processChainFromJson(j.at("process"));
        r.rule = j.value("rule", std::string());
        r.deadlineUnixMs = j.value("deadline_unix_ms", std::int64_t{0});
        return r;
    });
}

Result<ApprovalAnswer> approvalAnswerFromJson(const json& j)
{
    return guarded("approval answer", [&]() -> Result<ApprovalAnswer> {
        ApprovalAnswer a;
        a.allow = j.at("allow").get<bool>();
        std::string scope = j.at("scope").get<std::string>();
        std::string duration = j.value("duration", std::string("once"));
        auto s = parseApprovalScope(scope);
        auto d = parseApprovalDuration(duration);
        if (!s)
            return inputError("unknown approval scope '" + scope +
                              "' (expected exact, subcommand, program, hostport, host or domain)");
        if (!d)
            return inputError("unknown approval duration '" + duration +
                              "' (expected once, session or always)");
        a.scope = *s;
        a.duration = *d;
        a.answeredBy = j.value("answered_by", std::string());
        a.programOnly = j.value("program_only", false);
        a.samePort = j.value("same_port", false);
        return a;
    });
}

Result<ApprovalOutcome> approvalOutcomeFromJson(const json& j)
{
    return guarded("approval outcome", [&]() -> Result<ApprovalOutcome> {
        ApprovalOutcome o;
        o.id = j.at("id").get<std::uint64_t>();
        o.allow = j.at("allow").get<bool>();
        o.timedOut = j.value("timed_out", false);
        o.cancelled = j.value("cancelled", false);
        o.persistError = j.value("persist_error", std::string());
        o.latencyMs = j.value("latency_ms", std::int64_t{0});
        if (j.contains("answer")) {
            auto answer = approvalAnswerFromJson(j.at("answer"));
            if (!answer) return answer.error();
            o.answer = *answer;
        }
        return o;
    });
}

std::filesystem::path socketPath(const std::string& sessionId)
{
    return runtimeDirectory() / (sessionId + ".sock");
}

bool peerAllowed(uid_t peerUid, uid_t ownerUid)
{
    return peerUid == ownerUid || peerUid == 0;
}

} // namespace sb::proto
