// The policy sections that supervision reads: network rules, command rules, approvals.
#include "policy/Policy.h"
#include "policy/PolicyTestSupport.h"

#include <gtest/gtest.h>

namespace {

using sbtest::accepted;
using sbtest::Malformed;
using sbtest::refusal;

class PolicyRulesMalformed : public testing::TestWithParam<Malformed> {};

TEST_P(PolicyRulesMalformed, IsRefusedWithExactMessage)
{
    EXPECT_EQ(refusal(GetParam().text), GetParam().message) << GetParam().text;
}

} // namespace

TEST(Policy, RuleActionNames)
{
    EXPECT_EQ(sb::toString(sb::RuleAction::Allow), "allow");
    EXPECT_EQ(sb::toString(sb::RuleAction::Ask), "ask");
    EXPECT_EQ(sb::toString(sb::RuleAction::Deny), "deny");
}

// Every host spelling the schema accepts; what they match is NetworkRules' concern.
TEST(Policy, AcceptsEveryHostSyntax)
{
    for (const char* host :
         {"*", "example.com", "EXAMPLE.com", "*.github.com", "localhost", "_service.example.com",
          "10.1.2.3", "::1", "fd00::1", "10.0.0.0/8", "0.0.0.0/0", "192.168.1.7/32", "fd00::/8",
          "::/0", "xn--bcher-kva.de"}) {
        const std::string doc = std::string(R"({"version": 1, "network": {"rules": [)") +
                                R"({"action": "deny", "host": ")" + host + R"("}]}})";
        const sb::Policy p = accepted(doc);
        ASSERT_EQ(p.network.rules.size(), 1u) << host;
        EXPECT_EQ(p.network.rules[0].host, host);
    }
}

// The sections of supervision: network rules, command rules, approvals.
INSTANTIATE_TEST_SUITE_P(
    PolicyRules, PolicyRulesMalformed,
    testing::Values(
        Malformed{R"({"version": 1, "network": {"default": "maybe"}})",
                  "test.json:1:39: at /network/default: unknown value 'maybe' (expected one of: "
                  "allow, ask, deny)"},
        Malformed{R"({"version": 1, "network": {"rules": {}}})",
                  "test.json:1:37: at /network/rules: got an object (expected an array of "
                  "{\"action\": …, \"host\": …})"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "allow"}]}})",
                  "test.json:1:38: at /network/rules/0: missing required key 'host' (expected "
                  "\"host\": a host name, \"*.domain\", an IP address, a CIDR range or \"*\")"},
        Malformed{R"({"version": 1, "network": {"rules": [{"host": "*"}]}})",
                  "test.json:1:38: at /network/rules/0: missing required key 'action' (expected "
                  "\"action\": \"allow\", \"ask\" or \"deny\")"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "alow", "host": "*"}]}})",
                  "test.json:1:49: at /network/rules/0/action: unknown value 'alow' (expected one "
                  "of: allow, ask, deny; did you mean 'allow'?)"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "deny", "hots": "*"}]}})",
                  "test.json:1:57: at /network/rules/0/hots: unknown key 'hots' (expected one of: "
                  "action, host, ports, program, command, comment; did you mean 'host'?)\n"
                  "test.json:1:38: at /network/rules/0: missing required key 'host' (expected "
                  "\"host\": a host name, \"*.domain\", an IP address, a CIDR range or \"*\")"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "deny", "host": 7}]}})",
                  "test.json:1:65: at /network/rules/0/host: got 7 (expected a host name, "
                  "\"*.domain\", an IP address, a CIDR range such as 10.0.0.0/8, or \"*\")"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "deny", "host": ""}]}})",
                  "test.json:1:65: at /network/rules/0/host: empty host (expected a host name, "
                  "\"*.domain\", an IP address, a CIDR range such as 10.0.0.0/8, or \"*\")"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "a.*.com"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'a.*.com': '*' may only be the whole first "
            "label (expected a pattern such as \"*.example.com\")"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "*."}]}})",
            "test.json:1:65: at /network/rules/0/host: '*.' is not a valid host name (expected "
            "labels of letters, digits, '-' and '_', 1 to 63 characters each, separated by '.')"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "exa mple.com"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'exa mple.com' is not a valid host name "
            "(expected labels of letters, digits, '-' and '_', 1 to 63 characters each, separated "
            "by '.')"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "-x.com"}]}})",
            "test.json:1:65: at /network/rules/0/host: '-x.com' is not a valid host name (expected "
            "labels of letters, digits, '-' and '_', 1 to 63 characters each, separated by '.')"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "example.com."}]}})",
            "test.json:1:65: at /network/rules/0/host: 'example.com.' ends with '.' (expected the "
            "name without it)"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "127.1"}]}})",
                  "test.json:1:65: at /network/rules/0/host: '127.1' is not a valid IPv4 address "
                  "(expected four numbers from 0 to 255, such as 127.0.0.1)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "10.0.0.256"}]}})",
            "test.json:1:65: at /network/rules/0/host: '10.0.0.256' is not a valid IPv4 address "
            "(expected four numbers from 0 to 255, such as 127.0.0.1)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "example.com:443"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'example.com:443': a port belongs in "
            "\"ports\" (expected the host alone, such as 'example.com')"},
        Malformed{R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "[::1]"}]}})",
                  "test.json:1:65: at /network/rules/0/host: '[::1]': write IPv6 addresses without "
                  "brackets (expected ::1)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "fe80::1%eth0"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'fe80::1%eth0' is not a valid IPv6 address "
            "(expected an address such as fd00::1, without brackets or a zone)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "10.0.0.0/33"}]}})",
            "test.json:1:65: at /network/rules/0/host: '10.0.0.0/33': the prefix length is 33 "
            "(expected 0 to 32 for IPv4)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "fd00::/129"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'fd00::/129': the prefix length is 129 "
            "(expected 0 to 128 for IPv6)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "10.0.0.1/8"}]}})",
            "test.json:1:65: at /network/rules/0/host: '10.0.0.1/8' has address bits set beyond "
            "the prefix (expected 10.0.0.0/8)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "fd00::1/16"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'fd00::1/16' has address bits set beyond "
            "the prefix (expected fd00::/16)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "example.com/8"}]}})",
            "test.json:1:65: at /network/rules/0/host: 'example.com/8' is not a CIDR range "
            "(expected an address and a prefix length, such as 10.0.0.0/8 or fd00::/8)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "10.0.0.0/"}]}})",
            "test.json:1:65: at /network/rules/0/host: '10.0.0.0/' is not a CIDR range (expected "
            "an address and a prefix length, such as 10.0.0.0/8 or fd00::/8)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "*", "ports": []}]}})",
            "test.json:1:79: at /network/rules/0/ports: an empty list matches no port "
            "(expected port numbers from 1 to 65535, or no \"ports\" for any port)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "*", "ports": [443, 0, 70000]}]}})",
            "test.json:1:85: at /network/rules/0/ports/1: 0 is out of range (expected an "
            "integer from 1 to 65535)\n"
            "test.json:1:88: at /network/rules/0/ports/2: 70000 is out of range (expected an "
            "integer from 1 to 65535)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "*", "ports": "443"}]}})",
            "test.json:1:79: at /network/rules/0/ports: got \"443\" (expected an array of "
            "port numbers from 1 to 65535)"},
        Malformed{
            R"({"version": 1, "network": {"rules": [{"action": "deny", "host": "*", "comment": 1}]}})",
            "test.json:1:81: at /network/rules/0/comment: got 1 (expected a string)"},
        // Commands.
        Malformed{R"({"version": 1, "commands": {"default": "never"}})",
                  "test.json:1:40: at /commands/default: unknown value 'never' (expected one of: "
                  "allow, ask, deny)"},
        Malformed{R"({"version": 1, "commands": {"defaults": "deny"}})",
                  "test.json:1:29: at /commands/defaults: unknown key 'defaults' (expected one of: "
                  "default, rules; did you mean 'default'?)"},
        Malformed{R"({"version": 1, "commands": {"rules": "git push *"}})",
                  "test.json:1:38: at /commands/rules: got \"git push *\" (expected an array of "
                  "{\"action\": …, \"match\": …})"},
        Malformed{R"({"version": 1, "commands": {"rules": [{"action": "ask"}]}})",
                  "test.json:1:39: at /commands/rules/0: missing required key 'match' (expected "
                  "\"match\": a command pattern such as \"git push *\")"},
        Malformed{R"({"version": 1, "commands": {"rules": [{"action": "ask", "pattern": "x"}]}})",
                  "test.json:1:57: at /commands/rules/0/pattern: unknown key 'pattern' (expected "
                  "one of: action, match, comment)\n"
                  "test.json:1:39: at /commands/rules/0: missing required key 'match' (expected "
                  "\"match\": a command pattern such as \"git push *\")"},
        Malformed{R"({"version": 1, "commands": {"rules": [{"action": "ask", "match": 5}]}})",
                  "test.json:1:66: at /commands/rules/0/match: got 5 (expected a command pattern "
                  "such as \"git push *\")"},
        Malformed{R"({"version": 1, "commands": {"rules": [{"action": "ask", "match": "  "}]}})",
                  "test.json:1:66: at /commands/rules/0/match: empty pattern (expected a command "
                  "such as \"git push *\")"},
        Malformed{
            R"({"version": 1, "commands": {"rules": [{"action": "ask", "match": "git commit -m 'wip"}]}})",
            "test.json:1:66: at /commands/rules/0/match: unterminated ' quote in \"git "
            "commit -m 'wip\" (expected a closing ')"},
        Malformed{
            R"({"version": 1, "commands": {"rules": [{"action": "ask", "match": "echo \"hi"}]}})",
            "test.json:1:66: at /commands/rules/0/match: unterminated \" quote in \"echo "
            "\\\"hi\" (expected a closing \")"},
        Malformed{
            R"({"version": 1, "commands": {"rules": [{"action": "deny", "match": "curl * | sh"}]}})",
            "test.json:1:67: at /commands/rules/0/match: '|' in \"curl * | sh\" is shell "
            "syntax (expected one program and its arguments; quote the character to use "
            "it literally)"},
        Malformed{
            R"({"version": 1, "commands": {"rules": [{"action": "deny", "match": "rm x\\"}]}})",
            "test.json:1:67: at /commands/rules/0/match: \"rm x\\\\\" ends with a lone "
            "'\\' (expected a character after it)"},
        // Approvals.
        Malformed{R"({"version": 1, "approvals": {"timeout_seconds": 0}})",
                  "test.json:1:49: at /approvals/timeout_seconds: 0 is out of range (expected an "
                  "integer from 1 to 86400)"},
        Malformed{R"({"version": 1, "approvals": {"timeout_seconds": 86401}})",
                  "test.json:1:49: at /approvals/timeout_seconds: 86401 is out of range (expected "
                  "an integer from 1 to 86400)"},
        Malformed{R"({"version": 1, "approvals": {"timeout_seconds": "120"}})",
                  "test.json:1:49: at /approvals/timeout_seconds: got \"120\" (expected an integer "
                  "from 1 to 86400)"},
        Malformed{R"({"version": 1, "approvals": {"on_timeout": "ask"}})",
                  "test.json:1:44: at /approvals/on_timeout: unknown value 'ask' (expected one "
                  "of: allow, deny)"},
        Malformed{R"({"version": 1, "approvals": {"timeout": 5}})",
                  "test.json:1:30: at /approvals/timeout: unknown key 'timeout' (expected one of: "
                  "timeout_seconds, on_timeout)"},
        Malformed{R"({"version": 1, "approvals": true})",
                  "test.json:1:29: at /approvals: got true (expected an object with keys: "
                  "timeout_seconds, on_timeout)"}));
