#include "policy/SessionAnswers.h"

#include "policy/PolicyJson.h"

#include <algorithm>

namespace sb {
namespace {

// Session rules come only from answers, so their hosts are a name or address, optionally with
// one port, or "*.domain". General host matching (ranges, address spellings) is NetworkRules'.
bool matches(const NetworkRule& rule, std::string_view host, std::uint16_t port)
{
    if (!rule.ports.empty() &&
        std::find(rule.ports.begin(), rule.ports.end(), port) == rule.ports.end())
        return false;
    if (rule.host.starts_with("*.")) {
        const std::string_view parent = std::string_view(rule.host).substr(2);
        return host == parent || (host.size() > parent.size() && host.ends_with(parent) &&
                                  host[host.size() - parent.size() - 1] == '.');
    }
    return host == rule.host;
}

} // namespace

void SessionAnswers::add(const LearnedRule& rule)
{
    if (const auto* c = std::get_if<CommandRule>(&rule)) {
        auto pattern = parseCommandPattern(c->match);
        if (!pattern) return;
        m_commands.push_back(*c);
        m_patterns.push_back(std::move(*pattern));
    } else {
        const auto& n = std::get<NetworkRule>(rule);
        auto client = ClientPattern::compile(n.program, n.command);
        if (!client) return;
        m_network.push_back(n);
        m_clients.push_back(std::move(*client));
    }
}

std::optional<bool> SessionAnswers::decideCommand(std::string_view program,
                                                  const std::vector<std::string>& argv) const
{
    std::optional<bool> decision;
    for (std::size_t i = 0; i < m_patterns.size(); ++i) {
        if (!matchesCommand(m_patterns[i], program, argv)) continue;
        if (m_commands[i].action == RuleAction::Deny) return false;
        decision = true;
    }
    return decision;
}

std::optional<bool> SessionAnswers::decideConnection(std::string_view host, std::uint16_t port,
                                                     const ProcessChain& process) const
{
    std::optional<bool> decision;
    for (std::size_t i = 0; i < m_network.size(); ++i) {
        const NetworkRule& rule = m_network[i];
        if (!matches(rule, host, port) || !m_clients[i].matches(process)) continue;
        if (rule.action == RuleAction::Deny) return false;
        decision = true;
    }
    return decision;
}

nlohmann::json SessionAnswers::toJson() const
{
    Policy rules;
    rules.commands.rules = m_commands;
    rules.network.rules = m_network;
    const auto j = policyToJson(rules);
    return {{"commands", j["commands"]["rules"]}, {"network", j["network"]["rules"]}};
}

SessionAnswers SessionAnswers::fromJson(const nlohmann::json& rules)
{
    SessionAnswers answers;
    if (!rules.is_object()) return answers;
    nlohmann::json document = {{"version", 1}};
    for (const char* section : {"commands", "network"})
        if (auto it = rules.find(section); it != rules.end() && it->is_array())
            document[section] = *it;
    auto parsed = parseLearnedRules(document.dump(), "session rules");
    if (!parsed) return answers;
    for (const CommandRule& c : parsed->commands)
        answers.add(c);
    for (const NetworkRule& n : parsed->network)
        answers.add(n);
    return answers;
}

} // namespace sb
