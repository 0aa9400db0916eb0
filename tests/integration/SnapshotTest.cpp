// Snapshots (issue 24): a stopped session's changes kept, restored after they changed, and
// forked into sessions that go on separately, at the same time; whiteouts (deletions) survive
// the copies. A running session is not copied under its agent's feet.
#include "IntegrationSupport.h"

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class Snapshots : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
};

} // namespace

TEST_F(Snapshots, TakeChangeRestoreAndCompare)
{
    ASSERT_EQ(
        sb.run("s1", {"bash", "-c", "echo v1 > a.txt; echo keep > k.txt; rm README.md"}).status, 0);
    const std::string before = sb.cli({"changes", "s1"}).out;
    auto taken = sb.cli({"snapshot", "s1", "before"});
    ASSERT_EQ(taken.status, 0) << dump(taken);
    EXPECT_TRUE(contains(taken.out, "snapshot before of s1")) << taken.out;

    ASSERT_EQ(sb.cli({"discard", "s1", "a.txt", "README.md"}).status, 0);
    EXPECT_NE(sb.cli({"changes", "s1"}).out, before);
    auto listed = sb.cli({"snapshots", "s1"});
    EXPECT_TRUE(contains(listed.out, "before")) << listed.out;

    auto restored = sb.cli({"restore", "s1", "before"});
    ASSERT_EQ(restored.status, 0) << dump(restored);
    EXPECT_EQ(sb.cli({"changes", "s1"}).out, before); // the deletion came back too
    EXPECT_TRUE(contains(before, "README.md")) << before;

    auto unknown = sb.cli({"restore", "s1", "nothing"});
    EXPECT_NE(unknown.status, 0);
    EXPECT_TRUE(contains(unknown.err, "no snapshot 'nothing'")) << unknown.err;
}

TEST_F(Snapshots, ForksGoOnSeparatelyAtTheSameTime)
{
    ASSERT_EQ(sb.run("base", {"bash", "-c", "echo base > shared.txt; rm README.md"}).status, 0);
    ASSERT_EQ(sb.cli({"snapshot", "base", "start"}).status, 0);
    for (const char* name : {"left", "right"}) {
        auto forked = sb.cli({"fork", "base", "start", "--as", name});
        ASSERT_EQ(forked.status, 0) << dump(forked);
        EXPECT_TRUE(contains(forked.out, "forked base@start as " + std::string(name)))
            << forked.out;
        auto started = sb.cli({"start", "--resume", name, "--name", std::string(name) + "-live"});
        ASSERT_EQ(started.status, 0) << dump(started);
    }
    // Both running at once, each on its own copy.
    for (const char* side : {"left", "right"}) {
        auto wrote = sb.cli({"exec", std::string(side) + "-live", "--", "bash", "-c",
                             std::string("cat shared.txt; echo ") + side +
                                 " >> shared.txt; test -e README.md || echo no-readme"});
        ASSERT_EQ(wrote.status, 0) << dump(wrote);
        EXPECT_EQ(wrote.out, "base\nno-readme\n");
    }
    for (const char* side : {"left", "right"}) {
        auto seen = sb.cli({"exec", std::string(side) + "-live", "--", "cat", "shared.txt"});
        EXPECT_EQ(seen.out, "base\n" + std::string(side) + "\n") << dump(seen);
        EXPECT_EQ(sb.cli({"stop", std::string(side) + "-live"}).status, 0);
        ASSERT_TRUE(sb.waitUntilEnded(std::string(side) + "-live"));
    }
    // The original is as it was; one fork applied gives its end result.
    EXPECT_TRUE(contains(sb.cli({"changes", "base"}).out, "shared.txt"));
    auto applied = sb.cli({"apply", "right-live"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "shared.txt"), "base\nright\n");
    EXPECT_FALSE(fs::exists(sb.workspace() / "README.md"));
}

TEST_F(Snapshots, ARunningSessionIsNotCopiedAndNamesAreChecked)
{
    auto started = sb.cli({"start", "--name", "busy"});
    ASSERT_EQ(started.status, 0) << dump(started);
    auto refused = sb.cli({"snapshot", "busy"});
    EXPECT_NE(refused.status, 0);
    EXPECT_TRUE(contains(refused.err, "session busy is running: stop it first")) << refused.err;
    EXPECT_EQ(sb.cli({"stop", "busy"}).status, 0);
    ASSERT_TRUE(sb.waitUntilEnded("busy"));
    auto named = sb.cli({"snapshot", "busy", "../x"});
    EXPECT_NE(named.status, 0);
    EXPECT_TRUE(contains(named.err, "snapshot name '../x'")) << named.err;
    auto first = sb.cli({"snapshot", "busy"});
    EXPECT_TRUE(contains(first.out, "snapshot snapshot-1 of busy")) << dump(first);
    auto taken = sb.cli({"snapshot", "busy", "snapshot-1"});
    EXPECT_NE(taken.status, 0);
    EXPECT_TRUE(contains(taken.err, "has a snapshot named 'snapshot-1' already")) << taken.err;
}
