#include "Environment.h"

#include <algorithm>
#include <map>

namespace sb {
namespace {

const char* const kDefaultPass[] = {"TERM", "COLORTERM", "LANG", "LANGUAGE", "LC_*", "HOME",
                                    "USER",  "LOGNAME",   "SHELL", "TZ"};

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
        if (eq == std::string::npos || eq == 0)
            continue;
        std::string name = entry.substr(0, eq);
        if (passes(name))
            out[name] = entry.substr(eq + 1);
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

} // namespace sb
