#include "policy/ProcessChain.h"

#include "base/Bytes.h"

namespace sb {

nlohmann::json toJson(const ProcessChain& chain)
{
    nlohmann::json out = nlohmann::json::array();
    for (const ProcessInfo& p : chain) {
        nlohmann::json j = {{"pid", p.pid}};
        putBytes(j, "program", p.program);
        putArgv(j, p.argv);
        out.push_back(std::move(j));
    }
    return out;
}

ProcessChain processChainFromJson(const nlohmann::json& j)
{
    ProcessChain chain;
    if (!j.is_array()) return chain;
    for (const auto& p : j) {
        if (!p.is_object()) continue;
        ProcessInfo info;
        info.pid = p.value("pid", std::int64_t{0});
        info.program = getBytes(p, "program").value_or("");
        info.argv = getBytesList(p, "argv").value_or(std::vector<std::string>{});
        chain.push_back(std::move(info));
    }
    return chain;
}

std::string describeProcess(const ProcessInfo& p)
{
    std::string line;
    for (const std::string& arg : p.argv)
        line += (line.empty() ? "" : " ") + arg;
    if (line.empty()) line = p.program;
    if (line.size() > 120) line = line.substr(0, 117) + "...";
    return line + " (pid " + std::to_string(p.pid) + ")";
}

std::string describeChain(const ProcessChain& chain)
{
    std::string out;
    for (std::size_t i = 0; i < chain.size(); ++i)
        out += (i == 0 ? "" : i == 1 ? ", started by " : " < ") + describeProcess(chain[i]);
    return out;
}

} // namespace sb
