// Network rules that name a program or a command (issue 34): the schema, the decisions with and
// without a known process, the resolver's "could allow", session answers and learned rules.
#include "policy/LearnedRules.h"
#include "policy/NetworkRules.h"
#include "policy/PolicyJson.h"
#include "policy/PolicyTestSupport.h"
#include "policy/SessionAnswers.h"

#include <gtest/gtest.h>

using namespace sb;

namespace {

NetworkRule rule(RuleAction action, std::string host, std::vector<std::uint16_t> ports,
                 std::string program, std::string command = {})
{
    NetworkRule r{action, std::move(host), std::move(ports), {}};
    r.program = std::move(program);
    r.command = std::move(command);
    return r;
}

NetworkRules compiled(RuleAction defaultAction, std::vector<NetworkRule> rules)
{
    NetworkPolicy p;
    p.defaultAction = defaultAction;
    p.rules = std::move(rules);
    auto out = NetworkRules::compile(p);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
    return std::move(out).value();
}

ProcessInfo process(std::string program, std::vector<std::string> argv)
{
    return ProcessInfo{0, std::move(program), std::move(argv)};
}

// ssh run by `git push`, run by the agent's shell: the process first, then its parents.
const ProcessChain kSshFromGit{process("/usr/bin/ssh", {"ssh", "git@github.com"}),
                               process("/usr/bin/git", {"git", "push", "origin"}),
                               process("/usr/bin/bash", {"bash"})};
const ProcessChain kCurl{process("/usr/bin/curl", {"curl", "https://github.com"}),
                         process("/usr/bin/bash", {"bash"})};

} // namespace

TEST(ClientPattern, SchemaAcceptsProgramAndCommandAndWritesThemBack)
{
    const Policy p = sbtest::accepted(R"({"version": 1, "network": {"rules": [
        {"action": "allow", "host": "github.com", "ports": [22], "program": "/usr/bin/ssh"},
        {"action": "allow", "host": "github.com", "command": "git *"},
        {"action": "ask", "host": "*", "program": "node", "command": "npm install *"}]}})");
    ASSERT_EQ(p.network.rules.size(), 3u);
    EXPECT_EQ(p.network.rules[0].program, "/usr/bin/ssh");
    EXPECT_EQ(p.network.rules[0].command, "");
    EXPECT_EQ(p.network.rules[1].command, "git *");
    EXPECT_EQ(p.network.rules[2].program, "node");
    EXPECT_EQ(p.network.rules[2].command, "npm install *");
    // The effective policy the window shows reads back to the same rules.
    auto again = parsePolicy(policyToJson(p).dump(), "again.json");
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->network.rules[2].program, "node");
    EXPECT_EQ(again->network.rules[2].command, "npm install *");
    EXPECT_EQ(again->network.rules[0].command, "");
}

TEST(ClientPattern, SchemaRefusesBadProgramsAndCommandsAtTheirValue)
{
    EXPECT_EQ(sbtest::refusal(R"({"version": 1, "network": {"rules": [
  {"action": "allow", "host": "x.com", "program": "bin/ssh"}]}})"),
              "test.json:2:51: at /network/rules/0/program: 'bin/ssh' is neither an absolute path "
              "nor a file name (expected a path such as \"/usr/bin/ssh\" or a file name such as "
              "\"ssh\")");
    EXPECT_EQ(sbtest::refusal(R"({"version": 1, "network": {"rules": [
  {"action": "allow", "host": "x.com", "program": ""}]}})"),
              "test.json:2:51: at /network/rules/0/program: empty program (expected a path such "
              "as \"/usr/bin/ssh\" or a file name such as \"ssh\")");
    EXPECT_EQ(sbtest::refusal(R"({"version": 1, "network": {"rules": [
  {"action": "allow", "host": "x.com", "program": ["ssh"]}]}})"),
              "test.json:2:51: at /network/rules/0/program: got an array (expected a program's "
              "path such as \"/usr/bin/ssh\")");
    EXPECT_EQ(sbtest::refusal(R"({"version": 1, "network": {"rules": [
  {"action": "allow", "host": "x.com", "command": "git push | sh"}]}})"),
              "test.json:2:51: at /network/rules/0/command: '|' in \"git push | sh\" is shell "
              "syntax (expected one program and its arguments; quote the character to use it "
              "literally)");
    // A misspelt key is still refused by name, with the new keys among the expected ones.
    EXPECT_EQ(sbtest::refusal(R"({"version": 1, "network": {"rules": [
  {"action": "allow", "host": "x.com", "programme": "ssh"}]}})"),
              "test.json:2:40: at /network/rules/0/programme: unknown key 'programme' (expected "
              "one of: action, host, ports, program, command, comment; did you mean "
              "'program'?)");
}

TEST(ClientPattern, ProgramMatchesTheConnectingExecutable)
{
    auto rules =
        compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {22}, "/usr/bin/ssh")});
    auto d = rules.decideHost("github.com", 22, {}, kSshFromGit);
    EXPECT_EQ(d.action, RuleAction::Allow);
    EXPECT_EQ(d.rule, "rule 1 (allow github.com port 22 program /usr/bin/ssh)");
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, kCurl).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("github.com", 443, {}, kSshFromGit).action, RuleAction::Deny);
    // A program is the connecting process only: bash, an ancestor of both, does not count.
    auto bash = compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {}, "bash")});
    EXPECT_EQ(bash.decideHost("github.com", 22, {}, kCurl).action, RuleAction::Deny);
    // A file name matches in any folder; a path glob stays within its folder.
    auto byName = compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {}, "ssh")});
    ProcessChain local = kSshFromGit;
    local[0].program = "/usr/local/bin/ssh";
    EXPECT_EQ(byName.decideHost("github.com", 22, {}, local).action, RuleAction::Allow);
    auto glob =
        compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {}, "/usr/bin/*")});
    EXPECT_EQ(glob.decideHost("github.com", 22, {}, kSshFromGit).action, RuleAction::Allow);
    EXPECT_EQ(glob.decideHost("github.com", 22, {}, local).action, RuleAction::Deny);
    ProcessChain deeper = kSshFromGit;
    deeper[0].program = "/usr/bin/x/ssh";
    EXPECT_EQ(glob.decideHost("github.com", 22, {}, deeper).action, RuleAction::Deny);
}

TEST(ClientPattern, CommandMatchesTheProcessOrAnyOfItsParents)
{
    auto rules =
        compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {22}, "", "git *")});
    // git is ssh's parent: its `git push origin` matches "git *".
    auto d = rules.decideHost("github.com", 22, {}, kSshFromGit);
    EXPECT_EQ(d.action, RuleAction::Allow);
    EXPECT_EQ(d.rule, "rule 1 (allow github.com port 22 command \"git *\")");
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, kCurl).action, RuleAction::Deny);
    // The process itself counts too.
    const ProcessChain gitItself{process("/usr/bin/git", {"git", "fetch"})};
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, gitItself).action, RuleAction::Allow);
    // Arguments matter as in commands.rules: "git push *" is not a fetch.
    auto push =
        compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {}, "", "git push *")});
    EXPECT_EQ(push.decideHost("github.com", 22, {}, kSshFromGit).action, RuleAction::Allow);
    EXPECT_EQ(push.decideHost("github.com", 22, {}, gitItself).action, RuleAction::Deny);
}

TEST(ClientPattern, ProgramAndCommandMustBothMatch)
{
    // ssh, and only when git started it.
    auto rules = compiled(RuleAction::Deny,
                          {rule(RuleAction::Allow, "github.com", {22}, "/usr/bin/ssh", "git *")});
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, kSshFromGit).action, RuleAction::Allow);
    const ProcessChain sshAlone{process("/usr/bin/ssh", {"ssh", "git@github.com"}),
                                process("/usr/bin/bash", {"bash"})};
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, sshAlone).action, RuleAction::Deny);
    const ProcessChain curlFromGit{process("/usr/bin/curl", {"curl", "x"}),
                                   process("/usr/bin/git", {"git", "push"})};
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, curlFromGit).action, RuleAction::Deny);
}

TEST(ClientPattern, AnUnknownProcessFallsToTheNextRulesAndTheDefault)
{
    auto rules =
        compiled(RuleAction::Ask, {rule(RuleAction::Allow, "github.com", {22}, "/usr/bin/ssh"),
                                   rule(RuleAction::Deny, "github.com", {22}, "", "curl *"),
                                   rule(RuleAction::Allow, "github.com", {443}, "")});
    // No process (an older caller): the program rule is skipped, and so is the command deny.
    auto d = rules.decideHost("github.com", 22);
    EXPECT_EQ(d.action, RuleAction::Ask);
    EXPECT_EQ(d.rule, "default (ask)");
    EXPECT_EQ(rules.decideHost("github.com", 443).action, RuleAction::Allow);
    // A process whose executable could not be read is unknown to a program rule.
    ProcessChain unreadable = kSshFromGit;
    unreadable[0].program.clear();
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, unreadable).rule, "default (ask)");
    const auto address = *IpAddress::parse("140.82.112.4");
    EXPECT_EQ(rules.decideAddress("github.com", address, 22).action, RuleAction::Ask);
    EXPECT_EQ(rules.decideAddress("github.com", address, 22, {}, kSshFromGit).action,
              RuleAction::Allow);
}

TEST(ClientPattern, AProgramRuleIsNarrowerThanTheSameRuleForEveryone)
{
    // Rules of equal specificity let a later, stricter one win; naming a program makes a rule
    // more specific, so "ssh may, nobody else" reads as written.
    auto rules = compiled(RuleAction::Ask, {rule(RuleAction::Allow, "github.com", {}, "ssh"),
                                            rule(RuleAction::Deny, "github.com", {}, "")});
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, kSshFromGit).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, kCurl).action, RuleAction::Deny);
    EXPECT_EQ(rules.decideHost("github.com", 22).action, RuleAction::Deny);
}

TEST(ClientPattern, TheResolverCountsAProgramRuleThatMayAllow)
{
    // The lookup does not know who asks: a rule allowing one program lets the name resolve.
    auto onlySsh = compiled(RuleAction::Deny, {rule(RuleAction::Allow, "github.com", {22}, "ssh")});
    EXPECT_TRUE(onlySsh.couldAllowHost("github.com"));
    EXPECT_FALSE(onlySsh.couldAllowHost("gitlab.com"));
    const auto address = *IpAddress::parse("140.82.112.4");
    EXPECT_TRUE(onlySsh.couldAllowAddress("github.com", address));
    // A program-limited address rule makes a denial by name provisional for that program only.
    auto byAddress =
        compiled(RuleAction::Deny, {rule(RuleAction::Allow, "140.82.112.0/20", {}, "ssh")});
    EXPECT_TRUE(byAddress.couldAllowHost("github.com"));
    EXPECT_FALSE(byAddress.decideHost("github.com", 22, {}, kSshFromGit).final);
    EXPECT_TRUE(byAddress.decideHost("github.com", 22, {}, kCurl).final);
    // A deny naming one program never hides what others may do.
    auto notCurl = compiled(RuleAction::Allow, {rule(RuleAction::Deny, "github.com", {}, "curl")});
    EXPECT_TRUE(notCurl.couldAllowHost("github.com"));
    EXPECT_TRUE(notCurl.couldAllowAddress("github.com", address));
    // A deny for everyone still keeps the name unresolved.
    auto closed = compiled(RuleAction::Deny, {rule(RuleAction::Deny, "github.com", {}, ""),
                                              rule(RuleAction::Allow, "github.com", {}, "ssh")});
    EXPECT_FALSE(closed.couldAllowHost("github.com"));
}

TEST(ClientPattern, SessionAnswersForOneProgram)
{
    SessionAnswers answers;
    answers.add(rule(RuleAction::Allow, "github.com", {22}, "/usr/bin/ssh"));
    EXPECT_EQ(answers.decideConnection("github.com", 22, kSshFromGit), std::optional(true));
    EXPECT_EQ(answers.decideConnection("github.com", 22, kCurl), std::nullopt);
    EXPECT_EQ(answers.decideConnection("github.com", 22), std::nullopt);
    // They travel to clients and back with their program.
    auto again = SessionAnswers::fromJson(answers.toJson());
    ASSERT_EQ(again.network().size(), 1u);
    EXPECT_EQ(again.network()[0].program, "/usr/bin/ssh");
    EXPECT_EQ(again.decideConnection("github.com", 22, kCurl), std::nullopt);
}

TEST(ClientPattern, AnAnswerForThisProgramOnlyMakesARuleNamingIt)
{
    ApprovalRequest r;
    r.kind = ApprovalKind::Network;
    r.host = "GitHub.com";
    r.port = 22;
    r.process = {process("/opt/tools [v2]/ssh", {"ssh", "git@github.com"})};
    ApprovalAnswer a{true, ApprovalScope::HostPort, ApprovalDuration::Always, "gui"};
    a.programOnly = true;
    auto made = ruleFromAnswer(r, a);
    ASSERT_TRUE(made) << made.error().message;
    const auto& n = std::get<NetworkRule>(*made);
    EXPECT_EQ(n.host, "github.com");
    EXPECT_EQ(n.ports, (std::vector<std::uint16_t>{22}));
    EXPECT_EQ(n.program, "/opt/tools \\[v2\\]/ssh"); // the exact path, not a glob
    EXPECT_EQ(n.comment,
              "learned: allowed always by gui when asked about GitHub.com:22 from /opt/tools "
              "[v2]/ssh");
    const ProcessChain same = r.process;
    const ProcessChain other{process("/opt/tools v/ssh", {"ssh"})};
    auto rules = compiled(RuleAction::Deny, {n});
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, same).action, RuleAction::Allow);
    EXPECT_EQ(rules.decideHost("github.com", 22, {}, other).action, RuleAction::Deny);

    // Without a known program there is nothing to limit the rule to.
    r.process.clear();
    auto unknown = ruleFromAnswer(r, a);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().message, "the program that connected to GitHub.com is unknown, so "
                                       "the answer cannot be limited to it");
    // A command's scopes name its program already.
    ApprovalRequest command;
    command.kind = ApprovalKind::Command;
    command.program = "/usr/bin/git";
    command.argv = {"git", "push"};
    a.scope = ApprovalScope::AnyArguments;
    EXPECT_FALSE(ruleFromAnswer(command, a));
}

TEST(ClientPattern, LearnedProgramRulesAreKeptApartAndGoBeforeABroaderDeny)
{
    const std::filesystem::path file =
        std::filesystem::path(testing::TempDir()) / "client-rules.learned.json";
    std::filesystem::remove(file);
    const NetworkRule forSsh = rule(RuleAction::Allow, "github.com", {22}, "/usr/bin/ssh");
    const NetworkRule forAll = rule(RuleAction::Deny, "github.com", {22}, "");
    ASSERT_FALSE(appendLearnedRule(file, forSsh));
    ASSERT_FALSE(appendLearnedRule(file, forAll)); // another target: both are kept
    auto loaded = loadLearnedRules(file);
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_EQ(loaded->network.size(), 2u);
    EXPECT_EQ(loaded->network[0].program, "/usr/bin/ssh");
    EXPECT_EQ(loaded->network[1].program, "");

    // The narrower learned allow goes before the user's deny of the same host and port.
    Policy policy;
    policy.network.defaultAction = RuleAction::Deny;
    policy.network.rules = {forAll};
    mergeLearned(policy, LearnedRules{{}, {forSsh}});
    ASSERT_EQ(policy.network.rules.size(), 2u);
    EXPECT_EQ(policy.network.rules[0].program, "/usr/bin/ssh");
    auto rules = NetworkRules::compile(policy.network);
    ASSERT_TRUE(rules);
    EXPECT_EQ(rules->decideHost("github.com", 22, {}, kSshFromGit).action, RuleAction::Allow);
    EXPECT_EQ(rules->decideHost("github.com", 22, {}, kCurl).action, RuleAction::Deny);
    std::filesystem::remove(file);
}
