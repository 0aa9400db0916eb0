#include "mcp/McpServer.h"

#include "base/Bytes.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <poll.h>
#include <unistd.h>

namespace sb::mcp {

using json = nlohmann::json;
using proto::MsgType;

namespace {

// Revisions the official TypeScript SDK negotiates, newest first.
constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                             "2024-11-05"};

// The one revision with JSON-RPC batches: 2025-03-26 added them, 2025-06-18 removed them again.
constexpr const char* kBatchProtocol = "2025-03-26";

// JSON-RPC error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

long long nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

bool validId(const json& id)
{
    return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

} // namespace

void Call::onRefused(std::uint64_t, const std::string& message)
{
    server->finish(*this, {{"content", json::array({{{"type", "text"}, {"text", message}}})},
                           {"isError", true}});
}

Server::Server(ControlClient& client, SessionInfo session, ServerOptions options)
    : m_client(client), m_session(std::move(session)), m_options(std::move(options)),
      m_origin(m_options.origin)
{
}

Server::~Server() = default;

void Server::send(const json& message)
{
    std::string line = dumpJson(message) + "\n";
    if (m_sink) {
        m_sink(line);
        return;
    }
    for (std::string_view rest = line; !rest.empty();) {
        ssize_t n = ::write(m_out, rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; // the client is gone; stdin's end tells us soon
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
}

void Server::answer(json response)
{
    if (m_reading) return m_reading->responses.push_back(std::move(response));
    send(response);
}

void Server::respond(const json& id, json result)
{
    answer({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Server::respondError(const json& id, int code, const std::string& message)
{
    answer({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void Server::onLine(std::string_view line)
{
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
        line.remove_suffix(1);
    if (line.empty()) return;
    json message = json::parse(line, nullptr, false);
    if (message.is_discarded()) return respondError(nullptr, kParseError, "not JSON");
    if (message.is_array()) return onBatch(message);
    onMessage(message);
}

void Server::onBatch(const json& batch)
{
    if (m_protocol != kBatchProtocol)
        return respondError(nullptr, kInvalidRequest,
                            std::string("JSON-RPC batches are part of MCP protocol revision ") +
                                kBatchProtocol + " only, and " +
                                (m_protocol.empty()
                                     ? "no revision was agreed yet (initialize comes alone, first)"
                                     : "this connection agreed on " + m_protocol) +
                                ": send each request as a line of its own");
    if (batch.empty()) return respondError(nullptr, kInvalidRequest, "an empty batch");
    // Its requests run as any others do, concurrently; their answers are collected and go out
    // as one array once the last one has its answer (none at all for notifications only).
    auto collected = std::make_shared<Batch>();
    m_reading = collected;
    for (const json& message : batch)
        onMessage(message);
    m_reading = nullptr;
    collected->reading = false;
    if (collected->running == 0) flush(*collected);
}

void Server::settle(Call& call)
{
    if (!call.batch) return;
    std::shared_ptr<Batch> batch = std::move(call.batch);
    if (--batch->running == 0 && !batch->reading) flush(*batch);
}

void Server::flush(Batch& batch)
{
    if (!batch.responses.empty()) send(batch.responses);
    batch.responses = json::array();
}

void Server::onMessage(const json& message)
{
    if (!message.is_object() || !message.contains("jsonrpc") || message["jsonrpc"] != "2.0")
        return respondError(nullptr, kInvalidRequest, "not a JSON-RPC 2.0 message");
    // A field of an unexpected type deep in a request is the client's error, not a crash.
    if (auto e = guarded("request", [&]() -> Status {
            onRequest(message);
            return {};
        })) {
        const json id = message.contains("id") && validId(message["id"]) ? message["id"] : json();
        respondError(id, kInvalidParams, e->message);
    }
}

void Server::onRequest(const json& message)
{
    const bool isRequest = message.contains("id");
    const json id = isRequest ? message["id"] : json();
    if (!message.contains("method")) return; // a response to a request of ours: none are sent
    if (!message["method"].is_string() || (isRequest && !validId(id)))
        return respondError(isRequest && validId(id) ? id : json(), kInvalidRequest,
                            "a request needs a method and an id (a string or a number)");
    const std::string method = message["method"].get<std::string>();
    const json params = message.value("params", json::object());
    if (!isRequest) { // notifications
        if (method == "notifications/cancelled" && params.is_object() &&
            params.contains("requestId")) {
            auto it = m_calls.find(params["requestId"].dump());
            if (it != m_calls.end() && !it->second->done) {
                it->second->done = true; // no answer goes out for a cancelled call
                it->second->cancel();
                settle(*it->second);
            }
        }
        return;
    }
    if (method == "initialize") {
        if (m_reading)
            return respondError(id, kInvalidRequest,
                                "initialize must come alone, never in a JSON-RPC batch");
        std::string asked = params.is_object() ? params.value("protocolVersion", "") : "";
        std::string version = kProtocolVersions[0];
        for (const char* v : kProtocolVersions)
            if (asked == v) version = v;
        if (params.is_object() && params.contains("clientInfo") && params["clientInfo"].is_object())
            m_origin = "mcp:" + params["clientInfo"].value("name", std::string("client"));
        m_protocol = version;
        respond(id, {{"protocolVersion", version},
                     {"capabilities", {{"tools", {{"listChanged", false}}}}},
                     {"serverInfo", {{"name", "sandbench"}, {"version", m_options.version}}},
                     {"instructions",
                      "Tools of Sandbench session " + m_session.id +
                          ": commands run and files change inside a local sandbox over the "
                          "project " +
                          m_session.project.string() +
                          ", supervised by a person who may have to approve some commands. "
                          "Changes stay in the session until that person reviews and applies "
                          "them; no tool applies them. Paths are absolute or relative to the "
                          "project."}});
        return;
    }
    if (method == "ping") return respond(id, json::object());
    if (method == "tools/list") return respond(id, {{"tools", toolList()}});
    if (method == "tools/call") {
        if (!params.is_object() || !params.contains("name") || !params["name"].is_string())
            return respondError(id, kInvalidParams, "tools/call needs the tool's \"name\"");
        return callTool(id, params);
    }
    respondError(id, kMethodNotFound, "no method '" + method + "'");
}

void Server::callTool(const json& id, const json& params)
{
    const std::string key = id.dump();
    if (m_calls.count(key)) return respondError(id, kInvalidRequest, "id " + key + " is in use");
    const json arguments = params.value("arguments", json::object());
    if (!arguments.is_object())
        return respondError(id, kInvalidParams, "\"arguments\" must be an object");
    std::string error;
    auto call = makeCall(*this, params["name"].get<std::string>(), arguments, error);
    if (!call) return respondError(id, kInvalidParams, error);
    call->server = this;
    call->id = id;
    if (params.contains("_meta") && params["_meta"].is_object() &&
        params["_meta"].contains("progressToken"))
        call->progressToken = params["_meta"]["progressToken"];
    if (m_reading) {
        call->batch = m_reading;
        ++m_reading->running;
    }
    Call& raw = *call;
    m_calls[key] = std::move(call);
    // A tool that trips over its arguments fails as a tool; it never leaves a call unanswered.
    if (auto e = guarded(params["name"].get<std::string>(), [&]() -> Status {
            raw.start();
            return {};
        }))
        finish(raw, {{"content", json::array({{{"type", "text"}, {"text", e->message}}})},
                     {"isError", true}});
    reap();
}

void Server::finish(Call& call, json result)
{
    if (call.done) return; // cancelled meanwhile: the client expects no answer
    call.done = true;
    json response = {{"jsonrpc", "2.0"}, {"id", call.id}, {"result", std::move(result)}};
    if (!call.batch) return send(response);
    call.batch->responses.push_back(std::move(response));
    settle(call);
}

void Server::progress(Call& call, const std::string& message)
{
    if (!call.progressToken || call.done) return;
    static std::uint64_t step = 0;
    send({{"jsonrpc", "2.0"},
          {"method", "notifications/progress"},
          {"params",
           {{"progressToken", *call.progressToken}, {"progress", ++step}, {"message", message}}}});
}

void Server::reap()
{
    for (auto it = m_calls.begin(); it != m_calls.end();) {
        if (!it->second->done) {
            ++it;
            continue;
        }
        for (auto o = m_owners.begin(); o != m_owners.end();)
            o = o->second == it->second.get() ? m_owners.erase(o) : std::next(o);
        it = m_calls.erase(it);
    }
}

std::uint64_t Server::startExec(Call& call, json request)
{
    const std::uint64_t id = m_nextId++;
    request["id"] = id;
    request["origin"] = m_origin;
    m_owners[id] = &call;
    if (auto e = m_client.send(proto::jsonMessage(MsgType::ExecStart, request)))
        call.onRefused(id, e->describe());
    return id;
}

std::uint64_t Server::fileRequest(Call& call, json request)
{
    const std::uint64_t id = m_nextId++;
    request["id"] = id;
    request["origin"] = m_origin;
    m_owners[id] = &call;
    if (auto e = m_client.send(proto::jsonMessage(MsgType::FileRequest, request)))
        call.onRefused(id, e->describe());
    return id;
}

void Server::signalExec(std::uint64_t exec, int signal)
{
    (void)m_client.send(
        proto::jsonMessage(MsgType::ExecControl, {{"id", exec}, {"signal", signal}}));
}

void Server::writeInput(std::uint64_t exec, std::string_view bytes, bool close)
{
    if (!bytes.empty()) {
        proto::Message in;
        in.type = MsgType::ExecInput;
        in.seq = exec;
        in.bytes = std::string(bytes);
        (void)m_client.send(in);
    }
    if (close)
        (void)m_client.send(
            proto::jsonMessage(MsgType::ExecControl, {{"id", exec}, {"close_stdin", true}}));
}

Process& Server::addProcess(std::uint64_t exec, std::string command)
{
    auto p = std::make_unique<Process>();
    p->id = "p" + std::to_string(m_nextProcess++);
    p->exec = exec;
    p->command = std::move(command);
    Process& raw = *p;
    m_processExecs[exec] = &raw;
    m_processes[raw.id] = std::move(p);
    return raw;
}

Process* Server::process(const std::string& id)
{
    auto it = m_processes.find(id);
    return it == m_processes.end() ? nullptr : it->second.get();
}

void Server::onProcessMessage(Process& p, const proto::Message& m)
{
    auto keep = [](std::string& buf, std::size_t& dropped, std::string_view bytes) {
        buf.append(bytes);
        if (buf.size() > kMaxProcessBuffer) {
            dropped += buf.size() - kMaxProcessBuffer;
            buf.erase(0, buf.size() - kMaxProcessBuffer);
        }
    };
    if (m.type == MsgType::ExecStarted) p.pid = m.body.value("pid", std::int64_t{0});
    if (m.type == MsgType::ExecOutput) {
        if ((m.seq & 0xff) == proto::kExecStderr)
            keep(p.err, p.droppedErr, m.bytes);
        else
            keep(p.out, p.droppedOut, m.bytes);
    }
    if (m.type == MsgType::ExecExit) {
        p.running = false;
        p.exit = m.body;
    }
    // Calls waiting for this process's output hear about it through their wake().
    for (auto& [key, call] : m_calls)
        if (!call->done) call->wake();
}

Status Server::onSessionMessage(proto::Message& m)
{
    if (m.type == MsgType::Exit)
        return Error{ErrorCode::Conflict, 0,
                     "session " + m_session.id + " ended (status " +
                         std::to_string(m.body.value("status", -1)) + ")"};
    std::uint64_t id = 0;
    if (m.type == MsgType::ExecOutput)
        id = m.seq >> 8;
    else if (m.body.is_object())
        id = m.body.value("id", std::uint64_t{0});
    if (auto p = m_processExecs.find(id); p != m_processExecs.end()) {
        onProcessMessage(*p->second, m);
        if (m.type == MsgType::ExecExit) m_processExecs.erase(p);
        return {};
    }
    auto owner = m_owners.find(id);
    if (owner == m_owners.end()) return {};
    Call& call = *owner->second;
    switch (m.type) {
    case MsgType::ExecStarted:
        call.onExecStarted(id, m.body);
        break;
    case MsgType::ExecOutput:
        call.onExecOutput(id, m.seq & 0xff, m.bytes);
        break;
    case MsgType::ExecEvent:
        call.onExecEvent(id, m.body);
        break;
    case MsgType::ExecExit:
        call.onExecExit(id, m.body);
        break;
    case MsgType::FileReply:
        call.onFileReply(id, m.body);
        break;
    case MsgType::Error:
        call.onRefused(id, m.body.value("message", std::string("refused")));
        break;
    default:
        break;
    }
    reap();
    return {};
}

long long Server::nextWakeMs() const
{
    long long next = -1;
    for (const auto& [key, call] : m_calls)
        if (!call->done)
            if (long long at = call->wakeAtMs(); at >= 0) next = next < 0 ? at : std::min(next, at);
    return next;
}

Status Server::run(int in, int out)
{
    m_out = out;
    std::string buffer;
    bool inputOpen = true;
    while (inputOpen) {
        pollfd fds[2] = {{in, POLLIN, 0}, {m_client.fd(), POLLIN, 0}};
        long long wake = nextWakeMs();
        int timeout = wake < 0 ? -1 : static_cast<int>(std::max(0LL, wake - nowMs()));
        if (::poll(fds, 2, timeout) < 0 && errno != EINTR) return sysError("poll");
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            Status read = m_client.readAvailable();
            proto::Message m;
            for (auto got = m_client.next(m); got && *got; got = m_client.next(m))
                if (auto e = guarded(proto::typeName(m.type), [&] { return onSessionMessage(m); }))
                    return e;
            if (read) return read->within("the session's supervisor went away");
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char chunk[65536];
            ssize_t n = ::read(in, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                inputOpen = false;
            } else {
                buffer.append(chunk, static_cast<std::size_t>(n));
                for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
                    onLine(std::string_view(buffer).substr(0, nl));
                    buffer.erase(0, nl + 1);
                }
                if (buffer.size() > (std::size_t{64} << 20)) {
                    respondError(nullptr, kInvalidRequest, "a line of more than 64 MiB");
                    buffer.clear();
                }
            }
        }
        const long long now = nowMs();
        for (auto& [key, call] : m_calls)
            if (!call->done && call->wakeAtMs() >= 0 && call->wakeAtMs() <= now) call->wake();
        reap();
    }
    // The client is gone: what it started ends with it.
    for (auto& [key, call] : m_calls)
        if (!call->done) call->cancel();
    for (auto& [id, p] : m_processes)
        if (p->running) signalExec(p->exec, SIGKILL);
    return drain();
}

Status Server::drain()
{
    // Requests in flight are answered before this returns (and the caller, perhaps, stops the
    // session): a write the client sent just before it closed its end is done, or fails, as a
    // whole, rather than cut off by the stop. Bounded: a supervisor that stopped answering
    // does not keep this program alive.
    constexpr long long kDrainMs = 10000;
    const long long until = nowMs() + kDrainMs;
    for (reap(); !m_calls.empty() && nowMs() < until; reap()) {
        const long long wake = nextWakeMs();
        const long long next = wake < 0 ? until : std::min(wake, until);
        pollfd fd = {m_client.fd(), POLLIN, 0};
        if (::poll(&fd, 1, static_cast<int>(std::max(0LL, next - nowMs()))) < 0 && errno != EINTR)
            return sysError("poll");
        if (fd.revents & (POLLIN | POLLHUP | POLLERR)) {
            Status read = m_client.readAvailable();
            proto::Message m;
            for (auto got = m_client.next(m); got && *got; got = m_client.next(m))
                if (auto e = guarded(proto::typeName(m.type), [&] { return onSessionMessage(m); }))
                    return e;
            if (read) return {}; // the supervisor went away: nothing more will be answered
        }
        const long long now = nowMs();
        for (auto& [key, call] : m_calls)
            if (!call->done && call->wakeAtMs() >= 0 && call->wakeAtMs() <= now) call->wake();
    }
    return {};
}

} // namespace sb::mcp
