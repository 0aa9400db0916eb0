// What the GUI's review reads from the core: both sides of one path (readChange), a dry run
// that finds conflicts without writing, and progress while applying.
#include "workspace/Workspace.h"
#include "workspace/WorkspaceTestSupport.h"

#include <chrono>
#include <cstring>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <thread>

namespace fs = std::filesystem;

namespace {

std::int64_t nowNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

class WorkspaceContent : public sbtest::LayerTest {
  protected:
    sb::ChangeContent read(const std::string& rel, std::size_t maxBytes = 1 << 20)
    {
        auto content = sb::readChange(upper, project, rel, maxBytes);
        EXPECT_TRUE(content) << content.error().describe();
        return content ? *content : sb::ChangeContent{};
    }
};

TEST_F(WorkspaceContent, ModifiedAddedAndUnchangedFiles)
{
    real("m.txt", "old\n");
    up("m.txt", "new\n");
    up("dir/added.txt", "hello\n");
    real("same.txt", "same\n");

    auto m = read("m.txt");
    EXPECT_TRUE(m.before.exists && m.after.exists);
    EXPECT_EQ(m.before.content, "old\n");
    EXPECT_EQ(m.after.content, "new\n");
    EXPECT_EQ(m.after.size, 4u);

    auto a = read("dir/added.txt");
    EXPECT_FALSE(a.before.exists);
    EXPECT_EQ(a.after.content, "hello\n");

    auto same = read("same.txt");
    EXPECT_EQ(same.before.content, "same\n");
    EXPECT_EQ(same.after.content, "same\n");
}

TEST_F(WorkspaceContent, DeletionsThroughWhiteoutsAndOpaqueDirectories)
{
    real("gone.txt", "bye\n");
    whiteout("gone.txt");
    real("tree/inner.txt", "inside\n");
    whiteout("tree");
    real("od/hidden.txt", "hidden\n");
    opaque("od");
    up("od/fresh.txt", "fresh\n");

    auto gone = read("gone.txt");
    EXPECT_EQ(gone.before.content, "bye\n");
    EXPECT_FALSE(gone.after.exists);
    // A file inside a deleted directory is gone from the session's view too.
    auto inner = read("tree/inner.txt");
    EXPECT_TRUE(inner.before.exists);
    EXPECT_FALSE(inner.after.exists);
    auto hidden = read("od/hidden.txt");
    EXPECT_TRUE(hidden.before.exists);
    EXPECT_FALSE(hidden.after.exists);
    EXPECT_EQ(read("od/fresh.txt").after.content, "fresh\n");
}

TEST_F(WorkspaceContent, SymlinksReadAsTheirTargetAndAreNeverFollowed)
{
    sbtest::writeFile(root / "secret", "do not show\n");
    fs::create_symlink(root / "secret", upper / "link");
    fs::create_directories(project / "realdir");
    fs::create_symlink(root.path(), project / "through");

    auto link = read("link");
    EXPECT_EQ(link.after.type, sb::EntryType::Symlink);
    EXPECT_EQ(link.after.content, (root / "secret").string());
    // A path under a real symlink is not read through it.
    auto through = read("through/secret");
    EXPECT_FALSE(through.before.exists);
}

TEST_F(WorkspaceContent, LargeFilesAreCutAtTheLimit)
{
    real("big.bin", std::string(1000, 'x'));
    up("big.bin", std::string(10, 'y'));
    auto big = read("big.bin", 100);
    EXPECT_TRUE(big.before.truncated);
    EXPECT_EQ(big.before.content.size(), 100u);
    EXPECT_EQ(big.before.size, 1000u);
    EXPECT_FALSE(big.after.truncated);
    EXPECT_EQ(big.after.content, std::string(10, 'y'));
}

TEST_F(WorkspaceContent, BadPathsAreRefused)
{
    EXPECT_FALSE(sb::readChange(upper, project, "../etc/passwd", 100));
    EXPECT_FALSE(sb::readChange(upper, project, "/etc/passwd", 100));
}

TEST_F(WorkspaceContent, DryRunFindsConflictsAndWritesNothing)
{
    real("calm.txt", "calm\n");
    real("busy.txt", "busy\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::int64_t start = nowNs();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    up("calm.txt", "calm 2\n");
    up("busy.txt", "busy 2\n");
    up("newdir/file.txt", "new\n");
    real("busy.txt", "busy, edited by the user\n");

    sb::ApplyOptions options;
    options.sessionStartNs = start;
    options.dryRun = true;
    auto report = sb::applyChanges(upper, project, options);
    ASSERT_TRUE(report) << report.error().describe();
    ASSERT_EQ(report->conflicts.size(), 1u);
    EXPECT_EQ(report->conflicts[0].path, "busy.txt");
    EXPECT_TRUE(report->skipped.empty());
    EXPECT_EQ(report->applied, (std::vector<std::string>{"calm.txt", "newdir", "newdir/file.txt"}));
    EXPECT_EQ(sbtest::readFile(project / "calm.txt"), "calm\n");
    EXPECT_FALSE(fs::exists(project / "newdir"));
    EXPECT_TRUE(fs::exists(upper / "calm.txt"));
}

TEST_F(WorkspaceContent, ApplyReportsProgressPerEntry)
{
    for (int i = 0; i < 5; ++i)
        up("f" + std::to_string(i), "x");
    std::vector<std::pair<std::size_t, std::size_t>> seen;
    sb::ApplyOptions options;
    options.sessionStartNs = nowNs();
    options.progress = [&](std::size_t done, std::size_t total) { seen.emplace_back(done, total); };
    auto report = sb::applyChanges(upper, project, options);
    ASSERT_TRUE(report) << report.error().describe();
    ASSERT_EQ(seen.size(), 5u);
    EXPECT_EQ(seen.front(), std::make_pair(std::size_t{1}, std::size_t{5}));
    EXPECT_EQ(seen.back(), std::make_pair(std::size_t{5}, std::size_t{5}));
    EXPECT_EQ(report->applied.size(), 5u);
}

} // namespace
