// The code interpreter's endpoints (the SDK's port 49999): /execute streams an execution's lines
// as the gateway in the sandbox reports them; /contexts creates, lists, restarts and removes
// kernels. Each request becomes a request to the sandbox's gateway (CodeInterpreter.h).
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"
#include "e2b/ExecutionRecord.h"

namespace sb::e2b {

using json = nlohmann::json;

namespace {

// How often an execution's stream writes something while its code runs quietly: a client that
// went (its timeout passed, it was killed) is found at the next write, and its code interrupted.
constexpr auto kKeepalive = std::chrono::seconds(1);
constexpr auto kContextTimeout = std::chrono::seconds(120);

void plainError(http::Exchange& ex, int status, const std::string& message)
{
    ex.respond(status, "text/plain; charset=utf-8", message);
}

// The sandbox's gateway, started when it has none or its own ended.
Result<std::shared_ptr<KernelGateway>> gatewayOf(Api::Sandbox& sandbox, const std::string& home)
{
    std::lock_guard lock(sandbox.kernels->mutex);
    auto& gateway = sandbox.kernels->gateway;
    if (!gateway || !gateway->alive()) {
        gateway.reset();
        auto started = KernelGateway::start(sandbox.link, home, sandbox.envVars);
        if (!started) return started.error();
        gateway = std::move(*started);
    }
    return gateway;
}

// A context as the SDK reads it, from the gateway's answer.
std::optional<json> contextJson(const json& reply)
{
    if (!reply.is_object()) return std::nullopt;
    json context = json::object();
    for (const char* field : {"id", "language", "cwd"}) {
        if (!reply.contains(field) || !reply[field].is_string()) return std::nullopt;
        context[field] = reply[field];
    }
    return context;
}

// The one answer of a request that is not an execution.
Result<GatewayMessage> answer(KernelGateway& gateway, json request)
{
    auto call = gateway.call(std::move(request));
    if (!call) return call.error();
    const auto deadline = std::chrono::steady_clock::now() + kContextTimeout;
    while (std::chrono::steady_clock::now() < deadline)
        for (GatewayMessage& m : (*call)->take(std::chrono::seconds(1)))
            if (m.kind != GatewayMessage::Kind::Output) return std::move(m);
    gateway.forget(*call);
    return Error{ErrorCode::System, 0, "the code interpreter did not answer in time"};
}

} // namespace

void Api::codeInterpreter(http::Exchange& ex, Sandbox& sandbox)
{
    // The SDK sends the sandbox's envd token with executions and its traffic token (the same
    // token here: docs/e2b.md) with the others.
    auto token = ex.header("X-Access-Token");
    if (!token) token = ex.header("E2B-Traffic-Access-Token");
    if (!token || !sameSecret(*token, sandbox.accessToken))
        return plainError(ex, 401,
                          "missing or wrong X-Access-Token or E2B-Traffic-Access-Token for "
                          "sandbox " +
                              sandbox.id);
    if (!isCodeInterpreterTemplate(sandbox.templateId))
        return plainError(ex, 502,
                          "sandbox " + sandbox.id + " (template " + sandbox.templateId +
                              ") runs no code interpreter: create it with template "
                              "code-interpreter-v1");
    const std::string_view path = ex.path();
    const std::string_view method = ex.method();
    if (path == "/health" && method == "GET") return ex.respond(200, "application/json", "\"OK\"");
    if (path == "/execute" && method == "POST") return execute(ex, sandbox);

    const bool contexts = path == "/contexts" || path.starts_with("/contexts/");
    std::string id;
    std::string action;
    if (path.starts_with("/contexts/")) {
        std::string_view rest = path.substr(std::string_view("/contexts/").size());
        const std::size_t slash = rest.find('/');
        id = std::string(rest.substr(0, slash));
        if (slash != std::string_view::npos) action = std::string(rest.substr(slash + 1));
    }
    json request;
    if (path == "/contexts" && method == "POST") {
        auto body = jsonBody(ex, m_options.maxJsonBody);
        if (!body) return plainError(ex, 400, body.error().message);
        auto asked = parseCreateContext(*body, m_options.home);
        if (!asked) return plainError(ex, 400, asked.error().message);
        request = {{"op", "create"}, {"language", asked->language}, {"cwd", asked->cwd}};
    } else if (path == "/contexts" && method == "GET") {
        request = {{"op", "list"}};
    } else if (contexts && !id.empty() && action == "restart" && method == "POST") {
        request = {{"op", "restart"}, {"context", id}};
    } else if (contexts && !id.empty() && action.empty() && method == "DELETE") {
        request = {{"op", "remove"}, {"context", id}};
    } else {
        return plainError(ex, 501,
                          std::string(method) + " " + std::string(path) +
                              " is not served by Sandbench's code interpreter (docs/e2b.md)");
    }
    auto gateway = gatewayOf(sandbox, m_options.home);
    if (!gateway) return plainError(ex, 500, gateway.error().describe());
    auto reply = answer(**gateway, std::move(request));
    if (!reply) return plainError(ex, 500, reply.error().describe());
    if (reply->kind == GatewayMessage::Kind::Fail)
        return plainError(ex, reply->status, reply->body.get<std::string>());
    if (reply->kind != GatewayMessage::Kind::Reply)
        return plainError(ex, 502, "the code interpreter ended: " + reply->body.dump());
    const std::string op = path == "/contexts" && method == "GET" ? "list"
                           : path == "/contexts"                  ? "create"
                                                                  : "other";
    if (op == "other") return ex.respond(200, "application/json", "null");
    if (op == "create") {
        auto context = contextJson(reply->body);
        if (!context) return plainError(ex, 502, "the code interpreter's answer was malformed");
        return sendJson(ex, 200, *context);
    }
    json list = json::array();
    if (reply->body.is_array())
        for (const json& c : reply->body)
            if (auto context = contextJson(c)) list.push_back(std::move(*context));
    sendJson(ex, 200, list);
}

void Api::execute(http::Exchange& ex, Sandbox& sandbox)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return plainError(ex, 400, body.error().message);
    auto asked = parseExecute(*body);
    if (!asked) return plainError(ex, 400, asked.error().message);
    json request = {{"op", "execute"}, {"code", asked->code}};
    if (!asked->contextId.empty()) request["context"] = asked->contextId;
    if (!asked->language.empty()) request["language"] = asked->language;
    if (!asked->envVars.empty()) request["env"] = asked->envVars;
    auto gateway = gatewayOf(sandbox, m_options.home);
    if (!gateway) return plainError(ex, 500, gateway.error().describe());
    auto call = (*gateway)->call(std::move(request));
    if (!call) return plainError(ex, 500, call.error().describe());

    // The session records what ran and what came of it (its results for the window and
    // `show`), before the client hears the end: once runCode returns, it is in the recording.
    ExecutionTranscript transcript(asked->code, asked->contextId, asked->language);
    auto record = [&] {
        // The execution goes on without it; the server's log says so.
        if (auto e = sandbox.link->recordExecution(transcript.record()); e && m_options.log)
            m_options.log("sandbox " + sandbox.id +
                          ": an execution was not recorded: " + e->describe());
    };
    auto cancel = [&] {
        (*gateway)->cancel(*call);
        transcript.add({{"type", "error"},
                        {"name", "Interrupted"},
                        {"value", "the client went away while the code ran"},
                        {"traceback", ""}});
        record();
    };
    bool streaming = false;
    auto write = [&](const json& line) {
        if (!streaming) streaming = ex.beginStream(200, "application/json");
        return streaming && ex.writeChunk(dumpJson(line) + "\n");
    };
    for (;;) {
        auto batch = (*call)->take(kKeepalive);
        if (batch.empty() && !write({{"type", "keepalive"}})) return cancel();
        for (GatewayMessage& m : batch) {
            switch (m.kind) {
            case GatewayMessage::Kind::Output:
                transcript.add(m.body);
                if (!write(m.body)) return cancel();
                break;
            case GatewayMessage::Kind::End:
                record();
                if (write({{"type", "end_of_execution"}})) ex.endStream();
                return;
            case GatewayMessage::Kind::Fail:
                if (!streaming) return plainError(ex, m.status, m.body.get<std::string>());
                transcript.add({{"type", "error"},
                                {"name", "SandbenchError"},
                                {"value", m.body.get<std::string>()},
                                {"traceback", ""}});
                record();
                if (write({{"type", "error"},
                           {"name", "SandbenchError"},
                           {"value", m.body.get<std::string>()},
                           {"traceback", ""}}) &&
                    write({{"type", "end_of_execution"}}))
                    ex.endStream();
                return;
            default:
                // The sandbox went with the code running: the stream drops unfinished, as
                // E2B's does (the SDK finds the sandbox gone and says so); the gateway alone
                // ending is an error of the execution.
                if (m.sandboxGone || !sandbox.link->alive()) {
                    if (!streaming) ex.beginStream(200, "application/json");
                    return ex.abort();
                }
                transcript.add({{"type", "error"},
                                {"name", "UnexpectedEndOfExecution"},
                                {"value", m.body.is_string() ? m.body.get<std::string>() : ""},
                                {"traceback", ""}});
                record();
                if (write({{"type", "error"},
                           {"name", "UnexpectedEndOfExecution"},
                           {"value", m.body.is_string() ? m.body.get<std::string>() : ""},
                           {"traceback", ""}}) &&
                    write({{"type", "end_of_execution"}}))
                    ex.endStream();
                return;
            }
        }
    }
}

} // namespace sb::e2b
