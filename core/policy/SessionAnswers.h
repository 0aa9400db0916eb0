// Answers given "for this session" (or "always") to approval requests, as rules the supervisor
// applies to later requests of the same session: commands before the policy's rules, network
// requests when the rules would ask. Among the answers that match, a deny wins. The window's
// policy tester applies them the same way, so it says what the session would do now.
#pragma once

#include "base/Error.h"
#include "policy/ClientPattern.h"
#include "policy/CommandRules.h"
#include "policy/LearnedRules.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sb {

class SessionAnswers {
  public:
    // A rule from ruleFromAnswer(); a rule whose pattern (or program) does not parse is ignored.
    void add(const LearnedRule& rule);
    // true: allowed, false: denied, nothing: no answer decides.
    std::optional<bool> decideCommand(std::string_view program,
                                      const std::vector<std::string>& argv) const;
    // `host` as the proxy has it (lower case, no trailing dot). An answer for "this program
    // only" decides only requests whose known `process` its rule matches.
    std::optional<bool> decideConnection(std::string_view host, std::uint16_t port,
                                         const ProcessChain& process = {}) const;

    const std::vector<CommandRule>& commands() const { return m_commands; }
    const std::vector<NetworkRule>& network() const { return m_network; }
    bool empty() const { return m_commands.empty() && m_network.empty(); }

    // {"commands": [rule…], "network": [rule…]}, rules as in a policy (the welcome's
    // "session_rules"); fromJson ignores what it cannot read.
    nlohmann::json toJson() const;
    static SessionAnswers fromJson(const nlohmann::json& rules);

  private:
    std::vector<CommandRule> m_commands;
    std::vector<CommandPattern> m_patterns; // m_commands' patterns, parsed once
    std::vector<NetworkRule> m_network;
    std::vector<ClientPattern> m_clients; // m_network's program and command, compiled once
};

} // namespace sb
