#include "policy/Policy.h"

#include "TestSupport.h"
#include "policy/CommandRules.h"
#include "policy/Exposure.h"
#include "policy/NetworkRules.h"
#include "policy/PolicyTestSupport.h"

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using sbtest::accepted;
using sbtest::Malformed;
using sbtest::refusal;

} // namespace

TEST(Policy, SmallestDocumentTakesDefaults)
{
    const sb::Policy p = accepted(R"({"version": 1})");
    EXPECT_EQ(p.network.mode, sb::NetworkMode::Filtered);
    EXPECT_TRUE(p.filesystem.expose.empty());
    EXPECT_EQ(p.limits.memoryMb, 4096u);
    EXPECT_EQ(p.limits.pids, 512u);
    EXPECT_EQ(p.limits.openFiles, 4096u);
    EXPECT_EQ(p.limits.wallSeconds, 0u);
    EXPECT_TRUE(p.env.pass.empty());
    EXPECT_TRUE(p.env.set.empty());
    EXPECT_EQ(p.network.defaultAction, sb::RuleAction::Ask);
    EXPECT_TRUE(p.network.rules.empty());
    EXPECT_EQ(p.commands.defaultAction, sb::RuleAction::Allow);
    EXPECT_TRUE(p.commands.rules.empty());
    EXPECT_EQ(p.approvals.timeoutSeconds, 120u);
    EXPECT_EQ(p.approvals.onTimeout, sb::RuleAction::Deny);
}

TEST(Policy, EveryFieldIsRead)
{
    const sb::Policy p = accepted(R"({
      "version": 1,
      "filesystem": { "expose": [
        { "path": "~/.claude", "mode": "rw", "optional": true },
        { "path": "/opt/sdk" }
      ] },
      "network": { "mode": "filtered", "default": "deny", "rules": [
        { "action": "allow", "host": "*.github.com", "ports": [443, 22], "comment": "code" },
        { "action": "ask", "host": "10.0.0.0/8" }
      ] },
      "commands": { "default": "ask", "rules": [
        { "action": "deny", "match": "rm -rf /*", "comment": "no" },
        { "action": "allow", "match": "git status" }
      ] },
      "approvals": { "timeout_seconds": 30, "on_timeout": "allow" },
      "limits": { "memory_mb": 1024, "pids": 64, "cpu_percent": 150, "wall_seconds": 60,
                  "cpu_seconds": 30, "open_files": 256, "file_size_mb": 10 },
      "env": { "pass": ["ANTHROPIC_API_KEY", "MY_*"], "set": { "CI": "1", "EMPTY": "" } }
    })");
    ASSERT_EQ(p.filesystem.expose.size(), 2u);
    EXPECT_EQ(p.filesystem.expose[0].path, "~/.claude");
    EXPECT_EQ(p.filesystem.expose[0].mode, sb::AccessMode::ReadWrite);
    EXPECT_TRUE(p.filesystem.expose[0].optional);
    EXPECT_EQ(p.filesystem.expose[1].path, "/opt/sdk");
    EXPECT_EQ(p.filesystem.expose[1].mode, sb::AccessMode::ReadOnly);
    EXPECT_FALSE(p.filesystem.expose[1].optional);
    EXPECT_EQ(p.network.mode, sb::NetworkMode::Filtered);
    EXPECT_EQ(p.network.defaultAction, sb::RuleAction::Deny);
    ASSERT_EQ(p.network.rules.size(), 2u);
    EXPECT_EQ(p.network.rules[0].action, sb::RuleAction::Allow);
    EXPECT_EQ(p.network.rules[0].host, "*.github.com");
    EXPECT_EQ(p.network.rules[0].ports, (std::vector<std::uint16_t>{443, 22}));
    EXPECT_EQ(p.network.rules[0].comment, "code");
    EXPECT_EQ(p.network.rules[1].action, sb::RuleAction::Ask);
    EXPECT_TRUE(p.network.rules[1].ports.empty());
    EXPECT_EQ(p.commands.defaultAction, sb::RuleAction::Ask);
    ASSERT_EQ(p.commands.rules.size(), 2u);
    EXPECT_EQ(p.commands.rules[0].action, sb::RuleAction::Deny);
    EXPECT_EQ(p.commands.rules[0].match, "rm -rf /*");
    EXPECT_EQ(p.commands.rules[0].comment, "no");
    EXPECT_EQ(p.commands.rules[1].match, "git status");
    EXPECT_EQ(p.approvals.timeoutSeconds, 30u);
    EXPECT_EQ(p.approvals.onTimeout, sb::RuleAction::Allow);
    EXPECT_EQ(p.limits.memoryMb, 1024u);
    EXPECT_EQ(p.limits.pids, 64u);
    EXPECT_EQ(p.limits.cpuPercent, 150u);
    EXPECT_EQ(p.limits.wallSeconds, 60u);
    EXPECT_EQ(p.limits.cpuSeconds, 30u);
    EXPECT_EQ(p.limits.openFiles, 256u);
    EXPECT_EQ(p.limits.fileSizeMb, 10u);
    EXPECT_EQ(p.env.pass, (std::vector<std::string>{"ANTHROPIC_API_KEY", "MY_*"}));
    EXPECT_EQ(p.env.set, (std::map<std::string, std::string>{{"CI", "1"}, {"EMPTY", ""}}));
    EXPECT_EQ(sb::toString(p.network.mode), "filtered");
    EXPECT_EQ(sb::toString(p.filesystem.expose[0].mode), "rw");
}

TEST(Policy, CommentsInOddPlacesParse)
{
    const sb::Policy p =
        accepted("// leading\n/* block */ { // after brace\n"
                 "  \"version\" /* before colon */ : /* after colon */ 1,\n"
                 "  \"env\": { \"pass\": [ \"A\" /* between */, // line\n \"B\" ],\n"
                 "           \"set\": { \"URL\": \"http://x//not-a-comment/*\" } }\n"
                 "} // trailing\n/* end */");
    EXPECT_EQ(p.env.pass, (std::vector<std::string>{"A", "B"}));
    EXPECT_EQ(p.env.set.at("URL"), "http://x//not-a-comment/*");
}

TEST(Policy, PositionsSurviveCommentsAndTrickyStrings)
{
    // A "/*" inside a string and an escaped quote must not confuse the position of the bad key.
    EXPECT_EQ(refusal("{\"version\": 1, /* { */\n \"env\": {\"set\": {\"U\": \"a/*\\\"b\"}},\n"
                      " // \"x\": [\n  \"nope\": 0}"),
              "test.json:4:3: at /nope: unknown key 'nope' (expected one of: version, filesystem, "
              "network, commands, limits, env, approvals, secrets)");
    // Keys that need escaping in a JSON pointer.
    EXPECT_EQ(refusal(R"({"version": 1, "a/b~": 1})"),
              "test.json:1:16: at /a~1b~0: unknown key 'a/b~' (expected one of: version, "
              "filesystem, network, commands, limits, env, approvals, secrets)");
}

class PolicyMalformed : public testing::TestWithParam<Malformed> {};

TEST_P(PolicyMalformed, IsRefusedWithExactMessage)
{
    EXPECT_EQ(refusal(GetParam().text), GetParam().message) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Policy, PolicyMalformed,
    testing::Values(
        // JSON syntax, positioned at the offending token.
        Malformed{R"({"version": 1,})",
                  "test.json:1:15: invalid JSON: unexpected '}' (expected string literal)"},
        Malformed{"{\n  \"version\": 1\n  \"network\": {}\n}",
                  "test.json:3:3: invalid JSON: unexpected string literal (expected '}')"},
        Malformed{"{\n  \"version\": tru\n}", "test.json:2:14: invalid JSON: invalid literal"},
        Malformed{R"({"version": 1} x)",
                  "test.json:1:16: invalid JSON: invalid literal (expected end of input)"},
        Malformed{R"({"version": 1} {})",
                  "test.json:1:16: invalid JSON: unexpected '{' (expected end of input)"},
        Malformed{"", "test.json:1:1: invalid JSON: unexpected end of input (expected '[', '{', "
                      "or a literal)"},
        Malformed{"{\"version\": 1 /* never closed",
                  "test.json:1:30: invalid JSON: invalid comment; missing closing '*/' (expected "
                  "'}')"},
        Malformed{R"({"version": 1, "limits": {"pids": 1e400}})",
                  "test.json:1:35: invalid JSON: number overflow parsing '1e400'"},
        // Document shape and version.
        Malformed{"[1]",
                  "test.json:1:1: at /: got an array (expected an object with keys: version, "
                  "filesystem, network, commands, limits, env, approvals, secrets)"},
        Malformed{"{}",
                  R"(test.json:1:1: at /: missing required key 'version' (expected "version": 1))"},
        Malformed{R"({"version": 2})",
                  "test.json:1:13: at /version: unsupported version 2 (expected 1)"},
        Malformed{R"({"version": "1"})", R"(test.json:1:13: at /version: got "1" (expected 1))"},
        // Unknown keys, at the key, with a suggestion when one is close.
        Malformed{
            R"({"version": 1, "netwrk": {}})",
            "test.json:1:16: at /netwrk: unknown key 'netwrk' (expected one of: version, "
            "filesystem, network, commands, limits, env, approvals, secrets; did you mean 'network'?)"},
        Malformed{R"({"version": 1, "foo": {}})",
                  "test.json:1:16: at /foo: unknown key 'foo' (expected one of: version, "
                  "filesystem, network, commands, limits, env, approvals, secrets)"},
        Malformed{"{\"version\": 1,\n \"limits\": {\n    \"memroy_mb\": 1}}",
                  "test.json:3:5: at /limits/memroy_mb: unknown key 'memroy_mb' (expected one of: "
                  "memory_mb, pids, cpu_percent, wall_seconds, idle_seconds, cpu_seconds, "
                  "open_files, file_size_mb, model_tokens, model_requests; did you mean 'memory_mb'?)"},
        Malformed{
            R"({"version": 1, "filesystem": {"expose": [{"path": "/opt", "mod": "rw"}]}})",
            "test.json:1:59: at /filesystem/expose/0/mod: unknown key 'mod' (expected one of: "
            "path, mode, optional; did you mean 'mode'?)"},
        // Network.
        Malformed{"{\"version\": 1,\n  \"network\": {\"mode\": \"fltered\"}}",
                  "test.json:2:23: at /network/mode: unknown value 'fltered' (expected one of: "
                  "none, filtered, host; did you mean 'filtered'?)"},
        Malformed{
            R"({"version": 1, "network": {"mode": 1}})",
            "test.json:1:36: at /network/mode: got 1 (expected one of: none, filtered, host)"},
        Malformed{
            R"({"version": 1, "network": "none"})",
            R"(test.json:1:27: at /network: got "none" (expected an object with keys: mode, default, rules))"},
        // Limits.
        Malformed{R"({"version": 1, "limits": {"pids": -1}})",
                  "test.json:1:35: at /limits/pids: -1 is out of range (expected an integer from 0 "
                  "to 4194304)"},
        Malformed{R"({"version": 1, "limits": {"memory_mb": 2000000}})",
                  "test.json:1:40: at /limits/memory_mb: 2000000 is out of range (expected an "
                  "integer from 0 to 1048576)"},
        Malformed{R"({"version": 1, "limits": {"wall_seconds": 1.5}})",
                  "test.json:1:43: at /limits/wall_seconds: got 1.5 (expected an integer from 0 to "
                  "2592000)"},
        Malformed{
            R"({"version": 1, "limits": {"pids": "512"}})",
            R"(test.json:1:35: at /limits/pids: got "512" (expected an integer from 0 to 4194304))"},
        Malformed{R"({"version": 1, "limits": {"open_files": 0}})",
                  "test.json:1:41: at /limits/open_files: 0 is out of range (expected an integer "
                  "from 16 to 1048576)"},
        Malformed{R"({"version": 1, "limits": []})",
                  "test.json:1:26: at /limits: got an array (expected an object with keys: "
                  "memory_mb, pids, cpu_percent, wall_seconds, idle_seconds, cpu_seconds, "
                  "open_files, file_size_mb, model_tokens, model_requests)"},
        // Environment.
        Malformed{R"({"version": 1, "env": {"pass": ["OK", "FOO-BAR"]}})",
                  "test.json:1:39: at /env/pass/1: invalid variable name 'FOO-BAR' (expected "
                  "letters, digits and '_', not starting with a digit; '*' only at the end)"},
        Malformed{R"({"version": 1, "env": {"pass": ["A*B"]}})",
                  "test.json:1:33: at /env/pass/0: invalid variable name 'A*B' (expected letters, "
                  "digits and '_', not starting with a digit; '*' only at the end)"},
        Malformed{R"({"version": 1, "env": {"pass": ["*"]}})",
                  "test.json:1:33: at /env/pass/0: '*' would pass the whole environment (expected "
                  "a name or a prefix such as \"MYAPP_*\")"},
        Malformed{R"({"version": 1, "env": {"pass": "HOME"}})",
                  "test.json:1:32: at /env/pass: got \"HOME\" (expected an array of variable names "
                  "or \"PREFIX_*\" patterns)"},
        Malformed{R"({"version": 1, "env": {"set": {"1X": "y"}}})",
                  "test.json:1:32: at /env/set/1X: invalid variable name '1X' (expected letters, "
                  "digits and '_', not starting with a digit)"},
        Malformed{R"({"version": 1, "env": {"set": {"CI": 1}}})",
                  "test.json:1:38: at /env/set/CI: got 1 (expected a string)"},
        Malformed{R"({"version": 1, "env": {"set": {"X": "a\u0000b"}}})",
                  "test.json:1:37: at /env/set/X: the string contains a NUL character (expected a "
                  "string)"},
        // Filesystem.
        Malformed{R"({"version": 1, "filesystem": {"expose": [{"path": "/opt", "mode": "rx"}]}})",
                  "test.json:1:67: at /filesystem/expose/0/mode: unknown value 'rx' (expected one "
                  "of: ro, rw; did you mean 'ro'?)"},
        Malformed{R"({"version": 1, "filesystem": {"expose": [{"mode": "ro"}]}})",
                  "test.json:1:42: at /filesystem/expose/0: missing required key 'path' (expected "
                  "\"path\": \"~/…\" or \"/…\")"},
        Malformed{R"({"version": 1, "filesystem": {"expose": {"path": "/opt"}}})",
                  "test.json:1:41: at /filesystem/expose: got an object (expected an array of "
                  "{\"path\": …, \"mode\": \"ro\"|\"rw\"})"},
        Malformed{R"({"version": 1, "filesystem": {"expose": ["/opt"]}})",
                  "test.json:1:42: at /filesystem/expose/0: got \"/opt\" (expected an object with "
                  "keys: path, mode, optional)"},
        Malformed{R"({"version": 1, "filesystem": {"expose": [{"path": "src"}]}})",
                  "test.json:1:51: at /filesystem/expose/0/path: 'src' is relative (expected an "
                  "absolute path or one starting with \"~/\")"},
        Malformed{R"({"version": 1, "filesystem": {"expose": [{"path": "~/../etc"}]}})",
                  "test.json:1:51: at /filesystem/expose/0/path: '..' is not allowed in a path "
                  "(expected a path without '..')"},
        Malformed{R"({"version": 1, "filesystem": {"expose": [{"path": "/proc/self"}]}})",
                  "test.json:1:51: at /filesystem/expose/0/path: '/proc/self' is under /proc, "
                  "which the sandbox provides itself (expected a path elsewhere)"},
        Malformed{R"({"version": 1, "filesystem": {"expose": [{"path": "~/*/x"}]}})",
                  "test.json:1:51: at /filesystem/expose/0/path: a glob may only appear in the "
                  "last component of '~/*/x'"},
        Malformed{
            R"({"version": 1, "filesystem": {"expose": [{"path": "/opt", "optional": "yes"}]}})",
            "test.json:1:71: at /filesystem/expose/0/optional: got \"yes\" (expected true or "
            "false)"},
        // Duplicate keys, which a JSON library would silently collapse.
        Malformed{"{\n  \"version\": 1,\n  \"version\": 1\n}",
                  "test.json:3:3: at /version: duplicate key 'version' (expected each key once; "
                  "the first is at 2:3)"},
        Malformed{"{\"version\": 1, \"network\": {\"mode\": \"none\",\n \"mode\": \"host\"}}",
                  "test.json:2:2: at /network/mode: duplicate key 'mode' (expected each key once; "
                  "the first is at 1:28)"}));

TEST(Policy, ReportsEveryProblemInDocumentOrder)
{
    EXPECT_EQ(refusal("{\"version\": 1,\n"
                      " \"network\": {\"mode\": \"hots\"},\n"
                      " \"limits\": {\"pids\": -5}}"),
              "test.json:2:22: at /network/mode: unknown value 'hots' (expected one of: none, "
              "filtered, host; did you mean 'host'?)\n"
              "test.json:3:21: at /limits/pids: -5 is out of range (expected an integer from 0 to "
              "4194304)");
}

// Found by fuzz_policy: the JSON parser ends a comment at a NUL byte and read "7" as the
// document, while the position scan read on and took a bare word for a key.
TEST(Policy, ANulByteIsRefusedWhereItIs)
{
    const std::string text("// a comment\0 7\n{\"version\": 1}", 30);
    auto p = sb::parsePolicy(text, "test.json");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().message, "test.json:1:13: a NUL byte (expected text)");
}

TEST(Policy, RefusesOversizedText)
{
    const std::string huge = "{\"version\": 1}" + std::string(1024 * 1024, ' ');
    EXPECT_EQ(refusal(huge), "test.json: the policy is 1048590 bytes (expected at most 1048576)");
}

TEST(Policy, DeepNestingIsRefusedNotCrashed)
{
    const std::string deep =
        "{\"version\": 1, \"x\": " + std::string(10000, '[') + std::string(10000, ']') + "}";
    // The root object is level 1, the first '[' (column 21) level 2: column 52 opens level 33.
    EXPECT_EQ(refusal(deep), "test.json:1:52: nested too deeply (expected at most 32 levels)");
    const std::string fine =
        "{\"version\": 1, \"x\": " + std::string(31, '[') + std::string(31, ']') + "}";
    EXPECT_EQ(refusal(fine), "test.json:1:16: at /x: unknown key 'x' (expected one of: version, "
                             "filesystem, network, commands, limits, env, approvals, secrets)");
}

TEST(PolicyFile, OriginIsThePath)
{
    sbtest::TempDir dir;
    sbtest::writeFile(dir / "p.json",
                      "{\n  \"version\": 1,\n  \"network\": {\"mode\": \"open\"}\n}\n");
    auto p = sb::loadPolicyFile(dir / "p.json");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().message, (dir / "p.json").string() +
                                     ":3:23: at /network/mode: unknown value 'open' (expected one "
                                     "of: none, filtered, host)");

    sbtest::writeFile(dir / "ok.json", "{\"version\": 1, \"network\": {\"mode\": \"host\"}}");
    auto ok = sb::loadPolicyFile(dir / "ok.json");
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ(ok->network.mode, sb::NetworkMode::Host);
}

TEST(PolicyFile, MissingUnreadableOrHugeFilesAreNamed)
{
    sbtest::TempDir dir;
    auto missing = sb::loadPolicyFile(dir / "missing.json");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, sb::ErrorCode::NotFound);
    EXPECT_EQ(missing.error().describe(), "cannot open policy file '" +
                                              (dir / "missing.json").string() +
                                              "': No such file or directory");

    auto directory = sb::loadPolicyFile(dir.path());
    ASSERT_FALSE(directory);
    EXPECT_EQ(directory.error().message,
              "policy file '" + dir.path().string() + "' is not a regular file");

    sbtest::writeFile(dir / "big.json", std::string(1024 * 1024 + 1, ' '));
    auto big = sb::loadPolicyFile(dir / "big.json");
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().message, "policy file '" + (dir / "big.json").string() +
                                       "' is 1048577 bytes (expected at most 1048576)");
}

TEST(PolicyPreset, EveryShippedPresetParses)
{
    const std::vector<std::string> names = sb::presetNames();
    for (const char* expected : {"aider", "claude-code", "codex", "generic", "offline"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    for (const auto& entry : fs::directory_iterator(sb::presetDirectory())) {
        if (entry.path().extension() != ".json") continue;
        auto p = sb::loadPolicyFile(entry.path());
        EXPECT_TRUE(p) << p.error().message;
        auto byName = sb::loadPreset(entry.path().stem().string());
        EXPECT_TRUE(byName) << byName.error().message;
    }
}

TEST(PolicyPreset, ShippedPresetsSayWhatTheyPromise)
{
    auto generic = sb::loadPreset("generic");
    ASSERT_TRUE(generic);
    EXPECT_EQ(generic->network.mode, sb::NetworkMode::Filtered);
    EXPECT_EQ(generic->network.defaultAction, sb::RuleAction::Ask);
    EXPECT_TRUE(generic->network.rules.empty());
    EXPECT_TRUE(generic->filesystem.expose.empty());
    EXPECT_EQ(generic->limits.memoryMb, sb::Limits{}.memoryMb);

    auto offline = sb::loadPreset("offline");
    ASSERT_TRUE(offline);
    EXPECT_EQ(offline->network.mode, sb::NetworkMode::None);
    EXPECT_LT(offline->limits.memoryMb, sb::Limits{}.memoryMb);
    EXPECT_LT(offline->limits.pids, sb::Limits{}.pids);
    EXPECT_GT(offline->limits.wallSeconds, 0u);

    auto claude = sb::loadPreset("claude-code");
    ASSERT_TRUE(claude);
    EXPECT_EQ(claude->network.mode, sb::NetworkMode::Filtered);
    EXPECT_EQ(sb::decideHost(claude->network, "api.anthropic.com", 443).action,
              sb::RuleAction::Allow);
    EXPECT_EQ(sb::decideHost(claude->network, "example.com", 443).action, sb::RuleAction::Ask);
    ASSERT_EQ(claude->filesystem.expose.size(), 2u);
    EXPECT_EQ(claude->filesystem.expose[0].path, "~/.claude");
    EXPECT_EQ(claude->filesystem.expose[0].mode, sb::AccessMode::ReadWrite);
    EXPECT_TRUE(claude->filesystem.expose[0].optional);
    EXPECT_EQ(claude->filesystem.expose[1].path, "~/.claude.json");
    // The API key is a secret (optional: a login through ~/.claude works without it), never
    // passed in as it is.
    EXPECT_EQ(std::find(claude->env.pass.begin(), claude->env.pass.end(), "ANTHROPIC_API_KEY"),
              claude->env.pass.end());
    ASSERT_FALSE(claude->secrets.empty());
    EXPECT_EQ(claude->secrets[0].env, "ANTHROPIC_API_KEY");
    EXPECT_EQ(claude->secrets[0].from.variable, "ANTHROPIC_API_KEY");
    EXPECT_EQ(claude->secrets[0].hosts, std::vector<std::string>{"api.anthropic.com"});
    EXPECT_TRUE(claude->secrets[0].optional);
    for (const char* name : {"codex", "aider"}) {
        auto agent = sb::loadPreset(name);
        ASSERT_TRUE(agent) << name;
        EXPECT_FALSE(agent->secrets.empty()) << name << " keeps its API keys as secrets";
    }

    // The agent presets ask before work leaves the machine, and let everything else run.
    for (const char* name : {"claude-code", "codex", "aider"}) {
        auto agent = sb::loadPreset(name);
        ASSERT_TRUE(agent) << name;
        EXPECT_EQ(
            sb::decideCommand(agent->commands, "/usr/bin/git", {"git", "push", "origin"}).action,
            sb::RuleAction::Ask)
            << name;
        EXPECT_EQ(sb::decideCommand(agent->commands, "/usr/bin/npm", {"npm", "publish"}).action,
                  sb::RuleAction::Ask)
            << name;
        EXPECT_EQ(
            sb::decideCommand(agent->commands, "/usr/bin/git", {"git", "commit", "-m", "x"}).action,
            sb::RuleAction::Allow)
            << name;
        EXPECT_EQ(agent->approvals.onTimeout, sb::RuleAction::Deny) << name;
    }
    EXPECT_TRUE(generic->commands.rules.empty());
}

TEST(PolicyPreset, BadOrUnknownNamesAreRefused)
{
    auto slash = sb::loadPreset("../presets/generic");
    ASSERT_FALSE(slash);
    EXPECT_EQ(slash.error().message,
              "invalid preset name '../presets/generic' (expected a name such as 'generic', "
              "without '/')");

    auto unknown = sb::loadPreset("clade-code");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, sb::ErrorCode::NotFound);
    const std::vector<std::string> names = sb::presetNames();
    std::string list;
    for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + n;
    EXPECT_EQ(unknown.error().message, "unknown preset 'clade-code' (expected one of: " + list +
                                           "; did you mean 'claude-code'?)");
}

// The documentation's examples are policies too: they must keep parsing as the schema grows.
TEST(PolicyDocs, EveryJsoncBlockParses)
{
    std::ifstream in(fs::path(SANDBENCH_SOURCE_DIR) / "docs/policy.md");
    ASSERT_TRUE(in) << "docs/policy.md is missing";
    std::string line, block;
    int blocks = 0, lineNo = 0, start = 0;
    bool inside = false;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!inside && line.rfind("```jsonc", 0) == 0) {
            inside = true;
            start = lineNo;
            block.clear();
        } else if (inside && line.rfind("```", 0) == 0) {
            inside = false;
            ++blocks;
            auto p =
                sb::parsePolicy(block, "docs/policy.md block at line " + std::to_string(start));
            EXPECT_TRUE(p) << p.error().message;
        } else if (inside) {
            block += line + '\n';
        }
    }
    EXPECT_FALSE(inside) << "unterminated code block";
    EXPECT_GE(blocks, 2);
}

TEST(PolicyDocs, ListsEverySensitivePath)
{
    std::ifstream in(fs::path(SANDBENCH_SOURCE_DIR) / "docs/policy.md");
    std::stringstream text;
    text << in.rdbuf();
    for (std::string_view rel : sb::sensitiveHomePaths()) {
        bool listed = false;
        const std::string word = "~/" + std::string(rel), doc = text.str();
        for (auto at = doc.find(word); at != std::string::npos && !listed;
             at = doc.find(word, at + 1))
            listed = at + word.size() < doc.size() && std::isspace(doc[at + word.size()]);
        EXPECT_TRUE(listed) << rel;
    }
}
