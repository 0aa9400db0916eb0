// The code interpreter's checks of outside input: the bodies clients send to /execute and
// /contexts, and the lines the gateway inside the sandbox writes back.
#include "e2b/CodeInterpreter.h"
#include "e2b/E2bInternal.h"

#include <algorithm>
#include <cctype>

namespace sb::e2b {

using json = nlohmann::json;

namespace {

// A field that is absent or null, or a string: its text, or an error naming it.
Result<std::string> optionalString(const json& body, const char* field)
{
    if (!body.contains(field) || body[field].is_null()) return std::string();
    if (!body[field].is_string()) return inputError(std::string(field) + " must be a string");
    return body[field].get<std::string>();
}

Status onlyFields(const json& body, std::initializer_list<std::string_view> known,
                  std::string_view what)
{
    for (const auto& [key, value] : body.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            return inputError(std::string(what) + ": field '" + key +
                              "' is not supported by Sandbench's code interpreter");
    return {};
}

bool isString(const json& j, const char* field)
{
    return j.contains(field) && j[field].is_string();
}

} // namespace

bool isCodeInterpreterTemplate(std::string_view templateId)
{
    return templateId == "code-interpreter-v1" || templateId == "code-interpreter";
}

Result<std::string> languageOf(std::string_view name)
{
    std::string lower;
    for (char c : name)
        if (!std::isspace(static_cast<unsigned char>(c)))
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.empty() || lower == "python" || lower == "python3") return std::string("python");
    if (lower == "bash" || lower == "sh") return std::string("bash");
    if (lower == "r") return std::string("r");
    if (lower == "js") lower = "javascript";
    if (lower == "ts") lower = "typescript";
    if (lower.size() > 64) lower = lower.substr(0, 64) + "…";
    return inputError("language '" + lower +
                      "' is not served: Sandbench's code interpreter runs Python (Debian's "
                      "python3-ipykernel), R (r-cran-irkernel) and bash only");
}

Result<ExecuteRequest> parseExecute(const json& body)
{
    if (!body.is_object()) return inputError("the body must be a JSON object");
    if (auto e = onlyFields(body, {"code", "context_id", "language", "env_vars"}, "execute"))
        return *e;
    if (!isString(body, "code")) return inputError("code must be a string (the code to run)");
    ExecuteRequest request;
    request.code = body["code"].get<std::string>();
    auto context = optionalString(body, "context_id");
    if (!context) return context.error();
    auto language = optionalString(body, "language");
    if (!language) return language.error();
    if (!context->empty() && !language->empty())
        return inputError("give context_id or language, not both");
    request.contextId = *context;
    if (!language->empty()) {
        auto normal = languageOf(*language);
        if (!normal) return normal.error();
        request.language = *normal;
    }
    if (body.contains("env_vars") && !body["env_vars"].is_null()) {
        if (!body["env_vars"].is_object()) return inputError("env_vars must be an object");
        for (const auto& [key, value] : body["env_vars"].items()) {
            if (!value.is_string()) return inputError("env_vars." + key + " must be a string");
            if (key.empty() || key.find('=') != std::string::npos ||
                key.find('\0') != std::string::npos)
                return inputError("env_vars: '" + key + "' is no variable name");
            request.envVars[key] = value.get<std::string>();
        }
    }
    return request;
}

Result<ContextRequest> parseCreateContext(const json& body, const std::string& home)
{
    if (!body.is_object()) return inputError("the body must be a JSON object");
    if (auto e = onlyFields(body, {"language", "cwd"}, "contexts")) return *e;
    ContextRequest request;
    auto language = optionalString(body, "language");
    if (!language) return language.error();
    auto normal = languageOf(*language);
    if (!normal) return normal.error();
    request.language = *normal;
    auto cwd = optionalString(body, "cwd");
    if (!cwd) return cwd.error();
    request.cwd = cwd->empty() ? home : absoluteIn(home, *cwd);
    return request;
}

std::optional<json> executeLine(const json& out)
{
    if (!out.is_object() || !isString(out, "type")) return std::nullopt;
    const std::string type = out["type"].get<std::string>();
    if (type == "stdout" || type == "stderr") {
        if (!isString(out, "text")) return std::nullopt;
        json line = {{"type", type}, {"text", out["text"]}};
        if (isString(out, "timestamp")) line["timestamp"] = out["timestamp"];
        return line;
    }
    if (type == "number_of_executions") {
        if (!out.contains("execution_count") || !out["execution_count"].is_number_integer())
            return std::nullopt;
        return json{{"type", type}, {"execution_count", out["execution_count"]}};
    }
    if (type == "error") {
        json line = {{"type", type}};
        for (const char* field : {"name", "value", "traceback"}) {
            if (!isString(out, field)) return std::nullopt;
            line[field] = out[field];
        }
        return line;
    }
    if (type == "result") {
        const json main = out.contains("is_main_result") ? out["is_main_result"] : json(false);
        if (!main.is_boolean()) return std::nullopt;
        json line = {{"type", type}, {"is_main_result", main}};
        // Texts as texts; json, data, chart and extra as objects (data as E2B sends a
        // DataFrame: columns of values).
        for (const char* field :
             {"text", "html", "markdown", "svg", "png", "jpeg", "pdf", "latex", "javascript"}) {
            if (!out.contains(field)) continue;
            if (!out[field].is_string()) return std::nullopt;
            line[field] = out[field];
        }
        for (const char* field : {"json", "data", "chart", "extra"}) {
            if (!out.contains(field)) continue;
            if (!out[field].is_object() && !out[field].is_array()) return std::nullopt;
            line[field] = out[field];
        }
        return line;
    }
    return std::nullopt;
}

std::optional<GatewayMessage> parseGatewayLine(std::string_view text)
{
    json j = json::parse(text, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    GatewayMessage m;
    if (j.contains("ready")) {
        m.kind = GatewayMessage::Kind::Ready;
        m.body = j["ready"];
        return m;
    }
    if (!isString(j, "id")) return std::nullopt;
    m.id = j["id"].get<std::string>();
    if (j.contains("out")) {
        auto line = executeLine(j["out"]);
        if (!line) return std::nullopt;
        m.kind = GatewayMessage::Kind::Output;
        m.body = std::move(*line);
    } else if (j.contains("end")) {
        m.kind = GatewayMessage::Kind::End;
    } else if (j.contains("reply")) {
        m.kind = GatewayMessage::Kind::Reply;
        m.body = j["reply"];
    } else if (j.contains("fail") && j["fail"].is_object()) {
        const json& fail = j["fail"];
        m.kind = GatewayMessage::Kind::Fail;
        m.status = fail.contains("status") && fail["status"].is_number_integer()
                       ? fail["status"].get<int>()
                       : 500;
        if (m.status != 400 && m.status != 404) m.status = 500;
        m.body = isString(fail, "message") ? fail["message"].get<std::string>()
                                           : std::string("the code interpreter failed");
    } else {
        return std::nullopt;
    }
    return m;
}

} // namespace sb::e2b
