// The rule entries of a policy (`network.rules`, `commands.rules`): their readers, shared by the
// policy document and the learned-rules file, and the syntax of a rule's host.
// Matching hosts against connections is NetworkRules' job; this only says what may be written.
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"
#include "policy/SchemaChecker.h"

#include <string>
#include <string_view>

namespace sb {

enum class HostPatternKind {
    Any,    // "*"
    Name,   // "api.example.com"
    Suffix, // "*.example.com": the name and every name below it
    IPv4,   // "10.1.2.3"
    IPv6,   // "fd00::1"
    Cidr4,  // "10.0.0.0/8"
    Cidr6,  // "fd00::/8"
};

// The kind of a rule's host, or an InvalidInput error saying what is wrong with it.
Result<HostPatternKind> checkHostPattern(std::string_view host);

// The action names in documents: "allow", "ask", "deny".
std::optional<RuleAction> readRuleAction(SchemaChecker& c, const nlohmann::json& v,
                                         const std::string& pointer);

// {"action", "host", "ports"?, "program"?, "command"?, "comment"?} and
// {"action", "match", "comment"?}
void readNetworkRule(SchemaChecker& c, const nlohmann::json& v, const std::string& pointer,
                     NetworkRule& out);
void readCommandRule(SchemaChecker& c, const nlohmann::json& v, const std::string& pointer,
                     CommandRule& out);

// `secrets`: {"NAME": {"from": …, "hosts": […], "env": …}} (PolicySecrets.cpp).
void readSecrets(SchemaChecker& c, const nlohmann::json& v, const std::string& pointer,
                 std::vector<SecretSpec>& out);

} // namespace sb
