#include "sandbox/Environment.h"

#include <algorithm>
#include <map>

namespace sb {
namespace {

const char* const kDefaultPass[] = {"TERM", "COLORTERM", "LANG",    "LANGUAGE", "LC_*",
                                    "HOME", "USER",      "LOGNAME", "SHELL",    "TZ"};

} // namespace

bool matchesVariablePattern(const std::string& pattern, const std::string& name)
{
    if (!pattern.empty() && pattern.back() == '*')
        return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
    return pattern == name;
}

std::vector<std::string> buildEnvironment(const EnvPolicy& policy,
                                          const std::vector<std::string>& caller)
{
    std::map<std::string, std::string> out;
    auto passes = [&](const std::string& name) {
        auto match = [&](const std::string& p) { return matchesVariablePattern(p, name); };
        return std::any_of(std::begin(kDefaultPass), std::end(kDefaultPass), match) ||
               std::any_of(policy.pass.begin(), policy.pass.end(), match);
    };
    for (const std::string& entry : caller) {
        auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        std::string name = entry.substr(0, eq);
        if (passes(name)) out[name] = entry.substr(eq + 1);
    }
    out["PATH"] = kDefaultPath;
    for (const auto& [name, value] : policy.set)
        out[name] = value;
    std::vector<std::string> env;
    env.reserve(out.size());
    for (const auto& [name, value] : out)
        env.push_back(name + "=" + value);
    return env;
}

void addProxyVariables(std::vector<std::string>& env, std::uint16_t port, const EnvPolicy& policy)
{
    std::string http = "http://127.0.0.1:" + std::to_string(port);
    // One port speaks both: the proxy tells SOCKS5 from HTTP by the first byte.
    std::string socks = "socks5h://127.0.0.1:" + std::to_string(port);
    const std::pair<const char*, std::string> variables[] = {
        {"HTTP_PROXY", http},
        {"http_proxy", http},
        {"HTTPS_PROXY", http},
        {"https_proxy", http},
        {"ALL_PROXY", socks},
        {"all_proxy", socks},
        {"NO_PROXY", "localhost,127.0.0.1,::1"},
        {"no_proxy", "localhost,127.0.0.1,::1"}};
    for (const auto& [name, value] : variables)
        if (policy.set.count(name) == 0) // the policy's own value stays
            setVariable(env, name, value);
}

void setVariable(std::vector<std::string>& env, const std::string& name, const std::string& value)
{
    const std::string prefix = name + "=";
    std::erase_if(env, [&](const std::string& e) { return e.starts_with(prefix); });
    env.push_back(prefix + value);
    std::sort(env.begin(), env.end());
}

} // namespace sb
