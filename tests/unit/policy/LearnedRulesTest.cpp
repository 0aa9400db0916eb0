#include "policy/LearnedRules.h"

#include "TestSupport.h"
#include "policy/CommandRules.h"

#include <cstdlib>
#include <thread>

namespace fs = std::filesystem;

namespace {

sb::ApprovalRequest commandRequest(std::string program, std::vector<std::string> argv)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Command;
    r.program = std::move(program);
    r.argv = std::move(argv);
    return r;
}

sb::ApprovalRequest networkRequest(std::string host, std::uint16_t port)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Network;
    r.host = std::move(host);
    r.port = port;
    r.protocol = "connect";
    return r;
}

sb::ApprovalAnswer answer(bool allow, sb::ApprovalScope scope,
                          sb::ApprovalDuration duration = sb::ApprovalDuration::Always)
{
    return sb::ApprovalAnswer{allow, scope, duration, "gui"};
}

sb::CommandRule commandRule(const sb::ApprovalRequest& r, const sb::ApprovalAnswer& a)
{
    auto rule = sb::ruleFromAnswer(r, a);
    EXPECT_TRUE(rule) << rule.error().message;
    return rule ? std::get<sb::CommandRule>(*rule) : sb::CommandRule{};
}

sb::NetworkRule networkRule(const sb::ApprovalRequest& r, const sb::ApprovalAnswer& a)
{
    auto rule = sb::ruleFromAnswer(r, a);
    EXPECT_TRUE(rule) << rule.error().message;
    return rule ? std::get<sb::NetworkRule>(*rule) : sb::NetworkRule{};
}

std::string refusal(const sb::ApprovalRequest& r, const sb::ApprovalAnswer& a)
{
    auto rule = sb::ruleFromAnswer(r, a);
    if (rule) return "(accepted)";
    EXPECT_EQ(rule.error().code, sb::ErrorCode::InvalidInput);
    return rule.error().message;
}

// Restores an environment variable when the test ends.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : m_name(name)
    {
        if (const char* old = std::getenv(name)) m_old = old;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv()
    {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }

  private:
    const char* m_name;
    std::optional<std::string> m_old;
};

std::vector<std::string> matches(const std::vector<sb::CommandRule>& rules)
{
    std::vector<std::string> out;
    for (const auto& r : rules)
        out.push_back(std::string(sb::toString(r.action)) + ' ' + r.match);
    return out;
}

std::vector<std::string> hosts(const std::vector<sb::NetworkRule>& rules)
{
    std::vector<std::string> out;
    for (const auto& r : rules)
        out.push_back(std::string(sb::toString(r.action)) + ' ' + r.host +
                      (r.ports.empty() ? "" : ":" + std::to_string(r.ports[0])));
    return out;
}

} // namespace

TEST(LearnedPaths, BesideThePolicyOrInTheUsersConfig)
{
    EXPECT_EQ(sb::learnedRulesPath("/home/u/p/agent.json"), "/home/u/p/agent.learned.json");
    EXPECT_EQ(sb::learnedRulesPath("/home/u/p/agent.jsonc"), "/home/u/p/agent.jsonc.learned.json");
    EXPECT_EQ(sb::learnedRulesPath("policy"), "policy.learned.json");
    {
        ScopedEnv config("XDG_CONFIG_HOME", "/cfg");
        EXPECT_EQ(sb::learnedRulesPathForPreset("claude-code"),
                  "/cfg/sandbench/learned/claude-code.learned.json");
    }
    ScopedEnv config("XDG_CONFIG_HOME", "relative/is/ignored");
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(sb::learnedRulesPathForPreset("codex"),
              "/home/someone/.config/sandbench/learned/codex.learned.json");
}

TEST(LearnedFromAnswer, CommandScopes)
{
    const auto push = commandRequest("/usr/bin/git", {"git", "push", "origin", "main"});
    const auto exact = commandRule(push, answer(true, sb::ApprovalScope::ExactCommand));
    EXPECT_EQ(exact.action, sb::RuleAction::Allow);
    EXPECT_EQ(exact.match, "/usr/bin/git push origin main");
    EXPECT_EQ(exact.comment,
              "learned: allowed always by gui when asked about /usr/bin/git push origin main");
    EXPECT_EQ(commandRule(push, answer(true, sb::ApprovalScope::Subcommand)).match, "git push *");
    EXPECT_EQ(commandRule(push, answer(true, sb::ApprovalScope::AnyArguments)).match, "git *");
    EXPECT_EQ(commandRule(push, answer(false, sb::ApprovalScope::AnyArguments)).action,
              sb::RuleAction::Deny);

    // Odd arguments are quoted so that the rule matches exactly this command and nothing else.
    const auto odd = commandRequest("/usr/bin/git", {"git", "commit", "-m", "it's *done*"});
    const auto rule = commandRule(odd, answer(true, sb::ApprovalScope::ExactCommand));
    EXPECT_EQ(rule.match, "/usr/bin/git commit -m 'it'\\''s *done*'");
    auto pattern = sb::parseCommandPattern(rule.match);
    ASSERT_TRUE(pattern);
    EXPECT_TRUE(sb::matchesCommand(*pattern, "/usr/bin/git", odd.argv));
    EXPECT_FALSE(
        sb::matchesCommand(*pattern, "/usr/bin/git", {"git", "commit", "-m", "it's not done"}));
    EXPECT_FALSE(sb::matchesCommand(*pattern, "/tmp/git", odd.argv)); // exact means this program

    EXPECT_EQ(
        refusal(commandRequest("/bin/ls", {"ls"}), answer(true, sb::ApprovalScope::Subcommand)),
        "'/bin/ls' was run without arguments, so it has no subcommand (expected scope exact "
        "or any arguments)");
    EXPECT_EQ(refusal(push, answer(true, sb::ApprovalScope::Host)),
              "a host scope does not apply to a command (expected exact, subcommand or any "
              "arguments)");
    EXPECT_EQ(refusal(commandRequest("", {}), answer(true, sb::ApprovalScope::AnyArguments)),
              "the approval request names no program");
}

TEST(LearnedFromAnswer, NetworkScopes)
{
    const auto api = networkRequest("API.GitHub.com.", 443);
    const auto hostPort = networkRule(api, answer(true, sb::ApprovalScope::HostPort));
    EXPECT_EQ(hostPort.host, "api.github.com");
    EXPECT_EQ(hostPort.ports, (std::vector<std::uint16_t>{443}));
    EXPECT_EQ(hostPort.action, sb::RuleAction::Allow);
    const auto host = networkRule(api, answer(false, sb::ApprovalScope::Host));
    EXPECT_EQ(host.host, "api.github.com");
    EXPECT_TRUE(host.ports.empty());
    EXPECT_EQ(host.action, sb::RuleAction::Deny);
    EXPECT_EQ(networkRule(api, answer(true, sb::ApprovalScope::Domain)).host, "*.github.com");

    const auto domain = [](const char* name) {
        return networkRule(networkRequest(name, 443), answer(true, sb::ApprovalScope::Domain)).host;
    };
    EXPECT_EQ(domain("github.com"), "*.github.com");
    EXPECT_EQ(domain("a.b.c.github.com"), "*.github.com");
    EXPECT_EQ(domain("news.bbc.co.uk"), "*.bbc.co.uk"); // never "*.co.uk"
    EXPECT_EQ(domain("localhost"), "*.localhost");

    EXPECT_EQ(
        networkRule(networkRequest("fd00::1", 80), answer(true, sb::ApprovalScope::Host)).host,
        "fd00::1");
    EXPECT_EQ(refusal(networkRequest("10.0.0.1", 80), answer(true, sb::ApprovalScope::Domain)),
              "'10.0.0.1' is an address, which has no domain (expected scope host or host and "
              "port)");
    EXPECT_EQ(refusal(networkRequest("*.evil.com", 80), answer(true, sb::ApprovalScope::Host)),
              "cannot make a rule for host '*.evil.com' (expected a name or an address)");
    EXPECT_EQ(
        refusal(networkRequest("ex ample.com", 80), answer(true, sb::ApprovalScope::Host)),
        "cannot make a rule for host 'ex ample.com' is not a valid host name (expected labels "
        "of letters, digits, '-' and '_', 1 to 63 characters each, separated by '.')");
    EXPECT_EQ(refusal(api, answer(true, sb::ApprovalScope::ExactCommand)),
              "a command scope does not apply to a connection (expected host and port, host or "
              "domain)");
}

TEST(LearnedFile, RoundTripLeavesThePolicyFileAlone)
{
    sbtest::TempDir dir;
    const fs::path policyFile = dir / "agent.json";
    const std::string policyText =
        "// my policy, my formatting\n{\n  \"version\": 1,\n"
        "  \"commands\": { \"default\": \"ask\" }, /* keep me */\n"
        "  \"network\": { \"mode\": \"filtered\", \"default\": \"ask\" }\n}\n";
    sbtest::writeFile(policyFile, policyText);
    const fs::path learned = sb::learnedRulesPath(policyFile);

    const auto status = commandRequest("/usr/bin/git", {"git", "status", "-s"});
    const auto push = commandRequest("/usr/bin/git", {"git", "push"});
    const auto api = networkRequest("api.example.com", 443);
    for (const auto& [r, a] : std::vector<std::pair<sb::ApprovalRequest, sb::ApprovalAnswer>>{
             {status, answer(true, sb::ApprovalScope::AnyArguments)},
             {push, answer(false, sb::ApprovalScope::Subcommand)},
             {api, answer(true, sb::ApprovalScope::HostPort)}}) {
        auto rule = sb::ruleFromAnswer(r, a);
        ASSERT_TRUE(rule) << rule.error().message;
        ASSERT_FALSE(sb::appendLearnedRule(learned, *rule));
    }
    EXPECT_EQ(sbtest::readFile(policyFile), policyText);
    EXPECT_EQ(fs::status(learned).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    for (const auto& entry : fs::directory_iterator(dir.path())) // no temporary files left
        EXPECT_TRUE(entry.path() == policyFile || entry.path() == learned) << entry.path();

    auto loaded = sb::loadLearnedRules(learned);
    ASSERT_TRUE(loaded) << loaded.error().message << "\n" << sbtest::readFile(learned);
    EXPECT_EQ(matches(loaded->commands),
              (std::vector<std::string>{"allow git *", "deny git push *"}));
    EXPECT_EQ(hosts(loaded->network), (std::vector<std::string>{"allow api.example.com:443"}));

    auto policy = sb::loadPolicyWithLearned(policyFile);
    ASSERT_TRUE(policy) << policy.error().message;
    EXPECT_EQ(sb::decideCommand(policy->commands, "/usr/bin/git", status.argv).action,
              sb::RuleAction::Allow);
    EXPECT_EQ(sb::decideCommand(policy->commands, "/usr/bin/git", {"git", "push", "-f"}).action,
              sb::RuleAction::Deny);
    EXPECT_EQ(sb::decideCommand(policy->commands, "/usr/bin/make", {"make"}).action,
              sb::RuleAction::Ask);
    EXPECT_EQ(hosts(policy->network.rules),
              (std::vector<std::string>{"allow api.example.com:443"}));
    EXPECT_EQ(policy->network.defaultAction, sb::RuleAction::Ask);
}

TEST(LearnedFile, ANewerAnswerReplacesTheRuleForTheSamePattern)
{
    sbtest::TempDir dir;
    const fs::path learned = dir / "p.learned.json";
    const auto npm = commandRequest("/usr/bin/npm", {"npm", "install"});
    ASSERT_FALSE(sb::appendLearnedRule(
        learned, sb::ruleFromAnswer(npm, answer(true, sb::ApprovalScope::AnyArguments)).value()));
    ASSERT_FALSE(sb::appendLearnedRule(
        learned, sb::ruleFromAnswer(npm, answer(false, sb::ApprovalScope::AnyArguments)).value()));
    auto loaded = sb::loadLearnedRules(learned);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(matches(loaded->commands), (std::vector<std::string>{"deny npm *"}));
}

TEST(LearnedFile, MissingIsEmptyAndBrokenIsReportedNotOverwritten)
{
    sbtest::TempDir dir;
    sbtest::writeFile(dir / "p.json", "{\"version\": 1}");
    auto plain = sb::loadPolicyWithLearned(dir / "p.json");
    ASSERT_TRUE(plain) << plain.error().message;
    EXPECT_TRUE(plain->commands.rules.empty());

    const std::string broken =
        "{\"version\": 1, \"commands\": [{\"action\": \"allow\", \"match\": \"git 'x\"}]}";
    sbtest::writeFile(dir / "p.learned.json", broken);
    const std::string where = (dir / "p.learned.json").string();
    auto refused = sb::loadPolicyWithLearned(dir / "p.json");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().message, where + ":1:58: at /commands/0/match: unterminated ' quote "
                                               "in \"git 'x\" (expected a closing ')");

    auto rule = sb::ruleFromAnswer(commandRequest("/bin/ls", {"ls"}),
                                   answer(true, sb::ApprovalScope::AnyArguments));
    auto status = sb::appendLearnedRule(dir / "p.learned.json", *rule);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->message, "learned rules not saved, '" + where +
                                   "' is left as it is: " + refused.error().message);
    EXPECT_EQ(sbtest::readFile(dir / "p.learned.json"), broken);

    sbtest::writeFile(dir / "p.learned.json", "{\"version\": 1, \"limits\": {}}");
    auto sneaky = sb::loadLearnedRules(dir / "p.learned.json");
    ASSERT_FALSE(sneaky); // only rules may be learned, never a wider sandbox
    EXPECT_EQ(sneaky.error().message, where + ":1:16: at /limits: unknown key 'limits' (expected "
                                              "one of: version, commands, network)");
}

TEST(LearnedFile, ConcurrentWritersLoseNothing)
{
    sbtest::TempDir dir;
    const fs::path learned = dir / "sub" / "p.learned.json"; // the folder is created
    auto writer = [&](const std::string& program) {
        for (int i = 0; i < 15; ++i) {
            sb::CommandRule rule{sb::RuleAction::Allow, program + " " + std::to_string(i), ""};
            EXPECT_FALSE(sb::appendLearnedRule(learned, rule));
        }
    };
    std::thread a(writer, "alpha"), b(writer, "beta");
    a.join();
    b.join();
    auto loaded = sb::loadLearnedRules(learned);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(loaded->commands.size(), 30u);
}

// A learned allow never overrides a user's deny of the same or a broader pattern.
TEST(LearnedMerge, CommandPrecedence)
{
    auto merged = [](std::vector<sb::CommandRule> user, std::vector<sb::CommandRule> learned) {
        sb::Policy p;
        p.commands.rules = std::move(user);
        sb::mergeLearned(p, sb::LearnedRules{std::move(learned), {}});
        return p;
    };
    using A = sb::RuleAction;
    // Disjoint: the learned rule goes first.
    auto p = merged({{A::Deny, "rm *", ""}}, {{A::Allow, "ls *", ""}});
    EXPECT_EQ(matches(p.commands.rules), (std::vector<std::string>{"allow ls *", "deny rm *"}));

    // The same pattern: the user's deny wins.
    p = merged({{A::Deny, "git push *", ""}}, {{A::Allow, "git push *", ""}});
    EXPECT_EQ(matches(p.commands.rules),
              (std::vector<std::string>{"deny git push *", "allow git push *"}));
    EXPECT_EQ(sb::decideCommand(p.commands, "/usr/bin/git", {"git", "push"}).action, A::Deny);

    // A broader learned allow stays behind the narrower user deny, and still works elsewhere.
    p = merged({{A::Deny, "git push *", ""}}, {{A::Allow, "git *", ""}});
    EXPECT_EQ(sb::decideCommand(p.commands, "/usr/bin/git", {"git", "push", "x"}).action, A::Deny);
    EXPECT_EQ(sb::decideCommand(p.commands, "/usr/bin/git", {"git", "log"}).action, A::Allow);

    // A strictly narrower learned allow (an exact command) goes first.
    p = merged({{A::Deny, "git push *", ""}}, {{A::Allow, "/usr/bin/git push origin main", ""}});
    EXPECT_EQ(p.commands.rules[0].match, "/usr/bin/git push origin main");
    EXPECT_EQ(
        sb::decideCommand(p.commands, "/usr/bin/git", {"git", "push", "origin", "main"}).action,
        A::Allow);

    // The user's own exception before their deny keeps its meaning.
    p = merged({{A::Allow, "git push --dry-run *", ""}, {A::Deny, "git push *", ""}},
               {{A::Allow, "git *", ""}});
    EXPECT_EQ(
        matches(p.commands.rules),
        (std::vector<std::string>{"allow git push --dry-run *", "deny git push *", "allow git *"}));

    // A path pattern and a name pattern meet in the basename.
    p = merged({{A::Deny, "/usr/bin/curl *", ""}}, {{A::Allow, "curl *", ""}});
    EXPECT_EQ(sb::decideCommand(p.commands, "/usr/bin/curl", {"curl", "x"}).action, A::Deny);

    // Learned denies always go first; user "ask" rules are not protected from an "always" answer.
    p = merged({{A::Allow, "curl *", ""}, {A::Ask, "npm publish *", ""}},
               {{A::Deny, "curl *", ""}, {A::Allow, "npm *", ""}});
    EXPECT_EQ(sb::decideCommand(p.commands, "/usr/bin/curl", {"curl"}).action, A::Deny);
    EXPECT_EQ(sb::decideCommand(p.commands, "/usr/bin/npm", {"npm", "publish"}).action, A::Allow);
}

TEST(LearnedMerge, NetworkPrecedence)
{
    auto merged = [](std::vector<sb::NetworkRule> user, sb::NetworkRule learned) {
        sb::Policy p;
        p.network.rules = std::move(user);
        sb::mergeLearned(p, sb::LearnedRules{{}, {std::move(learned)}});
        return hosts(p.network.rules);
    };
    using A = sb::RuleAction;
    const sb::NetworkRule allowDomain{A::Allow, "*.github.com", {}, ""};
    EXPECT_EQ(merged({{A::Deny, "*.github.com", {}, ""}}, allowDomain),
              (std::vector<std::string>{"deny *.github.com", "allow *.github.com"}));
    EXPECT_EQ(merged({{A::Deny, "api.github.com", {}, ""}}, allowDomain),
              (std::vector<std::string>{"deny api.github.com", "allow *.github.com"}));
    EXPECT_EQ(merged({{A::Deny, "api.gitlab.com", {}, ""}}, allowDomain),
              (std::vector<std::string>{"allow *.github.com", "deny api.gitlab.com"}));
    // Less specific user denies ("*", a range, a wider domain) yield to a learned answer.
    EXPECT_EQ(merged({{A::Deny, "*", {}, ""}}, allowDomain),
              (std::vector<std::string>{"allow *.github.com", "deny *"}));
    EXPECT_EQ(merged({{A::Deny, "10.0.0.0/8", {}, ""}}, {A::Allow, "intranet.corp", {}, ""}),
              (std::vector<std::string>{"allow intranet.corp", "deny 10.0.0.0/8"}));
    EXPECT_EQ(merged({{A::Deny, "*.github.com", {}, ""}}, {A::Allow, "api.github.com", {443}, ""}),
              (std::vector<std::string>{"allow api.github.com:443", "deny *.github.com"}));
    // Ports: disjoint lists cannot shadow each other; an address rule may hide behind any name.
    EXPECT_EQ(merged({{A::Deny, "*.github.com", {22}, ""}}, {A::Allow, "*.github.com", {443}, ""}),
              (std::vector<std::string>{"allow *.github.com:443", "deny *.github.com:22"}));
    EXPECT_EQ(merged({{A::Deny, "10.1.2.3", {}, ""}}, {A::Allow, "internal.corp", {}, ""}),
              (std::vector<std::string>{"deny 10.1.2.3", "allow internal.corp"}));
}

// Learned rules are answers, not a list the user ordered: the narrower goes first, and at equal
// specificity deny goes before allow, whatever their order in the file.
TEST(LearnedMerge, NarrowerAnswersAndDeniesComeFirst)
{
    using A = sb::RuleAction;
    sb::Policy p;
    sb::mergeLearned(p, sb::LearnedRules{{{A::Allow, "git *", ""},
                                          {A::Allow, "npm *", ""},
                                          {A::Deny, "git push *", ""},
                                          {A::Deny, "npm *", ""}},
                                         {{A::Allow, "*.github.com", {}, ""},
                                          {A::Deny, "api.github.com", {}, ""},
                                          {A::Allow, "api.github.com", {443}, ""}}});
    EXPECT_EQ(matches(p.commands.rules), (std::vector<std::string>{"deny git push *", "deny npm *",
                                                                   "allow git *", "allow npm *"}));
    EXPECT_EQ(hosts(p.network.rules),
              (std::vector<std::string>{"allow api.github.com:443", "deny api.github.com",
                                        "allow *.github.com"}));
}
