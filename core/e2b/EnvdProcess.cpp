// The in-sandbox API's routing, and its process service (E2B's process.Process over Connect):
// Start and Connect stream a process's events; List, SendSignal, SendInput, CloseStdin and
// Update act on a running one. Each process is an exec in the sandbox's session.
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"
#include "e2b/FileSignature.h"

#include <algorithm>
#include <csignal>

namespace sb::e2b {

using json = nlohmann::json;

namespace {

constexpr const char* kStreamType = "application/connect+json";
// The user E2B code names for a sandbox's own (its default), the only one served.
constexpr std::string_view kSandboxUser = "user";

std::string message(const json& body)
{
    return dumpJson({{"event", body}});
}

// What Go's os/exec says of a signal, as envd reports it ("signal: killed").
std::string signalText(const std::string& name)
{
    static const std::pair<const char*, const char*> names[] = {{"SIGKILL", "killed"},
                                                                {"SIGTERM", "terminated"},
                                                                {"SIGINT", "interrupt"},
                                                                {"SIGHUP", "hangup"},
                                                                {"SIGSEGV", "segmentation fault"},
                                                                {"SIGABRT", "aborted"},
                                                                {"SIGPIPE", "broken pipe"},
                                                                {"SIGQUIT", "quit"},
                                                                {"SIGBUS", "bus error"}};
    for (const auto& [sig, text] : names)
        if (name == sig) return std::string("signal: ") + text;
    return "signal: " + name;
}

// envd's end event for an exec_exit.
json endEvent(const json& exit)
{
    const json& code = exit.contains("exit_code") ? exit["exit_code"] : json();
    const json& signal = exit.contains("signal") ? exit["signal"] : json();
    if (exit.contains("denied")) {
        const int status = code.is_number_integer() && code.get<int>() != 0 ? code.get<int>() : 126;
        const std::string why = "denied by the session's policy: " +
                                exit.value("denied_command", std::string("a command")) + " (" +
                                exit["denied"].get<std::string>() + ")";
        return {{"exitCode", status},
                {"exited", true},
                {"status", "exit status " + std::to_string(status)},
                {"error", why}};
    }
    if (signal.is_string()) {
        const std::string text = signalText(signal.get<std::string>());
        json end = {{"exitCode", -1}, {"exited", false}, {"status", text}, {"error", text}};
        if (exit.value("timed_out", false)) end["error"] = text + " (its timeout passed)";
        return end;
    }
    const int status = code.is_number_integer() ? code.get<int>() : -1;
    if (status == 0) return {{"exitCode", 0}, {"exited", true}, {"status", "exit status 0"}};
    const std::string text = "exit status " + std::to_string(status);
    return {{"exitCode", status}, {"exited", true}, {"status", text}, {"error", text}};
}

// The stream of one process's events until it ends, or until its client goes (the process goes
// on, as envd's do).
void streamEvents(http::Exchange& ex, SessionLink& link, const std::shared_ptr<EventQueue>& events,
                  bool tty, std::chrono::seconds keepalive)
{
    if (!ex.beginStream(200, kStreamType)) return link.unfollow(events);
    bool started = false;
    for (;;) {
        auto batch = events->take(keepalive);
        std::string out;
        if (batch.empty()) out = envelope(message({{"keepalive", json::object()}}));
        for (ProcessEvent& e : batch) {
            switch (e.kind) {
            case ProcessEvent::Kind::Started:
                started = true;
                out += envelope(message({{"start", {{"pid", e.pid}}}}));
                break;
            case ProcessEvent::Kind::Stdout:
            case ProcessEvent::Kind::Stderr: {
                const char* stream = tty                                    ? "pty"
                                     : e.kind == ProcessEvent::Kind::Stdout ? "stdout"
                                                                            : "stderr";
                out += envelope(message({{"data", {{stream, base64(e.bytes)}}}}));
                break;
            }
            case ProcessEvent::Kind::File: // not a process's
                break;
            case ProcessEvent::Kind::Waiting: // an approval holds it: the stream stays alive
                out += envelope(message({{"keepalive", json::object()}}));
                break;
            case ProcessEvent::Kind::Exit: {
                if (e.gone) {
                    // The sandbox went with the process running: as with E2B's envd, the stream
                    // drops without an end (the SDK then finds the sandbox gone and says so).
                    ex.writeChunk(out);
                    ex.abort();
                    return;
                }
                if (!started && e.body.contains("error")) {
                    // It never ran: envd ends such a stream with an error and no events.
                    RpcError error{"invalid_argument", e.body["error"].get<std::string>()};
                    ex.writeChunk(out + endOfStream(&error));
                    return;
                }
                if (e.body.contains("error")) {
                    const std::string why = e.body["error"].get<std::string>();
                    out += envelope(message({{"end",
                                              {{"exitCode", -1},
                                               {"exited", false},
                                               {"status", why},
                                               {"error", why}}}}));
                } else {
                    const json end = endEvent(e.body);
                    if (e.body.contains("denied"))
                        out += envelope(
                            message({{"data",
                                      {{tty ? "pty" : "stderr",
                                        base64("sandbench: " + end["error"].get<std::string>() +
                                               "\n")}}}}));
                    out += envelope(message({{"end", end}}));
                }
                ex.writeChunk(out + endOfStream());
                return;
            }
            }
        }
        if (!ex.writeChunk(out)) return link.unfollow(events);
    }
}

// The user a request asks to act as: envd's Basic authorization ("NAME:"), or the files
// endpoint's username parameter.
std::optional<std::string> requestedUser(const http::Exchange& ex)
{
    if (auto query = http::queryValue(ex.rawQuery(), "username"); query && !query->empty())
        return query;
    auto header = ex.header("Authorization");
    if (!header || !header->starts_with("Basic ")) return std::nullopt;
    auto decoded = fromBase64(header->substr(6));
    if (!decoded) return std::string(*header);
    return decoded->substr(0, decoded->find(':'));
}

// The pid a ProcessSelector names: {"pid": N} or {"tag": "…"}.
Result<std::int64_t> selectedPid(const json& request, const SessionLink& link)
{
    if (!request.contains("process") || !request["process"].is_object())
        return inputError("process (a selector: pid or tag) is missing");
    const json& selector = request["process"];
    if (selector.contains("pid") && selector["pid"].is_number_integer())
        return selector["pid"].get<std::int64_t>();
    if (selector.contains("tag") && selector["tag"].is_string()) {
        const std::string tag = selector["tag"].get<std::string>();
        for (const ProcessEntry& p : link.processes())
            if (p.config.tag == tag) return p.pid;
        return Error{ErrorCode::NotFound, 0, "process with tag " + tag + " not found"};
    }
    return inputError("process needs a pid or a tag");
}

Result<int> signalOf(const json& value)
{
    if (value == "SIGNAL_SIGKILL" || value == 9) return SIGKILL;
    if (value == "SIGNAL_SIGTERM" || value == 15) return SIGTERM;
    return inputError("signal must be SIGNAL_SIGKILL or SIGNAL_SIGTERM");
}

// An object of strings, for envs.
Status stringsInto(const json& value, const char* what, json& out)
{
    if (value.is_null()) return {};
    if (!value.is_object()) return inputError(std::string(what) + " must be an object of strings");
    for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) return inputError(std::string(what) + "." + k + " must be a string");
        out[k] = v;
    }
    return {};
}

// Start's request as an exec_start, and what List will say of it.
Result<json> execRequest(const json& request, const Api::Sandbox& sandbox, const std::string& home,
                         ProcessConfig& config)
{
    if (!request.contains("process") || !request["process"].is_object())
        return inputError("process (cmd, args, envs, cwd) is missing");
    const json& process = request["process"];
    if (!process.contains("cmd") || !process["cmd"].is_string() ||
        process["cmd"].get<std::string>().empty())
        return inputError("process.cmd must be the program to run");
    config.cmd = process["cmd"].get<std::string>();
    json argv = json::array({config.cmd});
    if (process.contains("args") && !process["args"].is_null()) {
        if (!process["args"].is_array()) return inputError("process.args must be an array");
        for (const json& a : process["args"]) {
            if (!a.is_string()) return inputError("process.args must hold strings");
            config.args.push_back(a.get<std::string>());
            argv.push_back(a);
        }
    }
    json env = json::object();
    for (const auto& [k, v] : sandbox.envVars)
        env[k] = v;
    json envs = json::object();
    if (process.contains("envs"))
        if (auto e = stringsInto(process["envs"], "process.envs", envs)) return *e;
    for (const auto& [k, v] : envs.items()) {
        env[k] = v;
        config.envs[k] = v.get<std::string>();
    }
    json exec = {{"argv", argv}, {"env", env}};
    if (process.contains("cwd") && process["cwd"].is_string() &&
        !process["cwd"].get<std::string>().empty()) {
        config.cwd = process["cwd"].get<std::string>();
        exec["cwd"] = absoluteIn(home, config.cwd);
    }
    if (request.contains("tag") && request["tag"].is_string())
        config.tag = request["tag"].get<std::string>();
    // envd gives a stdin pipe unless asked not to.
    exec["stdin"] = !request.contains("stdin") || request["stdin"] != false;
    if (request.contains("pty") && request["pty"].is_object()) {
        const json size = request["pty"].value("size", json::object());
        const unsigned rows = size.value("rows", 24u), cols = size.value("cols", 80u);
        if (rows < 1 || rows > 1000 || cols < 1 || cols > 1000)
            return inputError("pty.size needs rows and cols from 1 to 1000");
        exec["tty"] = {{"rows", rows}, {"cols", cols}};
    }
    return exec;
}

} // namespace

std::chrono::seconds keepaliveOf(const http::Exchange& ex)
{
    long seconds = 50;
    if (auto h = ex.header("Keepalive-Ping-Interval"))
        seconds = std::strtol(std::string(*h).c_str(), nullptr, 10);
    return std::chrono::seconds(std::clamp(seconds, 1L, 300L));
}

void Api::envd(http::Exchange& ex)
{
    const std::string_view path = ex.path();
    const std::string_view method = ex.method();
    // A signed URL (uploadUrl, downloadUrl): the signature stands for the token's header, and
    // names the sandbox when no header does (the URL carries none).
    const char* signedOperation = path != "/files"   ? nullptr
                                  : method == "GET"  ? "read"
                                  : method == "POST" ? "write"
                                                     : nullptr;
    std::optional<SignedFileQuery> signature;
    if (signedOperation) {
        auto parsed = signedFileQuery(ex.rawQuery());
        if (!parsed) return restError(ex, 400, parsed.error().message);
        signature = std::move(*parsed);
    }
    const auto header = ex.header("E2b-Sandbox-Id");
    if (!header && !signature)
        return restError(ex, 400,
                         "no E2b-Sandbox-Id header: point E2B_SANDBOX_URL at this server, as "
                         "docs/e2b.md says");
    auto sandbox = header ? find(std::string(*header)) : signedSandbox(*signature, signedOperation);
    if (!header && !sandbox) return restError(ex, 401, "invalid signature");
    const std::string id = header ? std::string(*header) : sandbox->id;
    bool paused = false;
    if (sandbox) {
        std::lock_guard lock(m_mutex);
        paused = sandbox->paused;
    }
    // A paused sandbox answers nothing until connect resumes it, as on E2B.
    if (!sandbox || paused)
        return sendJson(ex, 502,
                        {{"sandboxId", id},
                         {"message", paused ? "The sandbox is paused (connect resumes it)"
                                            : "The sandbox was not found (it ended or never "
                                              "existed)"},
                         {"code", 502}});
    if (ex.header("E2b-Sandbox-Port") == kCodeInterpreterPort) return codeInterpreter(ex, *sandbox);
    const bool rpc = path.starts_with("/process.Process/") || path.starts_with("/filesystem.");
    const auto token = ex.header("X-Access-Token");
    if (signature && !token) {
        const SignatureCheck check =
            checkFileSignature(*signature, signedOperation, sandbox->accessToken,
                               std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
        if (check == SignatureCheck::Invalid) return restError(ex, 401, "invalid signature");
        if (check == SignatureCheck::Expired)
            return restError(ex, 401, "signature is already expired");
    } else if (!token || !sameSecret(*token, sandbox->accessToken)) {
        const std::string why = "missing or wrong X-Access-Token for sandbox " + sandbox->id;
        return rpc ? rpcFail(ex, {"unauthenticated", why}) : restError(ex, 401, why);
    }
    if (path == "/health") return ex.respond(204, "application/json", "");
    // One user runs everything in a sandbox: another one asked for is refused, not ignored.
    if (auto user = requestedUser(ex); user && *user != kSandboxUser) {
        const RpcError error{"invalid_argument",
                             "user '" + *user + "' is not supported by Sandbench's E2B API: " +
                                 "every process and file request of a sandbox runs as its one "
                                 "unprivileged user ('" +
                                 std::string(kSandboxUser) + "')"};
        if (!rpc) return restError(ex, 400, error.message);
        if (path != "/process.Process/Start" && path != "/process.Process/Connect")
            return rpcFail(ex, error);
        if (ex.beginStream(200, kStreamType)) ex.writeChunk(endOfStream(&error));
        return;
    }
    if (path == "/files" && method == "GET") return readFile(ex, *sandbox);
    if (path == "/files" && method == "POST") return writeFiles(ex, *sandbox);
    if (rpc && method != "POST") return rpcFail(ex, {"unimplemented", "Connect calls are POSTs"});
    if (path.starts_with("/process.Process/"))
        return processRpc(ex, *sandbox, path.substr(std::string_view("/process.Process/").size()));
    if (path.starts_with("/filesystem.Filesystem/"))
        return filesystemRpc(ex, *sandbox,
                             path.substr(std::string_view("/filesystem.Filesystem/").size()));
    if (rpc) return rpcFail(ex, {"unimplemented", "no such service: " + std::string(path)});
    restError(ex, 501,
              std::string(method) + " " + std::string(path) +
                  " is not served by Sandbench's E2B API (docs/e2b.md, \"What does not\")");
}

void Api::processRpc(http::Exchange& ex, Sandbox& sandbox, std::string_view method)
{
    SessionLink& link = *sandbox.link;
    static constexpr std::string_view kServed[] = {"Start",     "Connect",    "List",  "SendSignal",
                                                   "SendInput", "CloseStdin", "Update"};
    if (std::find(std::begin(kServed), std::end(kServed), method) == std::end(kServed))
        return rpcFail(ex, {"unimplemented", "process." + std::string(method) +
                                                 " is not served (StreamInput needs client "
                                                 "streaming; use SendInput)"});
    const bool streaming = method == "Start" || method == "Connect";
    auto body = http::readWholeBody(ex, m_options.maxJsonBody);
    if (!body) return rpcFail(ex, rpcError(body.error()));
    auto request = streaming ? streamRequest(*body) : unaryRequest(*body);
    if (!request) {
        if (!streaming) return rpcFail(ex, rpcError(request.error()));
        RpcError error = rpcError(request.error());
        ex.beginStream(200, kStreamType);
        ex.writeChunk(endOfStream(&error));
        return;
    }
    auto streamError = [&](const Error& e) {
        RpcError error = rpcError(e);
        if (ex.beginStream(200, kStreamType)) ex.writeChunk(endOfStream(&error));
    };

    if (method == "Start") {
        ProcessConfig config;
        auto exec = execRequest(*request, sandbox, m_options.home, config);
        if (!exec) return streamError(exec.error());
        if (auto ms = ex.header("Connect-Timeout-Ms")) {
            const long long timeout = std::strtoll(std::string(*ms).c_str(), nullptr, 10);
            if (timeout > 0) (*exec)["timeout_ms"] = timeout;
        }
        const auto agent = ex.header("User-Agent").value_or("client");
        (*exec)["origin"] = "e2b:" + std::string(agent.substr(0, agent.find(' ')));
        const bool tty = exec->contains("tty");
        auto events = std::make_shared<EventQueue>();
        if (auto e = link.start(std::move(*exec), std::move(config), events))
            return streamError(*e);
        return streamEvents(ex, link, events, tty, keepaliveOf(ex));
    }
    if (method == "Connect") {
        auto pid = selectedPid(*request, link);
        if (!pid) return streamError(pid.error());
        auto events = std::make_shared<EventQueue>();
        const auto process = link.process(*pid);
        if (auto e = link.follow(*pid, events)) return streamError(*e);
        // A terminal's output stays the terminal's (pty) for whoever connects later.
        return streamEvents(ex, link, events, process && process->tty, keepaliveOf(ex));
    }
    if (method == "List") {
        json processes = json::array();
        for (const ProcessEntry& p : link.processes()) {
            if (p.config.tag == kGatewayTag) continue; // the code interpreter's own
            json config = {{"cmd", p.config.cmd}, {"args", p.config.args}, {"envs", p.config.envs}};
            if (!p.config.cwd.empty()) config["cwd"] = p.config.cwd;
            json entry = {{"config", config}, {"pid", p.pid}};
            if (!p.config.tag.empty()) entry["tag"] = p.config.tag;
            processes.push_back(std::move(entry));
        }
        return sendJson(ex, 200, {{"processes", processes}});
    }
    auto pid = selectedPid(*request, link);
    if (!pid) return rpcFail(ex, rpcError(pid.error()));
    Status done;
    if (method == "SendSignal") {
        auto signal = signalOf(request->value("signal", json()));
        if (!signal) return rpcFail(ex, rpcError(signal.error()));
        // As envd's kill(2), SIGKILL has done its work when the call returns: the process is
        // gone (a later `kill -0 PID` fails), within a bound.
        auto ended = std::make_shared<EventQueue>();
        const bool wait = *signal == SIGKILL && !link.follow(*pid, ended);
        done = link.signal(*pid, *signal);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        for (bool gone = !wait || done; !gone && std::chrono::steady_clock::now() < deadline;)
            for (const ProcessEvent& e : ended->take(std::chrono::milliseconds(200)))
                gone = gone || e.kind == ProcessEvent::Kind::Exit;
        if (wait) link.unfollow(ended);
    } else if (method == "SendInput") {
        const json input = request->value("input", json::object());
        const json data = input.is_object() && input.contains("stdin") ? input["stdin"]
                          : input.is_object() && input.contains("pty") ? input["pty"]
                                                                       : json();
        auto bytes = data.is_string() ? fromBase64(data.get<std::string>()) : std::nullopt;
        if (!bytes) return rpcFail(ex, {"invalid_argument", "input.stdin must be base64 bytes"});
        done = link.input(*pid, *bytes);
    } else if (method == "CloseStdin") {
        done = link.closeStdin(*pid);
    } else { // Update: a terminal's size
        const json size = request->value("pty", json::object()).value("size", json::object());
        if (!size.contains("rows") || !size.contains("cols"))
            return rpcFail(ex, {"invalid_argument", "pty.size (rows, cols) is missing"});
        done = link.resize(*pid, size.value("rows", 24u), size.value("cols", 80u));
    }
    if (done) return rpcFail(ex, rpcError(*done));
    sendJson(ex, 200, json::object());
}

} // namespace sb::e2b
