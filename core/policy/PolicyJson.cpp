#include "policy/PolicyJson.h"

namespace sb {
namespace {

using Json = nlohmann::ordered_json;

std::string str(std::string_view s)
{
    return std::string(s);
}

Json networkJson(const NetworkPolicy& n)
{
    Json rules = Json::array();
    for (const auto& r : n.rules) {
        Json rule = {{"action", str(toString(r.action))}, {"host", r.host}};
        if (!r.ports.empty()) rule["ports"] = r.ports;
        if (!r.program.empty()) rule["program"] = r.program;
        if (!r.command.empty()) rule["command"] = r.command;
        if (!r.comment.empty()) rule["comment"] = r.comment;
        rules.push_back(std::move(rule));
    }
    return {{"mode", str(toString(n.mode))},
            {"default", str(toString(n.defaultAction))},
            {"rules", std::move(rules)}};
}

Json commandsJson(const CommandPolicy& c)
{
    Json rules = Json::array();
    for (const auto& r : c.rules) {
        Json rule = {{"action", str(toString(r.action))}, {"match", r.match}};
        if (!r.comment.empty()) rule["comment"] = r.comment;
        rules.push_back(std::move(rule));
    }
    return {{"default", str(toString(c.defaultAction))}, {"rules", std::move(rules)}};
}

Json filesystemJson(const FilesystemPolicy& f)
{
    Json expose = Json::array();
    for (const auto& e : f.expose) {
        Json entry = {{"path", e.path}, {"mode", e.mode == AccessMode::ReadWrite ? "rw" : "ro"}};
        if (e.optional) entry["optional"] = true;
        expose.push_back(std::move(entry));
    }
    Json out = {{"expose", std::move(expose)}};
    if (!f.root.empty()) out["root"] = f.root;
    if (!f.runLater.add.empty() || !f.runLater.unprotect.empty()) {
        Json add = Json::array(), unprotect = Json::array();
        for (const auto& a : f.runLater.add) {
            Json entry = {{"path", a.path}};
            if (!a.reason.empty()) entry["reason"] = a.reason;
            add.push_back(std::move(entry));
        }
        for (const auto& u : f.runLater.unprotect)
            unprotect.push_back({{"path", u.path}, {"because", u.because}});
        out["run_later"] = {{"add", std::move(add)}, {"unprotect", std::move(unprotect)}};
    }
    return out;
}

Json limitsJson(const Limits& l)
{
    Json out = {{"memory_mb", l.memoryMb},     {"pids", l.pids},
                {"cpu_percent", l.cpuPercent}, {"wall_seconds", l.wallSeconds},
                {"cpu_seconds", l.cpuSeconds}, {"open_files", l.openFiles},
                {"file_size_mb", l.fileSizeMb}};
    if (l.idleSeconds > 0) out["idle_seconds"] = l.idleSeconds; // only sessions without a command
    if (l.modelTokens > 0) out["model_tokens"] = l.modelTokens;
    if (l.modelRequests > 0) out["model_requests"] = l.modelRequests;
    return out;
}

} // namespace

nlohmann::ordered_json policyToJson(const Policy& policy)
{
    Json env = {{"pass", policy.env.pass}, {"set", Json::object()}};
    for (const auto& [name, value] : policy.env.set)
        env["set"][name] = value;
    nlohmann::ordered_json out = {{"version", policy.version},
                                  {"network", networkJson(policy.network)},
                                  {"commands", commandsJson(policy.commands)},
                                  {"approvals",
                                   {{"timeout_seconds", policy.approvals.timeoutSeconds},
                                    {"on_timeout", str(toString(policy.approvals.onTimeout))}}},
                                  {"filesystem", filesystemJson(policy.filesystem)},
                                  {"limits", limitsJson(policy.limits)},
                                  {"env", std::move(env)}};
    if (!policy.secrets.empty()) out["secrets"] = secretsJson(policy.secrets);
    return out;
}

} // namespace sb
