// The list of files that run later (policy/RunLater.h): how its patterns match, how a policy
// changes it, and that docs/workspace.md lists every entry.
#include "policy/RunLater.h"

#include "TestSupport.h"
#include "policy/PolicyTestSupport.h"

#include <set>

namespace fs = std::filesystem;
using sb::RunLaterRules;

namespace {

const fs::path kProject = "/work/proj";
const fs::path kHome = "/home/u";

std::string reasonFor(const RunLaterRules& rules, const std::string& path, bool dir = false,
                      const fs::path& project = kProject)
{
    auto m = rules.match(path, dir, project, kHome);
    return m ? m->pattern : "";
}

} // namespace

TEST(RunLater, PatternsMatchThePathAndEverythingBeneathIt)
{
    EXPECT_TRUE(sb::runLaterPatternMatches(".git/hooks", ".git/hooks"));
    EXPECT_TRUE(sb::runLaterPatternMatches(".git/hooks", ".git/hooks/pre-commit"));
    EXPECT_FALSE(sb::runLaterPatternMatches(".git/hooks", ".git/hooksx"));
    EXPECT_FALSE(sb::runLaterPatternMatches(".git/hooks", ".git"));
    EXPECT_TRUE(sb::runLaterPatternMatches(".lintstagedrc*", ".lintstagedrc.json"));
    EXPECT_TRUE(sb::runLaterPatternMatches(".git/modules/**/hooks", ".git/modules/a/b/hooks/x"));
    EXPECT_TRUE(sb::runLaterPatternMatches("**/x", "x"));
}

TEST(RunLater, GitHooksConfigAndSubmodulesAtAnyDepth)
{
    RunLaterRules rules;
    EXPECT_EQ(reasonFor(rules, ".git/hooks/pre-commit"), ".git/hooks");
    EXPECT_EQ(reasonFor(rules, ".git/hooks/pre-commit.sample"), "") << "git never runs a sample";
    EXPECT_EQ(reasonFor(rules, "x.git/hooks/update.sample"), "");
    EXPECT_EQ(reasonFor(rules, ".git/config"), ".git/config");
    EXPECT_EQ(reasonFor(rules, "vendor/lib/.git/hooks/post-checkout"), ".git/hooks");
    EXPECT_EQ(reasonFor(rules, ".git/modules/sub/hooks/pre-push"), ".git/modules");
    EXPECT_EQ(reasonFor(rules, ".gitattributes"), ".gitattributes");
    EXPECT_EQ(reasonFor(rules, "docs/.gitattributes"), ".gitattributes");
    // Objects and refs run nothing: a commit the agent made is an ordinary change.
    EXPECT_EQ(reasonFor(rules, ".git/objects/ab/cdef"), "");
    EXPECT_EQ(reasonFor(rules, ".git/refs/heads/main"), "");
    EXPECT_EQ(reasonFor(rules, ".git", true), "");
    EXPECT_EQ(reasonFor(rules, ".git/hooks", true), "") << "a folder runs nothing itself";
    // .git as a file or link sends git to another repository, with that one's hooks.
    EXPECT_EQ(reasonFor(rules, ".git", false), ".git");
    EXPECT_EQ(reasonFor(rules, "src/main.c"), "");
    EXPECT_EQ(reasonFor(rules, "notes/git-hooks.md"), "");
}

TEST(RunLater, EachClassIsCovered)
{
    RunLaterRules rules;
    for (const char* path : {".husky/pre-commit",
                             ".pre-commit-config.yaml",
                             "lefthook.yml",
                             ".envrc",
                             "app/.envrc",
                             ".vscode/tasks.json",
                             ".vscode/settings.json",
                             ".idea/workspace.xml",
                             ".devcontainer/devcontainer.json",
                             ".github/workflows/ci.yml",
                             ".gitlab-ci.yml",
                             ".npmrc",
                             ".yarnrc.yml",
                             ".cargo/config.toml",
                             ".venv/lib/python3.11/site-packages/x.pth",
                             ".claude/settings.json",
                             ".mcp.json",
                             ".codex/config.toml",
                             ".aider.conf.yml",
                             ".sandbench/policy.json",
                             "gradle/wrapper/gradle-wrapper.properties"})
        EXPECT_NE(reasonFor(rules, path), "") << path;
    EXPECT_EQ(reasonFor(rules, ".vscode/extensions.json"), "");
    EXPECT_EQ(reasonFor(rules, "package.json"), "");
}

TEST(RunLater, HomeEntriesApplyWhereTheProjectHoldsTheHomeFolder)
{
    RunLaterRules rules;
    // The project is the home folder: its .bashrc is the shell's.
    EXPECT_EQ(reasonFor(rules, ".bashrc", false, kHome), "~/.bashrc");
    EXPECT_EQ(reasonFor(rules, ".config/autostart/x.desktop", false, kHome), "~/.config/autostart");
    EXPECT_EQ(reasonFor(rules, ".claude.json", false, kHome), "~/.claude.json");
    // The project is ~/.config: fish's configuration is in it.
    EXPECT_EQ(reasonFor(rules, "fish/config.fish", false, kHome / ".config"), "~/.config/fish");
    // Elsewhere a .bashrc is the project's own file.
    EXPECT_EQ(reasonFor(rules, ".bashrc"), "");
    EXPECT_EQ(rules.matchHome(".zshrc", false)->pattern, "~/.zshrc");
    EXPECT_FALSE(rules.matchHome("src/.zshrc", false));
}

TEST(RunLater, PolicyAddsEntriesAndTurnsBuiltInOnesOffByName)
{
    sb::RunLaterPolicy policy;
    policy.add = {{"tools/deploy.sh", "CI runs it"}, {"~/.myrc", ""}};
    policy.unprotect = {{".env", "we do not use autoenv"}};
    auto rules = RunLaterRules::make(policy);
    ASSERT_TRUE(rules) << rules.error().message;
    EXPECT_EQ(reasonFor(*rules, "tools/deploy.sh"), "tools/deploy.sh");
    EXPECT_EQ(rules->match("tools/deploy.sh", false, kProject, kHome)->reason,
              "the policy: CI runs it");
    EXPECT_EQ(reasonFor(*rules, ".env"), "");
    EXPECT_EQ(rules->matchHome(".myrc", false)->pattern, "~/.myrc");
    ASSERT_EQ(rules->unprotected().size(), 1u);

    policy.unprotect = {{".git/hook", "typo"}};
    auto refused = RunLaterRules::make(policy);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("'.git/hook' is no built-in entry"), std::string::npos)
        << refused.error().message;
}

TEST(RunLater, TheRepositoriesHooksPathIsHeldToo)
{
    sbtest::TempDir project;
    sbtest::writeFile(project / ".git/config",
                      "[core]\n\trepositoryformatversion = 0\n\thooksPath = tools/git-hooks\n");
    RunLaterRules rules;
    rules.addProjectConfiguration(project.path());
    EXPECT_EQ(reasonFor(rules, "tools/git-hooks/pre-commit", false, project.path()),
              "tools/git-hooks");
    EXPECT_EQ(reasonFor(rules, "tools/build.sh", false, project.path()), "");
}

TEST(RunLater, PolicyFileSpellingIsChecked)
{
    EXPECT_EQ(
        sbtest::refusal(
            R"({"version": 1, "filesystem": {"run_later": {"add": [{"path": "/etc/x"}]}}})"),
        "test.json:1:62: at /filesystem/run_later/add/0/path: '/etc/x' is absolute (expected a "
        "path relative to the project, or \"~/…\")");
    EXPECT_EQ(
        sbtest::refusal(
            R"({"version": 1, "filesystem": {"run_later": {"unprotect": [{"path": ".env"}]}}})"),
        "test.json:1:59: at /filesystem/run_later/unprotect/0: missing required key 'because' "
        "(expected \"because\": \"why it is safe here\")");
    EXPECT_NE(
        sbtest::refusal(
            R"({"version": 1, "filesystem": {"run_later": {"unprotect": [{"path": ".gitt", "because": "x"}]}}})")
            .find("'.gitt' is no built-in entry"),
        std::string::npos);
    auto policy = sbtest::accepted(
        R"({"version": 1, "filesystem": {"run_later": {"add": [{"path": "bin/ci", "reason": "CI"}],
            "unprotect": [{"path": "~/.npmrc", "because": "no scripts"}]}}})");
    ASSERT_EQ(policy.filesystem.runLater.add.size(), 1u);
    EXPECT_EQ(policy.filesystem.runLater.unprotect.at(0).path, "~/.npmrc");
}

TEST(RunLater, TheDocsListEveryEntry)
{
    const std::string docs = sbtest::readFile(fs::path(SANDBENCH_SOURCE_DIR) / "docs/workspace.md");
    std::set<std::string> seen;
    for (const sb::RunLaterEntry& e : sb::builtinRunLater()) {
        const std::string spelled = sb::spelledRunLater(e);
        EXPECT_TRUE(seen.insert(spelled).second) << "listed twice: " << spelled;
        EXPECT_NE(docs.find("`" + spelled + "`"), std::string::npos)
            << "docs/workspace.md does not list " << spelled;
    }
    EXPECT_NE(docs.find("version " + std::to_string(sb::kRunLaterListVersion)), std::string::npos);
}
