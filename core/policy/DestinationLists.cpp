#include "policy/DestinationLists.h"

#include "policy/NetworkRules.h"

#include <tuple>

namespace sb {

Status applyDestinationLists(NetworkPolicy& network, const std::vector<std::string>& allow,
                             const std::vector<std::string>& deny, const std::string& origin)
{
    std::vector<NetworkRule> given;
    for (const auto& [field, list, action] : {std::tuple{"allowOut", &allow, RuleAction::Allow},
                                              std::tuple{"denyOut", &deny, RuleAction::Deny}}) {
        std::size_t index = 0;
        for (const std::string& entry : *list) {
            const std::string host = entry == "0.0.0.0/0" || entry == "::/0" ? "*" : entry;
            NetworkRule rule{action, host, {}, origin + "." + field};
            NetworkPolicy one;
            one.rules = {rule};
            if (!NetworkRules::compile(one))
                return inputError(origin + "." + field + "[" + std::to_string(index) + "] '" +
                                  entry + "' is not an address, a CIDR range or a host name");
            given.push_back(std::move(rule));
            ++index;
        }
    }
    if (given.empty()) return {};
    if (network.mode == NetworkMode::Host)
        return inputError(origin + ".allowOut/denyOut cannot apply: the policy gives the sandbox "
                                   "this machine's network (mode host), where no rule applies");
    if (network.mode == NetworkMode::None) {
        if (!allow.empty())
            return inputError(origin + ".allowOut cannot apply: the policy gives the sandbox no "
                                       "network at all (mode none)");
        return {}; // denying what is unreachable already
    }
    std::vector<NetworkRule> rules;
    for (const NetworkRule& r : network.rules)
        if (r.action == RuleAction::Deny) rules.push_back(r);
    rules.insert(rules.end(), given.begin(), given.end());
    for (const NetworkRule& r : network.rules)
        if (r.action != RuleAction::Deny) rules.push_back(r);
    network.rules = std::move(rules);
    return {};
}

} // namespace sb
