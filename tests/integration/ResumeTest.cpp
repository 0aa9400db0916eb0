// Resuming (issue 24): a new session takes over an ended one's changes and goes on with them;
// applied once, the real folder gets the final content. A real file changed since the first
// session began is still a conflict. What cannot be resumed says why.
#include "IntegrationSupport.h"

#include <chrono>
#include <thread>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class Resume : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
};

} // namespace

TEST_F(Resume, ANewSessionGoesOnWithTheChangesAndOneApplyWritesTheEnd)
{
    auto first = sb.run("first", {"bash", "-c", "echo one > notes.txt; echo kept > kept.txt"});
    ASSERT_EQ(first.status, 0) << dump(first);

    // Without --workspace: the first session's project.
    auto second = sb.cli({"run", "--resume", "first", "--session-id", "second", "--", "bash", "-c",
                          "cat notes.txt; echo two >> notes.txt"});
    ASSERT_EQ(second.status, 0) << dump(second);
    EXPECT_TRUE(contains(second.out, "one")) << second.out;
    EXPECT_TRUE(contains(second.err, "session second continues first")) << second.err;

    auto old = sb.cli({"changes", "first"});
    EXPECT_EQ(old.status, 0) << dump(old);
    EXPECT_EQ(old.out, "");
    EXPECT_TRUE(contains(old.err, "went on in session second")) << old.err;
    auto now = sb.cli({"changes", "second"});
    EXPECT_TRUE(contains(now.out, "notes.txt") && contains(now.out, "kept.txt")) << now.out;

    auto applied = sb.cli({"apply", "second"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "notes.txt"), "one\ntwo\n");
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "kept.txt"), "kept\n");

    // Once continued, the first is not resumed again.
    auto again = sb.cli({"run", "--resume", "first", "--", "true"});
    EXPECT_EQ(again.status, 2) << dump(again);
    EXPECT_TRUE(contains(again.err, "its changes went on in session second")) << again.err;
}

TEST_F(Resume, ARealFileChangedSinceTheFirstSessionBeganIsAConflict)
{
    auto first = sb.run("edits", {"bash", "-c", "echo agent > README.md"});
    ASSERT_EQ(first.status, 0) << dump(first);
    // The user edits the real file after the first session, before the second starts.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sbtest::writeFile(sb.workspace() / "README.md", "# the user's own edit\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto second = sb.cli({"run", "--resume", "edits", "--session-id", "edits-2", "--", "true"});
    ASSERT_EQ(second.status, 0) << dump(second);
    auto applied = sb.cli({"apply", "edits-2"});
    EXPECT_NE(applied.status, 0) << dump(applied);
    EXPECT_TRUE(contains(applied.out, "conflict README.md")) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "README.md"), "# the user's own edit\n");
}

TEST_F(Resume, AProgrammableSessionResumesTooAndWhatCannotBeResumedSaysWhy)
{
    ASSERT_EQ(sb.run("base", {"bash", "-c", "echo base > base.txt"}).status, 0);
    auto started = sb.cli({"start", "--resume", "base", "--name", "live"});
    ASSERT_EQ(started.status, 0) << dump(started);
    auto seen = sb.cli({"exec", "live", "--", "cat", "base.txt"});
    EXPECT_EQ(seen.status, 0) << dump(seen);
    EXPECT_EQ(seen.out, "base\n");

    auto running = sb.cli({"run", "--resume", "live", "--", "true"});
    EXPECT_EQ(running.status, 2) << dump(running);
    EXPECT_TRUE(contains(running.err, "it is still running")) << running.err;
    EXPECT_EQ(sb.cli({"stop", "live"}).status, 0);
    ASSERT_TRUE(sb.waitUntilEnded("live"));

    auto elsewhere =
        sb.cli({"run", "--resume", "live", "--workspace", sb.outside().string(), "--", "true"});
    EXPECT_EQ(elsewhere.status, 2) << dump(elsewhere);
    EXPECT_TRUE(contains(elsewhere.err, "its changes are to " + sb.workspace().string()))
        << elsewhere.err;

    auto unknown = sb.cli({"run", "--resume", "no-such-session", "--", "true"});
    EXPECT_EQ(unknown.status, 2) << dump(unknown);
    EXPECT_TRUE(contains(unknown.err, "no session 'no-such-session'")) << unknown.err;
}
