#include "policy/CommandRules.h"

#include <gtest/gtest.h>

namespace {

struct MatchCase {
    const char* pattern;
    const char* program; // as resolved inside the sandbox
    std::vector<std::string> argv;
    bool matches;
};

std::ostream& operator<<(std::ostream& os, const MatchCase& c)
{
    os << "pattern «" << c.pattern << "» program " << c.program << " argv";
    for (const auto& a : c.argv)
        os << " «" << a << "»";
    return os;
}

class CommandMatch : public testing::TestWithParam<MatchCase> {};

TEST_P(CommandMatch, AsDocumented)
{
    const MatchCase& c = GetParam();
    auto pattern = sb::parseCommandPattern(c.pattern);
    ASSERT_TRUE(pattern) << pattern.error().message;
    EXPECT_EQ(sb::matchesCommand(*pattern, c.program, c.argv), c.matches) << c;
}

INSTANTIATE_TEST_SUITE_P(
    Command, CommandMatch,
    testing::Values(
        // The program: by basename, or by full path when the pattern word holds a '/'.
        MatchCase{"git", "/usr/bin/git", {"git"}, true},
        MatchCase{"git", "/usr/local/bin/git", {"git"}, true},
        MatchCase{"git", "/usr/bin/gitk", {"gitk"}, false},
        MatchCase{"/usr/bin/git", "/usr/bin/git", {"git"}, true},
        MatchCase{"/usr/bin/git", "/home/u/project/git", {"git"}, false},
        MatchCase{"/usr/bin/*", "/usr/bin/python3", {"python3"}, true},
        MatchCase{"/usr/*", "/usr/bin/python3", {"python3"}, false}, // '*' stays in one folder
        MatchCase{"python*", "/usr/bin/python3.11", {"python3"}, true},
        // argv[0] is the agent's to choose, so it never decides: the resolved program does.
        MatchCase{"git", "/usr/bin/git", {"definitely-not-git"}, true},
        MatchCase{"ls", "/usr/bin/rm", {"ls"}, false},
        MatchCase{"git", "/usr/bin/git", {}, true}, // execve with an empty argv
        // Without a trailing "*" the number of arguments must match exactly.
        MatchCase{"git status", "/usr/bin/git", {"git", "status"}, true},
        MatchCase{"git status", "/usr/bin/git", {"git", "status", "-s"}, false},
        MatchCase{"git status", "/usr/bin/git", {"git"}, false},
        MatchCase{"git", "/usr/bin/git", {"git", "status"}, false},
        // A final bare "*" takes any further arguments, none included.
        MatchCase{"git push *", "/usr/bin/git", {"git", "push"}, true},
        MatchCase{"git push *", "/usr/bin/git", {"git", "push", "origin", "main"}, true},
        MatchCase{"git push *", "/usr/bin/git", {"git", "pull", "origin"}, false},
        MatchCase{"git push *", "/usr/bin/git", {"git"}, false},
        MatchCase{"git *", "/usr/bin/git", {"git"}, true},
        MatchCase{"* *", "/bin/anything", {"x", "1", "2"}, true},
        MatchCase{"*", "/bin/anything", {"x"}, true},
        MatchCase{"*", "/bin/anything", {"x", "1"}, false},
        // A "*" elsewhere is exactly one argument of any value.
        MatchCase{"git * push *", "/usr/bin/git", {"git", "-C", "push"}, true},
        MatchCase{"git * push *", "/usr/bin/git", {"git", "push"}, false},
        MatchCase{"git -C * push *", "/usr/bin/git", {"git", "-C", "/src", "push"}, true},
        MatchCase{"git * status", "/usr/bin/git", {"git", "--no-pager", "status"}, true},
        // Globs within a word.
        MatchCase{"rm -rf /*", "/bin/rm", {"rm", "-rf", "/"}, true},
        MatchCase{"rm -rf /*", "/bin/rm", {"rm", "-rf", "/home/u"}, true},
        MatchCase{"rm -rf /*", "/bin/rm", {"rm", "-rf", "build"}, false},
        MatchCase{"rm -rf /*", "/bin/rm", {"rm", "-rf", "/", "x"}, false},
        MatchCase{"rm -r?", "/bin/rm", {"rm", "-rf"}, true},
        MatchCase{"rm -r[fF] *", "/bin/rm", {"rm", "-rF", "a"}, true},
        MatchCase{"rm -r[fF] *", "/bin/rm", {"rm", "-rv", "a"}, false},
        MatchCase{"npm install --global=*", "/usr/bin/npm", {"npm", "install", "--global=x"}, true},
        MatchCase{
            "curl *://evil.example/*", "/usr/bin/curl", {"curl", "https://evil.example/x"}, true},
        MatchCase{"curl *://evil.example/*",
                  "/usr/bin/curl",
                  {"curl", "https://evil.example/x", "-o", "f"},
                  false}, // no final "*": exact
        MatchCase{"curl *://evil.example/* *",
                  "/usr/bin/curl",
                  {"curl", "https://evil.example/x", "-o", "f"},
                  true},
        // Quotes make words and keep glob characters literal, as in a shell.
        MatchCase{
            "git commit -m 'fix it'", "/usr/bin/git", {"git", "commit", "-m", "fix it"}, true},
        MatchCase{
            "git commit -m \"fix it\"", "/usr/bin/git", {"git", "commit", "-m", "fix it"}, true},
        MatchCase{
            "git commit -m 'fix it'", "/usr/bin/git", {"git", "commit", "-m", "fix", "it"}, false},
        MatchCase{"echo '*'", "/bin/echo", {"echo", "*"}, true},
        MatchCase{"echo '*'", "/bin/echo", {"echo", "hello"}, false},
        MatchCase{"echo \\*", "/bin/echo", {"echo", "*"}, true},
        MatchCase{"echo \\*", "/bin/echo", {"echo", "x"}, false},
        MatchCase{
            "echo a '*'", "/bin/echo", {"echo", "a", "b", "c"}, false}, // a quoted '*' is no rest
        MatchCase{"echo \"a\\\"b\"", "/bin/echo", {"echo", "a\"b"}, true},
        MatchCase{"echo ''", "/bin/echo", {"echo", ""}, true},
        MatchCase{"echo ''", "/bin/echo", {"echo", "x"}, false},
        MatchCase{"echo 'it'\\''s'", "/bin/echo", {"echo", "it's"}, true},
        MatchCase{"echo '[x]'", "/bin/echo", {"echo", "[x]"}, true},
        MatchCase{"echo '[x]'", "/bin/echo", {"echo", "x"}, false},
        // Spacing does not matter.
        MatchCase{"  git\tpush   *  ", "/usr/bin/git", {"git", "push", "x"}, true}));

TEST(CommandPattern, ParsesWordsAndRest)
{
    auto p = sb::parseCommandPattern("git push *");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->words, (std::vector<std::string>{"git", "push"}));
    EXPECT_TRUE(p->anyRest);
    EXPECT_FALSE(p->programIsPath);
    EXPECT_EQ(p->specificity(), 2);

    auto exact = sb::parseCommandPattern("/usr/bin/git commit -m 'a*b'");
    ASSERT_TRUE(exact);
    EXPECT_EQ(exact->words, (std::vector<std::string>{"/usr/bin/git", "commit", "-m", "a\\*b"}));
    EXPECT_FALSE(exact->anyRest);
    EXPECT_TRUE(exact->programIsPath);
    EXPECT_EQ(exact->specificity(), 4);
}

TEST(CommandPattern, RefusesWhatCanNeverMatch)
{
    auto message = [](std::string_view text) {
        auto p = sb::parseCommandPattern(text);
        return p ? std::string("(accepted)") : p.error().message;
    };
    EXPECT_EQ(message(""), "empty pattern (expected a command such as \"git push *\")");
    EXPECT_EQ(message("git commit -m 'x"),
              "unterminated ' quote in \"git commit -m 'x\" (expected a closing ')");
    EXPECT_EQ(message("curl x | sh"), "'|' in \"curl x | sh\" is shell syntax (expected one "
                                      "program and its arguments; quote the character to use "
                                      "it literally)");
    EXPECT_EQ(message("make; rm"), "';' in \"make; rm\" is shell syntax (expected one program "
                                   "and its arguments; quote the character to use it "
                                   "literally)");
    EXPECT_EQ(message("echo '|' \\;"), "(accepted)");
}

TEST(CommandQuote, RoundTripsThroughThePattern)
{
    for (std::string word : {"plain", "with space", "it's", "*", "a*b?[c]", "", "$HOME", "a\\b",
                             "tab\there", "new\nline", "\"dq\"", "--flag=value", "-"}) {
        const std::string pattern = "prog " + sb::quoteCommandWord(word);
        auto p = sb::parseCommandPattern(pattern);
        ASSERT_TRUE(p) << pattern << ": " << p.error().message;
        EXPECT_TRUE(sb::matchesCommand(*p, "/bin/prog", {"prog", word})) << pattern;
        EXPECT_FALSE(sb::matchesCommand(*p, "/bin/prog", {"prog", word + "x"})) << pattern;
    }
    EXPECT_EQ(sb::quoteCommandWord("--flag=a,b:c/d@e%f+g"), "--flag=a,b:c/d@e%f+g");
    EXPECT_EQ(sb::quoteCommandWord("it's"), "'it'\\''s'");
    EXPECT_EQ(sb::quoteCommandWord(""), "''");
}

TEST(CommandDecide, FirstMatchWinsAndTheDefaultCatchesTheRest)
{
    sb::CommandPolicy policy;
    policy.defaultAction = sb::RuleAction::Allow;
    policy.rules = {
        {sb::RuleAction::Allow, "git push --dry-run *", ""},
        {sb::RuleAction::Ask, "git push *", ""},
        {sb::RuleAction::Deny, "rm -rf /*", ""},
        {sb::RuleAction::Deny, "git *", ""},
    };
    auto push = sb::decideCommand(policy, "/usr/bin/git", {"git", "push", "origin"});
    EXPECT_EQ(push.action, sb::RuleAction::Ask);
    EXPECT_EQ(push.ruleIndex, 1);
    EXPECT_EQ(push.rule, "commands.rules[1] (ask \"git push *\")");

    auto dry = sb::decideCommand(policy, "/usr/bin/git", {"git", "push", "--dry-run"});
    EXPECT_EQ(dry.action, sb::RuleAction::Allow);
    EXPECT_EQ(dry.ruleIndex, 0);

    auto status = sb::decideCommand(policy, "/usr/bin/git", {"git", "status"});
    EXPECT_EQ(status.action, sb::RuleAction::Deny);
    EXPECT_EQ(status.rule, "commands.rules[3] (deny \"git *\")");

    auto make = sb::decideCommand(policy, "/usr/bin/make", {"make", "test"});
    EXPECT_EQ(make.action, sb::RuleAction::Allow);
    EXPECT_EQ(make.ruleIndex, -1);
    EXPECT_EQ(make.rule, "commands.default");

    policy.defaultAction = sb::RuleAction::Ask;
    EXPECT_EQ(sb::decideCommand(policy, "/usr/bin/make", {"make"}).action, sb::RuleAction::Ask);
}

TEST(CommandDecide, RuleTextEscapesThePattern)
{
    sb::CommandPolicy policy;
    policy.rules = {{sb::RuleAction::Deny, "echo \"a b\"", ""}};
    auto d = sb::decideCommand(policy, "/bin/echo", {"echo", "a b"});
    EXPECT_EQ(d.rule, "commands.rules[0] (deny \"echo \\\"a b\\\"\")");
}

// Issue 26, item 10: a rule's comment reaches the decisions that name it.
TEST(CommandDecide, RuleTextCarriesTheComment)
{
    sb::CommandPolicy policy;
    policy.rules = {{sb::RuleAction::Deny, "git push *", "push from your own shell"}};
    auto d = sb::decideCommand(policy, "/usr/bin/git", {"git", "push"});
    EXPECT_EQ(d.rule, "commands.rules[0] (deny \"git push *\": push from your own shell)");
}

TEST(CommandDecide, MatcherGivesTheSameAnswersAsDecide)
{
    sb::CommandPolicy policy;
    policy.defaultAction = sb::RuleAction::Deny;
    policy.rules = {{sb::RuleAction::Allow, "make *", ""}, {sb::RuleAction::Ask, "npm *", ""}};
    const sb::CommandMatcher matcher(policy);
    for (const auto& argv : std::vector<std::vector<std::string>>{
             {"make"}, {"make", "-j4"}, {"npm", "install"}, {"curl", "x"}}) {
        const std::string program = "/usr/bin/" + argv[0];
        EXPECT_EQ(matcher.decide(program, argv).action,
                  sb::decideCommand(policy, program, argv).action);
    }
    EXPECT_EQ(matcher.decide("/usr/bin/curl", {"curl"}).action, sb::RuleAction::Deny);
}

} // namespace

TEST(CommandLine, SplitsAsAShellWould)
{
    using V = std::vector<std::string>;
    auto split = [](std::string_view text) {
        auto words = sb::splitCommandLine(text);
        EXPECT_TRUE(words) << words.error().message;
        return words ? *words : V{};
    };
    EXPECT_EQ(split("bash -c 'echo hi; ls'"), (V{"bash", "-c", "echo hi; ls"}));
    EXPECT_EQ(split(R"(printf "%s\n" "a \"b\" \$c" it\'s)"),
              (V{"printf", "%s\\n", "a \"b\" $c", "it's"}));
    EXPECT_EQ(split("  claude\t--model  x "), (V{"claude", "--model", "x"}));
    EXPECT_EQ(split("echo '*' [a]"), (V{"echo", "*", "[a]"})); // no glob escaping
    EXPECT_EQ(split(""), V{});
    // Quoting a word for display and splitting it again gives the word back.
    for (std::string word : {"it's", "a b", "$HOME", "x\\y", "\"q\""})
        EXPECT_EQ(split("cmd " + sb::quoteCommandWord(word)), (V{"cmd", word}));
}

TEST(CommandLine, RefusesWhatItCannotRun)
{
    auto error = [](std::string_view text) {
        auto words = sb::splitCommandLine(text);
        EXPECT_FALSE(words);
        return words ? std::string() : words.error().message;
    };
    EXPECT_EQ(error("echo 'unterminated"),
              "unterminated ' quote in \"echo 'unterminated\" (expected a closing ')");
    EXPECT_EQ(error("ls | sh"), "'|' in \"ls | sh\" is shell syntax (expected one program and its "
                                "arguments; quote the character to use it literally)");
    EXPECT_EQ(error("x\\"), "\"x\\\\\" ends with a lone '\\' (expected a character after it)");
}
