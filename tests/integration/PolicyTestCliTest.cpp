// `sandbench-cli policy test`: what a policy and its learned rules decide for a connection made
// by a given process (issue 34) or for a command, naming the rule that decides.
#include "IntegrationSupport.h"

#include <fstream>
#include <nlohmann/json.hpp>

using sbit::contains;
using sbit::dump;

namespace {

constexpr int kUsageError = 2;

constexpr const char* kPolicy = R"({"version": 1, "network": {"default": "ask", "rules": [
  {"action": "allow", "host": "github.com", "ports": [22], "program": "ssh", "command": "git *"},
  {"action": "deny", "host": "github.com", "comment": "only git's ssh"}]},
  "commands": {"rules": [{"action": "ask", "match": "git push *"}]}})";

} // namespace

TEST(PolicyTestCli, SaysWhichRuleDecidesForTheProcessGiven)
{
    sbit::Sandbench sb;
    const std::string policy = sb.writePolicy(kPolicy).string();
    // ssh started by git push: the program and the parent's command both match rule 1.
    auto sshFromGit =
        sb.cli({"policy", "test", "--policy", policy, "--host", "GitHub.com", "--port", "22",
                "--program", "/usr/bin/ssh", "--command", "ssh git@github.com", "--parent",
                "git push origin", "--parent", "bash"});
    EXPECT_EQ(sshFromGit.status, 0) << dump(sshFromGit);
    EXPECT_EQ(sshFromGit.out,
              "allow: rule 1 (allow github.com port 22 program ssh command \"git *\")\n");
    // ssh on its own, or an unknown process, falls to the deny.
    auto sshAlone = sb.cli({"policy", "test", "--policy", policy, "--host", "github.com", "--port",
                            "22", "--program", "/usr/bin/ssh"});
    EXPECT_EQ(sshAlone.out, "deny: rule 2 (deny github.com: only git's ssh)\n") << dump(sshAlone);
    auto unknown =
        sb.cli({"policy", "test", "--policy", policy, "--host", "github.com", "--port", "22"});
    EXPECT_EQ(unknown.out, "deny: rule 2 (deny github.com: only git's ssh)\n"
                           "no process given (--program, --command): rules naming one did not "
                           "apply\n")
        << dump(unknown);
    auto json = sb.cli({"policy", "test", "--policy", policy, "--host", "example.org", "--json"});
    EXPECT_EQ(json.status, 0) << dump(json);
    EXPECT_EQ(nlohmann::json::parse(json.out),
              (nlohmann::json{{"action", "ask"},
                              {"rule", "default (ask)"},
                              {"note",
                               "no process given (--program, --command): rules naming one did not "
                               "apply"}}));
    // Without --host, the command rules.
    auto command =
        sb.cli({"policy", "test", "--policy", policy, "--command", "git push -f origin"});
    EXPECT_EQ(command.out, "ask: commands.rules[0] (ask \"git push *\")\n") << dump(command);
}

TEST(PolicyTestCli, LearnedRulesCountAsInASession)
{
    sbit::Sandbench sb;
    const auto policy = sb.writePolicy(kPolicy);
    const auto learned = policy.parent_path() / (policy.stem().string() + ".learned.json");
    std::ofstream(learned) << R"({"version": 1, "network": [
        {"action": "allow", "host": "github.com", "ports": [22], "program": "/usr/bin/curl"}]})";
    auto curl = sb.cli({"policy", "test", "--policy", policy.string(), "--host", "github.com",
                        "--port", "22", "--program", "/usr/bin/curl"});
    EXPECT_EQ(curl.out, "allow: rule 1 (allow github.com port 22 program /usr/bin/curl)\n")
        << dump(curl);
}

TEST(PolicyTestCli, MistakesAreUsageErrors)
{
    sbit::Sandbench sb;
    const std::string policy = sb.writePolicy(kPolicy).string();
    auto nothing = sb.cli({"policy", "test", "--policy", policy});
    EXPECT_EQ(nothing.status, kUsageError) << dump(nothing);
    EXPECT_TRUE(contains(nothing.err, "needs --host (a connection) or --command")) << nothing.err;
    auto badHost = sb.cli({"policy", "test", "--policy", policy, "--host", "a b"});
    EXPECT_EQ(badHost.status, kUsageError) << dump(badHost);
    auto orphan =
        sb.cli({"policy", "test", "--policy", policy, "--host", "x.org", "--parent", "git"});
    EXPECT_EQ(orphan.status, kUsageError) << dump(orphan);
    auto pipe = sb.cli({"policy", "test", "--policy", policy, "--command", "git push | sh"});
    EXPECT_EQ(pipe.status, kUsageError) << dump(pipe);
    EXPECT_TRUE(contains(pipe.err, "is shell syntax")) << pipe.err;
    const std::string broken = sb.writePolicy(R"({"version": 1, "network": {"rules": [
  {"action": "allow", "host": "x.org", "program": "bin/ssh"}]}})")
                                   .string();
    auto bad = sb.cli({"policy", "test", "--policy", broken, "--host", "x.org"});
    EXPECT_EQ(bad.status, kUsageError) << dump(bad);
    EXPECT_TRUE(contains(bad.err, ":2:51: at /network/rules/0/program: 'bin/ssh' is neither"))
        << bad.err;
    // `policy` itself still wants its session and file.
    auto update = sb.cli({"policy"});
    EXPECT_EQ(update.status, kUsageError) << dump(update);
}
