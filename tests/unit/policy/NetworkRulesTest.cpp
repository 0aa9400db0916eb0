// The network policy's decisions: host normalisation, built-in blocks, rule matching and order.
#include "policy/NetworkRules.h"

#include <gtest/gtest.h>

using namespace sb;

namespace {

NetworkPolicy policy(RuleAction defaultAction, std::vector<NetworkRule> rules)
{
    NetworkPolicy p;
    p.mode = NetworkMode::Filtered;
    p.defaultAction = defaultAction;
    p.rules = std::move(rules);
    return p;
}

NetworkRule rule(RuleAction action, std::string host, std::vector<std::uint16_t> ports = {})
{
    return NetworkRule{action, std::move(host), std::move(ports), {}};
}

NetworkRules compiled(const NetworkPolicy& p)
{
    auto rules = NetworkRules::compile(p);
    EXPECT_TRUE(rules.ok()) << (rules.ok() ? "" : rules.error().message);
    return std::move(rules).value();
}

// What the proxy does for a host the agent named: normalise, decide on the name, and for an
// address decide on it too.
NetworkDecision decideRaw(const NetworkRules& rules, std::string_view raw, std::uint16_t port)
{
    auto host = normaliseHost(raw);
    if (!host) return {RuleAction::Deny, "unparsable: " + host.error().message, true};
    return rules.decideHost(*host, port);
}

IpAddress ip(const char* text)
{
    return *IpAddress::parse(text);
}

} // namespace

TEST(NetworkRulesTest, NormalisesEveryLoopbackSpelling)
{
    for (const char* spelling :
         {"127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7F.0.0.1", "0177.0.0.1",
          "0177.0.0.01", "127.0.0.1.", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "::ffff:7f00:1",
          "017700000001", "0x7f.1"}) {
        auto host = normaliseHost(spelling);
        ASSERT_TRUE(host.ok()) << spelling << ": " << host.error().message;
        EXPECT_EQ(*host, "127.0.0.1") << spelling;
    }
    EXPECT_EQ(*normaliseHost("[::1]"), "::1");
    EXPECT_EQ(*normaliseHost("0:0:0:0:0:0:0:1"), "::1");
    EXPECT_EQ(*normaliseHost("LocalHost."), "localhost");
    EXPECT_EQ(*normaliseHost("Example.COM"), "example.com");
    EXPECT_EQ(*normaliseHost("0"), "0.0.0.0");
    EXPECT_EQ(*normaliseHost("[2001:DB8::0:1]"), "2001:db8::1");
}

TEST(NetworkRulesTest, RefusesHostsThatAreNeitherNamesNorAddresses)
{
    for (const char* bad : {"", ".", "a..b", "example.com..", "1.2.3.4.5", "256.0.0.1",
                            "0x100000000", "08.0.0.1", "[127.0.0.1]", "[::1", "fe80::1%eth0",
                            "exa mple.com", "%31%32%37.0.0.1", "evil.com/x", "a@b"}) {
        EXPECT_FALSE(normaliseHost(bad).ok()) << "accepted \"" << bad << "\"";
    }
    // Found by fuzz_http: inet_pton stops at a NUL, so "[::\0\01]" was read as "::".
    for (std::string_view bad : {std::string_view("[::\0\0"
                                                  "1]",
                                                  8),
                                 std::string_view("[::1\0x]", 8), std::string_view("exa\tmple.com"),
                                 std::string_view("a\x7f.com")})
        EXPECT_FALSE(normaliseHost(bad).ok()) << "accepted a host with a control character";
    EXPECT_FALSE(IpAddress::parse(std::string_view("127.0.0.1\0evil", 14)).has_value());
    auto idn = normaliseHost("bücher.example");
    ASSERT_FALSE(idn.ok());
    EXPECT_NE(idn.error().message.find("xn--"), std::string::npos) << idn.error().message;
    EXPECT_FALSE(normaliseHost(std::string(64, 'a') + ".com").ok());
    EXPECT_TRUE(normaliseHost(std::string(63, 'a') + ".com").ok());
    EXPECT_TRUE(normaliseHost("_srv.example.com").ok());
}

TEST(NetworkRulesTest, RefusesEveryLoopbackSpellingUnderDefaultAllow)
{
    auto rules = compiled(policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")}));
    for (const char* spelling :
         {"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::1]", "::1",
          "::ffff:127.0.0.1", "localhost", "localhost.", "LOCALHOST", "app.localhost", "127.8.9.10",
          "0.0.0.0", "0", "[::]", "[::ffff:7f00:1]", "64:ff9b::7f00:1"}) {
        auto d = decideRaw(rules, spelling, 80);
        EXPECT_EQ(d.action, RuleAction::Deny) << spelling;
        EXPECT_NE(d.rule.find("built-in"), std::string::npos) << spelling << ": " << d.rule;
    }
}

TEST(NetworkRulesTest, RefusesMetadataAndLinkLocal)
{
    auto rules = compiled(policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")}));
    for (const char* spelling :
         {"169.254.169.254", "0xa9fea9fe", "2852039166", "[fd00:ec2::254]", "169.254.1.1",
          "fe80::1", "metadata.google.internal", "100.100.100.200", "::ffff:169.254.169.254"}) {
        auto d = decideRaw(rules, spelling, 80);
        EXPECT_EQ(d.action, RuleAction::Deny) << spelling;
        EXPECT_NE(d.rule.find("built-in"), std::string::npos) << spelling << ": " << d.rule;
    }
    EXPECT_NE(decideRaw(rules, "169.254.169.254", 80).rule.find("metadata"), std::string::npos);
    // A wide range does not name the metadata address; only the address itself does.
    auto wide = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "169.254.0.0/16")}));
    EXPECT_EQ(decideRaw(wide, "169.254.1.1", 80).action, RuleAction::Allow);
    EXPECT_EQ(decideRaw(wide, "169.254.169.254", 80).action, RuleAction::Deny);
    auto exact = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "169.254.169.254")}));
    EXPECT_EQ(decideRaw(exact, "169.254.169.254", 80).action, RuleAction::Allow);
}

TEST(NetworkRulesTest, PrivateRangesNeedARuleThatNamesThem)
{
    const char* privates[] = {"10.1.2.3",   "172.16.0.1", "172.31.255.255", "192.168.1.1",
                              "100.64.0.1", "fc00::1",    "fd12:3456::1",   "0.1.2.3"};
    auto broad = compiled(policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")}));
    for (const char* host : privates)
        EXPECT_EQ(decideRaw(broad, host, 443).action, RuleAction::Deny) << host;
    // Not private: just outside the ranges.
    for (const char* host : {"172.32.0.1", "11.0.0.1", "100.128.0.1", "192.169.0.1"})
        EXPECT_EQ(decideRaw(broad, host, 443).action, RuleAction::Allow) << host;

    auto named = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "10.0.0.0/8"),
                                                    rule(RuleAction::Allow, "192.168.1.1"),
                                                    rule(RuleAction::Ask, "fc00::/7")}));
    EXPECT_EQ(decideRaw(named, "10.1.2.3", 443).action, RuleAction::Allow);
    EXPECT_EQ(decideRaw(named, "192.168.1.1", 443).action, RuleAction::Allow);
    EXPECT_EQ(decideRaw(named, "192.168.1.2", 443).action, RuleAction::Deny);
    EXPECT_EQ(decideRaw(named, "fd00::5", 443).action, RuleAction::Ask);
    // A range wider than the block does not count as naming it.
    auto wide = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "0.0.0.0/0")}));
    EXPECT_EQ(decideRaw(wide, "10.1.2.3", 443).action, RuleAction::Deny);
    EXPECT_EQ(decideRaw(wide, "8.8.8.8", 443).action, RuleAction::Allow);
    // *.suffix never opens a private destination, even when the name matches.
    auto suffix = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "*.corp.example")}));
    EXPECT_EQ(suffix.decideAddress("git.corp.example", ip("10.0.0.7"), 443).action,
              RuleAction::Deny);
    EXPECT_EQ(suffix.decideAddress("git.corp.example", ip("93.184.216.34"), 443).action,
              RuleAction::Allow);
    // An exact name opens what it resolves to.
    auto exactName = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "git.corp.example"),
                                                        rule(RuleAction::Allow, "localhost")}));
    EXPECT_EQ(exactName.decideAddress("git.corp.example", ip("10.0.0.7"), 443).action,
              RuleAction::Allow);
    EXPECT_EQ(exactName.decideHost("localhost", 8080).action, RuleAction::Allow);
    EXPECT_EQ(exactName.decideAddress("localhost", ip("127.0.0.1"), 8080).action,
              RuleAction::Allow);
}

TEST(NetworkRulesTest, ResolvedAddressIsCheckedToo)
{
    auto rules = compiled(policy(RuleAction::Allow, {rule(RuleAction::Deny, "203.0.113.0/24")}));
    auto byName = rules.decideHost("rebind.example", 80);
    EXPECT_EQ(byName.action, RuleAction::Allow);
    EXPECT_FALSE(byName.final); // must still check the address
    EXPECT_EQ(rules.decideAddress("rebind.example", ip("127.0.0.1"), 80).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideAddress("rebind.example", ip("::ffff:10.0.0.1"), 80).action,
              RuleAction::Deny);
    auto cidr = rules.decideAddress("rebind.example", ip("203.0.113.9"), 80);
    EXPECT_EQ(cidr.action, RuleAction::Deny);
    EXPECT_EQ(cidr.rule, "rule 1 (deny 203.0.113.0/24)");
    EXPECT_EQ(rules.decideAddress("rebind.example", ip("198.51.100.1"), 80).action,
              RuleAction::Allow);
}

TEST(NetworkRulesTest, HostOwnAddressesAreDeniedUnlessNamed)
{
    std::vector<IpAddress> own = {ip("198.51.100.7")};
    auto rules = compiled(policy(RuleAction::Allow, {rule(RuleAction::Allow, "198.51.100.0/24")}));
    auto d = rules.decideHost("198.51.100.7", 22, own);
    EXPECT_EQ(d.action, RuleAction::Deny);
    EXPECT_NE(d.rule.find("own address"), std::string::npos) << d.rule;
    EXPECT_EQ(rules.decideHost("198.51.100.8", 22, own).action, RuleAction::Allow);
    auto named = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "198.51.100.7")}));
    EXPECT_EQ(named.decideHost("198.51.100.7", 22, own).action, RuleAction::Allow);
}

TEST(NetworkRulesTest, SuffixMatchesTheDomainAndItsSubdomains)
{
    auto rules = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "*.github.com")}));
    EXPECT_EQ(rules.decideHost("github.com", 443).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("api.github.com", 443).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("a.b.github.com", 443).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("evilgithub.com", 443).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("github.com.evil.net", 443).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("api.github.com", 443).rule, "rule 1 (allow *.github.com)");
    EXPECT_EQ(rules.decideHost("example.org", 443).rule, "default (deny)");
}

TEST(NetworkRulesTest, CidrRangesV4AndV6)
{
    auto rules = compiled(policy(RuleAction::Ask, {rule(RuleAction::Allow, "198.51.100.0/25"),
                                                   rule(RuleAction::Deny, "2001:db8::/32"),
                                                   rule(RuleAction::Allow, "2001:db9::1")}));
    EXPECT_EQ(rules.decideHost("198.51.100.127", 80).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("198.51.100.128", 80).action, RuleAction::Ask);
    EXPECT_EQ(rules.decideHost("2001:db8:ffff::1", 80).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("2001:db9::1", 80).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("2001:db9::2", 80).action, RuleAction::Ask);
    // An IPv4 range does not match IPv6 addresses except the IPv4-mapped ones.
    EXPECT_EQ(*normaliseHost("::ffff:198.51.100.1"), "198.51.100.1");
    EXPECT_EQ(decideRaw(rules, "::ffff:198.51.100.1", 80).action, RuleAction::Allow);
}

TEST(NetworkRulesTest, PortLists)
{
    auto rules =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "example.com", {80, 443})}));
    EXPECT_EQ(rules.decideHost("example.com", 443).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("example.com", 80).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("example.com", 22).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("example.com", 443).rule, "rule 1 (allow example.com ports 80,443)");
}

TEST(NetworkRulesTest, FirstMatchWins)
{
    auto rules = compiled(policy(RuleAction::Ask, {rule(RuleAction::Allow, "api.example.com"),
                                                   rule(RuleAction::Deny, "*.example.com"),
                                                   rule(RuleAction::Allow, "*")}));
    EXPECT_EQ(rules.decideHost("api.example.com", 443).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("www.example.com", 443).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("www.example.com", 443).rule, "rule 2 (deny *.example.com)");
    EXPECT_EQ(rules.decideHost("example.net", 443).rule, "rule 3 (allow *)");
    // Order matters between different specificities: a broad deny first hides a later allow.
    auto broadFirst =
        compiled(policy(RuleAction::Ask, {rule(RuleAction::Deny, "*.example.com"),
                                          rule(RuleAction::Allow, "api.example.com")}));
    EXPECT_EQ(broadFirst.decideHost("api.example.com", 443).action, RuleAction::Deny);
}

TEST(NetworkRulesTest, DenyBeatsAllowAtEqualSpecificity)
{
    auto rules = compiled(policy(
        RuleAction::Allow,
        {rule(RuleAction::Allow, "api.example.com"), rule(RuleAction::Deny, "API.example.com."),
         rule(RuleAction::Allow, "*.example.org"), rule(RuleAction::Ask, "*.example.org"),
         rule(RuleAction::Allow, "10.0.0.0/8"), rule(RuleAction::Deny, "10.0.0.0/8")}));
    auto d = rules.decideHost("api.example.com", 443);
    EXPECT_EQ(d.action, RuleAction::Deny);
    EXPECT_EQ(d.rule, "rule 2 (deny API.example.com.)");
    EXPECT_EQ(rules.decideHost("www.example.org", 443).action, RuleAction::Ask);
    EXPECT_EQ(rules.decideHost("10.2.3.4", 443).action, RuleAction::Deny);
    // With a port list a rule is more specific than without: no tie, first match wins.
    auto ports = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "example.com", {443}),
                                                    rule(RuleAction::Deny, "example.com")}));
    EXPECT_EQ(ports.decideHost("example.com", 443).action, RuleAction::Allow);
    EXPECT_EQ(ports.decideHost("example.com", 80).action, RuleAction::Deny);
}

TEST(NetworkRulesTest, DenialByNameSkipsDnsUnlessAnAddressRuleCouldAllow)
{
    auto nameOnly = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "*.example.com")}));
    EXPECT_TRUE(nameOnly.decideHost("evil.net", 443).final);
    auto withCidr =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "198.51.100.0/24")}));
    auto d = withCidr.decideHost("mirror.example", 443);
    EXPECT_EQ(d.action, RuleAction::Deny);
    EXPECT_FALSE(d.final);
    EXPECT_EQ(withCidr.decideAddress("mirror.example", ip("198.51.100.4"), 443).action,
              RuleAction::Allow);
    // Issue 26, item 10: an address rule limited to other ports cannot allow this one, so the
    // denied name is not looked up.
    auto otherPort =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "198.51.100.0/24", {5432})}));
    EXPECT_TRUE(otherPort.decideHost("evil.net", 443).final);
    EXPECT_FALSE(otherPort.decideHost("db.internal", 5432).final);
    auto denyingCidr =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Deny, "203.0.113.0/24")}));
    EXPECT_TRUE(denyingCidr.decideHost("evil.net", 443).final);
}

// Issue 26, item 10: a rule's comment reaches the denial (and any decision) that names it.
TEST(NetworkRulesTest, TheRuleNamedCarriesItsComment)
{
    NetworkRule office{RuleAction::Deny, "10.0.0.0/8", {}, "the office network"};
    auto rules = compiled(policy(RuleAction::Allow, {office}));
    auto d = rules.decideAddress("intranet.example", ip("10.1.2.3"), 443);
    EXPECT_EQ(d.action, RuleAction::Deny);
    EXPECT_EQ(d.rule, "rule 1 (deny 10.0.0.0/8: the office network)");
}

TEST(NetworkRulesTest, ModeNoneDeniesEverything)
{
    auto p = policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")});
    p.mode = NetworkMode::None;
    auto rules = compiled(p);
    EXPECT_EQ(rules.decideHost("example.com", 443).action, RuleAction::Deny);
}

TEST(NetworkRulesTest, InvalidPatternsAreRefusedWithTheirPosition)
{
    for (const char* bad : {"*.10.0.0.1", "foo*.com", "**", "10.0.0.0/33", "::/129", "10.0.0.0/",
                            "example.com/8", "bücher.de", "*."}) {
        auto rules = NetworkRules::compile(policy(
            RuleAction::Deny, {rule(RuleAction::Allow, "ok.com"), rule(RuleAction::Allow, bad)}));
        ASSERT_FALSE(rules.ok()) << bad;
        EXPECT_NE(rules.error().message.find("network rule 2"), std::string::npos)
            << rules.error().message;
    }
    // Host bits below the prefix are dropped: 10.1.2.3/8 is 10.0.0.0/8.
    auto masked = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "10.1.2.3/8")}));
    EXPECT_EQ(masked.decideHost("10.9.9.9", 80).action, RuleAction::Allow);
}

TEST(NetworkRulesTest, OneShotFormsMatchTheCompiledOnes)
{
    auto p = policy(RuleAction::Ask, {rule(RuleAction::Deny, "10.0.0.0/8")});
    EXPECT_EQ(decideHost(p, "example.com", 443).action, RuleAction::Ask);
    sockaddr_storage storage{};
    socklen_t length = 0;
    storage = ip("10.0.0.1").toSockaddr(443, length);
    auto d = decideAddress(p, "example.com", storage, 443);
    EXPECT_EQ(d.action, RuleAction::Deny);
    EXPECT_EQ(d.rule, "rule 1 (deny 10.0.0.0/8)");
}

TEST(NetworkRulesTest, CouldAllowHostLooksAtEveryPort)
{
    // Denied by default, allowed on one port only: the name may be looked up.
    auto onePort =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "git.example.com", {22})}));
    EXPECT_TRUE(onePort.couldAllowHost("git.example.com"));
    EXPECT_FALSE(onePort.couldAllowHost("other.example.com"));
    // A deny on the listed port and the default on every other port.
    auto closed = compiled(policy(RuleAction::Deny, {rule(RuleAction::Deny, "x.com", {443})}));
    EXPECT_FALSE(closed.couldAllowHost("x.com"));
    // Asking counts as possibly allowed; an earlier deny of the same name does not hide an
    // allow on a port it does not list.
    auto asks = compiled(policy(RuleAction::Ask, {rule(RuleAction::Deny, "*.evil.com")}));
    EXPECT_FALSE(asks.couldAllowHost("a.evil.com"));
    EXPECT_TRUE(asks.couldAllowHost("good.com"));
    auto split = compiled(policy(RuleAction::Deny, {rule(RuleAction::Deny, "y.com", {80}),
                                                    rule(RuleAction::Allow, "y.com")}));
    EXPECT_TRUE(split.couldAllowHost("y.com"));
    EXPECT_FALSE(split.decideHost("y.com", 80).action == RuleAction::Allow);
}

TEST(NetworkRulesTest, CouldAllowHostKeepsTheBuiltInBlocks)
{
    auto any = compiled(policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")}));
    EXPECT_FALSE(any.couldAllowHost("localhost"));
    EXPECT_FALSE(any.couldAllowHost("metadata.google.internal"));
    EXPECT_TRUE(any.couldAllowHost("example.com"));
    auto named = compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "localhost")}));
    EXPECT_TRUE(named.couldAllowHost("localhost"));
    // A name denied by its rules may still reach an address an address rule allows.
    auto byAddress =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "203.0.113.0/24")}));
    EXPECT_TRUE(byAddress.couldAllowHost("anything.example"));
    EXPECT_TRUE(byAddress.couldAllowAddress("anything.example", ip("203.0.113.9")));
    EXPECT_FALSE(byAddress.couldAllowAddress("anything.example", ip("198.51.100.1")));
    // Resolved addresses meet the blocks: allow * never opens a private address.
    EXPECT_FALSE(any.couldAllowAddress("example.com", ip("10.0.0.1")));
    EXPECT_FALSE(any.couldAllowAddress("example.com", ip("::1")));
    EXPECT_TRUE(any.couldAllowAddress("example.com", ip("2001:db8::1")));
    auto intranet =
        compiled(policy(RuleAction::Deny, {rule(RuleAction::Allow, "git.corp", {443})}));
    EXPECT_TRUE(intranet.couldAllowAddress("git.corp", ip("10.1.2.3")));
    NetworkPolicy none = policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")});
    none.mode = NetworkMode::None;
    EXPECT_FALSE(compiled(none).couldAllowHost("example.com"));
}
