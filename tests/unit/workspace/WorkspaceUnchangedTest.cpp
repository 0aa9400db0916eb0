// An upper entry that equals the project's but for its timestamps (`touch README.md`, an editor
// that saved the same bytes, a chmod and its undo) is no change: changes, diff and apply leave
// it out. A change of bytes, mode or type of the same size still counts.
#include "TestSupport.h"
#include "workspace/Workspace.h"
#include "workspace/WorkspaceTestSupport.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

class WorkspaceUnchanged : public sbtest::LayerTest {
  protected:
    std::vector<std::string> changedPaths()
    {
        auto list = sb::listChanges(upper, project);
        EXPECT_TRUE(list) << list.error().describe();
        std::vector<std::string> out;
        if (list)
            for (const auto& c : *list)
                out.push_back((c.kind == sb::ChangeKind::Modified ? "M " : "? ") + c.path);
        return out;
    }
    // The upper copy of a project file with the same bytes and mode, a newer modification time.
    void touched(const std::string& rel, const std::string& content)
    {
        real(rel, content);
        up(rel, content);
        const auto perms = static_cast<mode_t>(fs::status(project / rel).permissions());
        ASSERT_EQ(::chmod((upper / rel).c_str(), perms), 0);
        const timespec times[2] = {{1, 0}, {1, 0}}; // the project's: long ago
        ::utimensat(AT_FDCWD, (project / rel).c_str(), times, 0);
    }
};

} // namespace

TEST_F(WorkspaceUnchanged, ATouchedFileIsNoChange)
{
    touched("README.md", "# readme\n");
    touched("big.bin", std::string(300 * 1024, 'x')); // more than one read's chunk
    EXPECT_TRUE(changedPaths().empty());
    auto diff = sb::unifiedDiff(upper, project, {});
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(*diff, "");
    sb::ApplyOptions options;
    options.sessionStartNs = 2'000'000'000LL;
    auto report = sb::applyChanges(upper, project, options);
    ASSERT_TRUE(report) << report.error().describe();
    EXPECT_TRUE(report->applied.empty());
    struct stat st {};
    ASSERT_EQ(::stat((project / "README.md").c_str(), &st), 0);
    EXPECT_EQ(st.st_mtim.tv_sec, 1) << "apply did not write the touched file";
}

TEST_F(WorkspaceUnchanged, SameSizeOtherBytesModeOrTypeIsAChange)
{
    touched("bytes.txt", "aaaa");
    sbtest::writeFile(upper / "bytes.txt", "aaab");
    touched("late.bin", std::string(200 * 1024, 'x'));
    sbtest::writeFile(upper / "late.bin", std::string(200 * 1024 - 1, 'x') + "y");
    touched("mode.sh", "echo\n");
    ASSERT_EQ(::chmod((upper / "mode.sh").c_str(), 0755), 0);
    real("link", "target");
    ASSERT_EQ(::symlink("target", (upper / "link").c_str()), 0) << "a file became a link";
    EXPECT_EQ(changedPaths(),
              (std::vector<std::string>{"M bytes.txt", "M late.bin", "M link", "M mode.sh"}));
}

TEST_F(WorkspaceUnchanged, ALinkWithTheSameTargetIsNoChange)
{
    ASSERT_EQ(::symlink("a/target", (project / "same").c_str()), 0);
    ASSERT_EQ(::symlink("a/target", (upper / "same").c_str()), 0);
    ASSERT_EQ(::symlink("a/target", (project / "moved").c_str()), 0);
    ASSERT_EQ(::symlink("b/target", (upper / "moved").c_str()), 0);
    EXPECT_EQ(changedPaths(), (std::vector<std::string>{"M moved"}));
}
