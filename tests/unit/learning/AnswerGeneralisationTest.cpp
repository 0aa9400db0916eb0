// The generalised "always" answer: the suggester's rule where it is safe (a subcommand's
// pattern, the owner's domain on the same port for the same program), saved as such by
// ruleFromAnswer, with what it also allows; the exact rule where generalising is risky.
#include "learning/AnswerGeneralisation.h"

#include "policy/LearnedRules.h"

#include <gtest/gtest.h>

namespace {

sb::ApprovalRequest command(std::vector<std::string> argv)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Command;
    r.program = "/usr/bin/" + argv.front();
    r.argv = std::move(argv);
    return r;
}

sb::ApprovalRequest connection(const std::string& host, std::uint16_t port,
                               const std::string& program)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Network;
    r.host = host;
    r.port = port;
    if (!program.empty()) r.process = {{7, program, {program}}};
    return r;
}

sb::GeneralisedAnswer generalise(const sb::ApprovalRequest& r)
{
    auto g = sb::generaliseAnswer(r);
    EXPECT_TRUE(g) << g.error().describe();
    return g ? *g : sb::GeneralisedAnswer{};
}

// What the supervisor saves for the generalised answer.
sb::LearnedRule saved(const sb::ApprovalRequest& r, const sb::GeneralisedAnswer& g)
{
    sb::ApprovalAnswer a;
    a.allow = true;
    a.duration = sb::ApprovalDuration::Always;
    auto rule = sb::ruleFromAnswer(r, sb::withGeneralisation(a, g));
    EXPECT_TRUE(rule) << rule.error().describe();
    return rule ? *rule : sb::LearnedRule{};
}

bool mentions(const std::vector<sb::Allowance>& allowances, const std::string& text)
{
    for (const auto& a : allowances)
        if (sb::describe(a).find(text) != std::string::npos) return true;
    return false;
}

TEST(AnswerGeneralisation, ASubcommandBecomesItsPatternWithWhatItAlsoAllows)
{
    const auto r = command({"git", "push", "origin", "main"});
    const auto g = generalise(r);
    EXPECT_EQ(g.scope, sb::ApprovalScope::Subcommand);
    EXPECT_EQ(g.rule, "git push *");
    EXPECT_EQ(g.exact, "/usr/bin/git push origin main");
    EXPECT_EQ(g.risk, sb::GeneralisedAnswer::Risk::None) << sb::describeRisk(g);
    EXPECT_TRUE(mentions(g.alsoAllows, "git push with any other arguments"));
    EXPECT_TRUE(mentions(g.alsoAllows, "git push --force")) << "its destructive forms are named";
    EXPECT_EQ(std::get<sb::CommandRule>(saved(r, g)).match, "git push *");

    const auto make = generalise(command({"make", "-j4"}));
    EXPECT_EQ(make.rule, "make *");
    EXPECT_FALSE(mentions(make.alsoAllows, "destructive"));
}

TEST(AnswerGeneralisation, InterpretersAndDestructiveCommandsKeepTheExactRule)
{
    for (const auto& argv : std::vector<std::vector<std::string>>{
             {"python3", "build.py"}, {"bash", "-c", "make"}, {"rm", "-rf", "build"}}) {
        const auto r = command(argv);
        const auto g = generalise(r);
        EXPECT_EQ(g.scope, sb::ApprovalScope::ExactCommand) << argv[0];
        EXPECT_FALSE(g.generalises()) << argv[0];
        EXPECT_NE(g.risk, sb::GeneralisedAnswer::Risk::None) << argv[0];
        EXPECT_TRUE(g.alsoAllows.empty()) << argv[0];
        EXPECT_EQ(std::get<sb::CommandRule>(saved(r, g)).match, g.exact);
    }
    EXPECT_NE(sb::describeRisk(generalise(command({"python3", "x.py"}))).find("python3 *"),
              std::string::npos);
}

TEST(AnswerGeneralisation, AHostBecomesItsOwnersDomainOnThePortForTheProgram)
{
    const auto r = connection("git.forge.example", 443, "/usr/bin/git");
    const auto g = generalise(r);
    EXPECT_EQ(g.scope, sb::ApprovalScope::Domain);
    EXPECT_TRUE(g.samePort && g.programOnly);
    EXPECT_EQ(g.exact, "git.forge.example port 443");
    EXPECT_EQ(g.risk, sb::GeneralisedAnswer::Risk::None) << sb::describeRisk(g);
    EXPECT_TRUE(mentions(g.alsoAllows, "every name under forge.example on port 443"));
    const auto rule = std::get<sb::NetworkRule>(saved(r, g));
    EXPECT_EQ(rule.host, "*.forge.example");
    EXPECT_EQ(rule.ports, (std::vector<std::uint16_t>{443})) << "never any port";
    EXPECT_FALSE(rule.program.empty());
    EXPECT_EQ(g.rule, "*.forge.example port 443 by " + rule.program);
    // Without a known program the rule is anyone's, and says so.
    EXPECT_TRUE(mentions(generalise(connection("docs.manual.example", 80, "")).alsoAllows,
                         "any program"));
}

TEST(AnswerGeneralisation, RiskyHostsKeepTheExactRule)
{
    using Risk = sb::GeneralisedAnswer::Risk;
    for (const auto& [r, risk] :
         {std::pair{connection("paste.drop.example", 80, "/usr/bin/curl"), Risk::TransferTool},
          std::pair{connection("alice.github.io", 443, "/usr/bin/git"), Risk::PastOwner},
          std::pair{connection("198.18.0.1", 8080, "/usr/bin/git"), Risk::Address}}) {
        const auto g = generalise(r);
        EXPECT_EQ(g.scope, sb::ApprovalScope::HostPort) << r.host;
        EXPECT_FALSE(g.generalises()) << r.host;
        EXPECT_EQ(g.risk, risk) << r.host;
        EXPECT_EQ(std::get<sb::NetworkRule>(saved(r, g)).host, r.host);
    }
}

} // namespace
