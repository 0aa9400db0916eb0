// policy suggest's rules from observations: only what the base asks about, generalised where
// safe, never over a deny rule, placed before the rule that asked; and the written document
// reads back as a policy that decides as proposed.
#include "learning/PolicySuggest.h"

#include "policy/CommandRules.h"
#include "policy/NetworkRules.h"

#include <gtest/gtest.h>

namespace {

sb::Policy parse(const std::string& text)
{
    auto p = sb::parsePolicy(text, "test");
    EXPECT_TRUE(p) << p.error().describe();
    return p ? *p : sb::Policy{};
}

sb::ObservedCommand run(std::vector<std::string> argv, const std::string& session = "s1")
{
    return {"/usr/bin/" + argv.front(), std::move(argv), session};
}

std::vector<std::string> proposed(const sb::Suggestion& s, bool risky = false)
{
    std::vector<std::string> out;
    for (const auto& r : s.rules)
        if (r.risk.empty() != risky)
            out.push_back(r.section == sb::ProposedRule::Section::Commands
                              ? r.command.match
                              : r.network.host + (r.network.program.empty()
                                                      ? std::string()
                                                      : " by " + r.network.program));
    return out;
}

const char* kBase = R"({"version": 1,
  "network": {"mode": "filtered", "default": "ask",
              "rules": [{"action": "deny", "host": "*.tracker.example.com"}]},
  "commands": {"default": "allow", "rules": [
    {"action": "deny", "match": "rm -rf /*"},
    {"action": "ask", "match": "git push *"},
    {"action": "ask", "match": "rm *"},
    {"action": "ask", "match": "python3 *"},
    {"action": "ask", "match": "npm *"}]}})";

TEST(PolicySuggest, CommandsTheBaseAsksAboutBecomeRulesBeforeTheRuleThatAsked)
{
    sb::Observations seen;
    seen.commands = {run({"git", "push", "origin", "main"}),
                     run({"git", "push", "-u", "origin", "topic"}, "s2"),
                     run({"git", "status"}), // allowed by the base: no rule needed
                     run({"npm", "install", "left-pad"}), run({"npm", "install"})};
    auto s = sb::suggestPolicy(parse(kBase), seen);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(proposed(*s), (std::vector<std::string>{"git push *", "npm install *"}));
    const auto& push = s->rules.front();
    EXPECT_EQ(push.before, 1); // right before "ask git push *"
    EXPECT_EQ(push.evidence.count, 2u);
    EXPECT_EQ(push.evidence.sessions, (std::vector<std::string>{"s1", "s2"}));
    EXPECT_EQ(push.evidence.example, "git push origin main");
    EXPECT_EQ(push.evidence.exampleSession, "s1"); // where a replay can show it
}

TEST(PolicySuggest, DestructiveCommandsInterpretersAndDenialsStayExact)
{
    sb::Observations seen;
    seen.commands = {run({"rm", "-rf", "build"}),        // destructive: exact
                     run({"rm", "notes.txt"}),           // "rm *" would cover "rm -rf /*"
                     run({"python3", "-m", "unittest"}), // an interpreter: exact
                     run({"python3", "setup.py", "build"}),
                     run({"git", "push", "--force", "origin", "main"})};
    auto s = sb::suggestPolicy(parse(kBase), seen);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(proposed(*s), (std::vector<std::string>{
                                "git push --force origin main", "rm -rf build", "rm notes.txt",
                                "python3 -m unittest", "python3 setup.py build"}));
    // The interpreter's pattern is shown, not proposed.
    EXPECT_EQ(proposed(*s, true), (std::vector<std::string>{"python3 *"}));
}

TEST(PolicySuggest, HostsByRegistrableDomainLimitedToTheirProgram)
{
    sb::Observations seen;
    seen.connections = {{"docs.python.org", 443, "/usr/bin/python3", "s1"},
                        {"pypi.python.org", 443, "/usr/bin/python3", "s1"},
                        {"files.python.org", 80, "/usr/bin/python3", "s2"},
                        {"api.github.com", 443, "/usr/bin/git", "s1"},
                        {"alice.github.io", 443, "/usr/bin/python3", "s1"},
                        {"93.184.216.34", 8080, "", "s1"}, // an address: itself
                        {"10.1.2.3", 8080, "", "s1"},      // private: denied unless a rule names it
                        {"a.tracker.example.com", 443, "/usr/bin/python3", "s1"}, // denied: no rule
                        {"ok.tracker2.example.com", 443, "/usr/bin/python3", "s1"}};
    auto s = sb::suggestPolicy(parse(kBase), seen);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(proposed(*s),
              (std::vector<std::string>{"*.alice.github.io by /usr/bin/python3",
                                        "*.github.com by /usr/bin/git",
                                        "*.python.org by /usr/bin/python3", "93.184.216.34",
                                        // a deny rule reaches into example.com
                                        "ok.tracker2.example.com by /usr/bin/python3"}));
    for (const auto& r : s->rules) {
        if (r.network.host == "*.python.org") {
            EXPECT_EQ(r.network.ports, (std::vector<std::uint16_t>{80, 443}));
        }
        if (r.network.host == "*.alice.github.io") {
            EXPECT_NE(r.note.find("shared platform"), std::string::npos) << r.note;
        } else {
            EXPECT_EQ(r.note, "") << r.network.host << ": no platform's tenant";
        }
    }
}

// curl or wget reaching a host is how a file leaves (curl -d @~/.netrc) or a script arrives
// (curl … | sh): its rule is shown, not proposed, and written commented out.
TEST(PolicySuggest, ATransferToolsHostIsShownNotProposed)
{
    sb::Observations seen;
    seen.connections = {{"paste.drop.example", 80, "/usr/bin/curl", "s1"},
                        {"get.unknown.example", 443, "/usr/bin/wget", "s1"},
                        {"registry.pkgs.example", 443, "/usr/bin/node", "s1"}};
    auto s = sb::suggestPolicy(parse(kBase), seen);
    ASSERT_TRUE(s) << s.error().describe();
    EXPECT_EQ(proposed(*s), (std::vector<std::string>{"*.pkgs.example by /usr/bin/node"}));
    EXPECT_EQ(proposed(*s, true), (std::vector<std::string>{"*.drop.example by /usr/bin/curl",
                                                            "*.unknown.example by /usr/bin/wget"}));
    for (const auto& r : s->rules)
        if (!r.risk.empty()) {
            EXPECT_EQ(r.remark, sb::ProposedRule::Remark::TransferTool);
            EXPECT_NE(r.risk.find("transfer tool"), std::string::npos) << r.risk;
        }
    const std::string text = sb::renderSuggestion(*s, false);
    auto back = sb::parsePolicy(text, "suggested");
    ASSERT_TRUE(back) << back.error().describe() << "\n" << text;
    auto network = sb::NetworkRules::compile(back->network);
    ASSERT_TRUE(network);
    const sb::ProcessChain curl = {{1, "/usr/bin/curl", {"curl"}}};
    EXPECT_EQ(network->decideHost("paste.drop.example", 80, {}, curl).action,
              sb::RuleAction::Ask);
}

TEST(PolicySuggest, TheWrittenPolicyReadsBackAndDecidesAsProposed)
{
    sb::Observations seen;
    seen.commands = {run({"git", "push", "origin", "main"}), run({"python3", "-m", "pytest"}),
                     run({"python3", "-c", "it's quoted"}),
                     run({"python3", "-c", "print(1)\nprint(2)\r\n"})}; // a comment stays one line
    seen.connections = {{"docs.python.org", 443, "/usr/bin/python3", "s1"}};
    auto s = sb::suggestPolicy(parse(kBase), seen);
    ASSERT_TRUE(s) << s.error().describe();
    const std::string text = sb::renderSuggestion(*s, false);
    EXPECT_NE(text.find("// proposed: 1 time in 1 session (s1), e.g. git push origin main"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("// not proposed (an interpreter"), std::string::npos) << text;
    auto back = sb::parsePolicy(text, "suggested");
    ASSERT_TRUE(back) << back.error().describe() << "\n" << text;
    const sb::CommandMatcher commands(back->commands);
    EXPECT_EQ(commands.decide("/usr/bin/git", {"git", "push", "-u", "origin", "x"}).action,
              sb::RuleAction::Allow);
    EXPECT_EQ(commands.decide("/usr/bin/rm", {"rm", "-rf", "/home"}).action, sb::RuleAction::Deny);
    EXPECT_EQ(commands.decide("/usr/bin/python3", {"python3", "-c", "it's quoted"}).action,
              sb::RuleAction::Allow);
    EXPECT_EQ(commands.decide("/usr/bin/python3", {"python3", "evil.py"}).action,
              sb::RuleAction::Ask);
    auto network = sb::NetworkRules::compile(back->network);
    ASSERT_TRUE(network);
    const sb::ProcessChain curl = {{1, "/usr/bin/python3", {"curl"}}};
    const sb::ProcessChain wget = {{1, "/usr/bin/wget", {"wget"}}};
    EXPECT_EQ(network->decideHost("www.python.org", 443, {}, curl).action, sb::RuleAction::Allow);
    EXPECT_EQ(network->decideHost("www.python.org", 443, {}, wget).action, sb::RuleAction::Ask);
    EXPECT_EQ(network->decideHost("www.python.org", 22, {}, curl).action, sb::RuleAction::Ask);
    // With every risky rule in, the interpreter's pattern is a rule too.
    auto all = sb::parsePolicy(sb::renderSuggestion(*s, true), "suggested");
    ASSERT_TRUE(all);
    EXPECT_EQ(
        sb::CommandMatcher(all->commands).decide("/usr/bin/python3", {"python3", "x.py"}).action,
        sb::RuleAction::Allow);
}

} // namespace
