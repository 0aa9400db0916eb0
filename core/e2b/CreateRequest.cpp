// A create request (E2B's NewSandbox) checked field by field: what Sandbench honours becomes the
// SandboxSpec, and a field it cannot honour is refused by name, never accepted and ignored.
#include "e2b/E2bInternal.h"

namespace sb::e2b {

using json = nlohmann::json;

namespace {

bool given(const json& body, const char* field)
{
    return body.contains(field) && !body[field].is_null();
}

// "key": "value" pairs, or why not.
Status stringMap(const json& body, const char* field, std::map<std::string, std::string>& out)
{
    if (!given(body, field)) return {};
    if (!body[field].is_object())
        return inputError(std::string(field) + " must be an object of strings");
    for (const auto& [k, v] : body[field].items()) {
        if (!v.is_string()) return inputError(std::string(field) + "." + k + " must be a string");
        out[k] = v.get<std::string>();
    }
    return {};
}

Status stringList(const json& network, const char* field, std::vector<std::string>& out)
{
    if (!given(network, field)) return {};
    if (!network[field].is_array())
        return inputError(std::string("network.") + field + " must be an array of strings");
    for (const json& entry : network[field]) {
        if (!entry.is_string() || entry.get<std::string>().empty())
            return inputError(std::string("network.") + field + " must hold non-empty strings");
        out.push_back(entry.get<std::string>());
    }
    return {};
}

// network: allowOut and denyOut become the sandbox's network rules (the launcher checks each
// destination); the rest of E2B's network settings have no counterpart here.
Status networkOf(const json& body, SandboxSpec& spec)
{
    if (!given(body, "network")) return {};
    const json& network = body["network"];
    if (!network.is_object()) return inputError("network must be an object");
    for (const auto& [key, value] : network.items()) {
        if (value.is_null() || key == "allowOut" || key == "denyOut") continue;
        // Sandbench serves no public URLs at all, so none is open without authentication.
        if (key == "allowPublicTraffic" && value.is_boolean()) continue;
        if (key == "rules" && value.is_object() && value.empty()) continue;
        return inputError("network." + key +
                          " is not supported by Sandbench's E2B API (only allowOut and denyOut "
                          "are: they become the sandbox's network rules)");
    }
    if (auto e = stringList(network, "allowOut", spec.allowOut)) return e;
    return stringList(network, "denyOut", spec.denyOut);
}

// The fields of E2B's NewSandbox that Sandbench has no counterpart for, refused when they ask
// for something.
Status unsupportedFields(const json& body, bool pauseServed)
{
    auto refuse = [](const std::string& what, const std::string& why) {
        return inputError(what + " is not supported by Sandbench's E2B API: " + why);
    };
    if (given(body, "mcp") && !(body["mcp"].is_object() && body["mcp"].empty()))
        return refuse("mcp", "there is no MCP gateway in a Sandbench sandbox");
    if (given(body, "iam") && !(body["iam"].is_object() && body["iam"].empty()))
        return refuse("iam", "there are no workload identity tokens");
    if (given(body, "volumeMounts") &&
        !(body["volumeMounts"].is_array() && body["volumeMounts"].empty()))
        return refuse("volumeMounts", "there are no volumes (a template's policy exposes folders)");
    if (given(body, "secure") && body["secure"] != true)
        return refuse("secure: false", "every sandbox's in-sandbox API requires its access token");
    if (given(body, "autoPause")) {
        if (!body["autoPause"].is_boolean()) return inputError("autoPause must be true or false");
        if (body["autoPause"] == true && !pauseServed)
            return refuse("lifecycle.onTimeout 'pause' (autoPause)",
                          "a sandbox cannot be paused here, so at its timeout it is killed");
    }
    if (given(body, "autoPauseMemory") && body["autoPauseMemory"] != true)
        return refuse("onTimeout.keepMemory: false",
                      "a paused sandbox keeps its processes (it is frozen, not rebooted)");
    if (given(body, "autoResume")) {
        const json& resume = body["autoResume"];
        if (!resume.is_object()) return inputError("autoResume must be an object");
        if (resume.value("enabled", false))
            return refuse("lifecycle.autoResume",
                          "a paused sandbox resumes on connect, not on traffic");
    }
    return {};
}

} // namespace

Result<unsigned> timeoutOf(const json& body, unsigned fallback, unsigned max)
{
    if (!body.contains("timeout") || body["timeout"].is_null()) return fallback;
    const json& t = body["timeout"];
    if (!t.is_number_integer() || t.get<long long>() < 1 || t.get<long long>() > max)
        return inputError("timeout must be a whole number of seconds from 1 to " +
                          std::to_string(max));
    return t.get<unsigned>();
}

Result<CreateRequest> parseCreate(const json& body, const ApiOptions& options, bool pauseServed)
{
    CreateRequest request;
    SandboxSpec& spec = request.spec;
    if (body.contains("templateID")) {
        if (!body["templateID"].is_string()) return inputError("templateID must be a string");
        spec.templateId = body["templateID"].get<std::string>();
    }
    auto timeout = timeoutOf(body, options.defaultTimeoutSeconds, options.maxTimeoutSeconds);
    if (!timeout) return timeout.error();
    request.timeoutSeconds = *timeout;
    if (auto e = unsupportedFields(body, pauseServed)) return *e;
    request.pauseOnTimeout = body.value("autoPause", false);
    std::map<std::string, std::string> metadata;
    if (auto e = stringMap(body, "metadata", metadata)) return *e;
    if (auto e = stringMap(body, "envVars", spec.envVars)) return *e;
    spec.metadata = metadata;
    if (given(body, "allow_internet_access")) {
        if (!body["allow_internet_access"].is_boolean())
            return inputError("allow_internet_access must be true or false");
        spec.internet = body["allow_internet_access"].get<bool>();
    }
    if (auto e = networkOf(body, spec)) return *e;
    return request;
}

} // namespace sb::e2b
