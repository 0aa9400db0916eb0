// Lists of allowed and denied destinations over a policy's network rules (E2B's allowOut and
// denyOut): which decision a connection then gets.
#include "policy/DestinationLists.h"

#include "policy/NetworkRules.h"

#include <gtest/gtest.h>

namespace {

sb::NetworkPolicy filtered(sb::RuleAction fallback = sb::RuleAction::Ask)
{
    sb::NetworkPolicy p;
    p.mode = sb::NetworkMode::Filtered;
    p.defaultAction = fallback;
    p.rules = {{sb::RuleAction::Deny, "*.blocked.test", {}, "the template's"},
               {sb::RuleAction::Ask, "*.asked.test", {}, "the template's"}};
    return p;
}

sb::RuleAction decision(const sb::NetworkPolicy& p, const std::string& host)
{
    auto rules = sb::NetworkRules::compile(p);
    EXPECT_TRUE(rules) << rules.error().message;
    return rules->decideHost(host, 443).action;
}

} // namespace

TEST(DestinationLists, AllowedOnesWinOverDeniedOnesAndEverythingIsZeroSlashZero)
{
    auto p = filtered();
    ASSERT_FALSE(
        sb::applyDestinationLists(p, {"api.example.com", "*.pkg.test"}, {"0.0.0.0/0"}, "network"));
    EXPECT_EQ(decision(p, "api.example.com"), sb::RuleAction::Allow);
    EXPECT_EQ(decision(p, "deb.pkg.test"), sb::RuleAction::Allow);
    EXPECT_EQ(decision(p, "other.example.com"), sb::RuleAction::Deny);
    EXPECT_EQ(decision(p, "2001:db8::1"), sb::RuleAction::Deny) << "0.0.0.0/0 covers IPv6 too";
    EXPECT_EQ(decision(p, "x.asked.test"), sb::RuleAction::Deny)
        << "the caller's deny comes before the template's ask";
}

TEST(DestinationLists, TheTemplatesDenyRulesStayFirst)
{
    auto p = filtered(sb::RuleAction::Allow);
    ASSERT_FALSE(sb::applyDestinationLists(p, {"a.blocked.test"}, {"10.0.0.0/8"}, "network"));
    EXPECT_EQ(decision(p, "a.blocked.test"), sb::RuleAction::Deny);
    EXPECT_EQ(decision(p, "10.1.2.3"), sb::RuleAction::Deny);
    EXPECT_EQ(decision(p, "x.asked.test"), sb::RuleAction::Ask);
    EXPECT_EQ(decision(p, "anything.test"), sb::RuleAction::Allow) << "the default stays";
    const auto described = sb::NetworkRules::compile(p)->decideHost("10.1.2.3", 80).rule;
    EXPECT_NE(described.find("network.denyOut"), std::string::npos) << described;
}

TEST(DestinationLists, RefusedWhereTheyCannotApply)
{
    auto p = filtered();
    auto bad = sb::applyDestinationLists(p, {"not a host"}, {}, "network");
    ASSERT_TRUE(bad);
    EXPECT_NE(bad->message.find("network.allowOut[0] 'not a host'"), std::string::npos)
        << bad->message;
    EXPECT_EQ(p.rules.size(), 2u) << "a refused list changes nothing";

    sb::NetworkPolicy host;
    host.mode = sb::NetworkMode::Host;
    auto onHost = sb::applyDestinationLists(host, {}, {"10.0.0.0/8"}, "network");
    ASSERT_TRUE(onHost);
    EXPECT_NE(onHost->message.find("mode host"), std::string::npos);

    sb::NetworkPolicy none;
    none.mode = sb::NetworkMode::None;
    auto allowNone = sb::applyDestinationLists(none, {"example.com"}, {}, "network");
    ASSERT_TRUE(allowNone);
    EXPECT_NE(allowNone->message.find("mode none"), std::string::npos);
    EXPECT_FALSE(sb::applyDestinationLists(none, {}, {"0.0.0.0/0"}, "network"))
        << "denying what is unreachable is no error";
    EXPECT_FALSE(sb::applyDestinationLists(p, {}, {}, "network"));
    EXPECT_EQ(p.rules.size(), 2u);
}
