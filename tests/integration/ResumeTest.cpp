// Resuming (issue 24): a new session takes over an ended one's changes and goes on with them;
// applied once, the real folder gets the final content. A real file changed since the first
// session began is still a conflict. What cannot be resumed says why. Any id of the chain names
// the lasting workspace and finds its snapshots (issue 33, item 6).
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

    // The first id names the workspace still: its changes are the second session's now.
    auto old = sb.cli({"changes", "first"});
    EXPECT_EQ(old.status, 0) << dump(old);
    EXPECT_TRUE(contains(old.err, "went on in session second (resumed): listing those of second"))
        << old.err;
    auto now = sb.cli({"changes", "second"});
    EXPECT_TRUE(contains(now.out, "notes.txt") && contains(now.out, "kept.txt")) << now.out;
    EXPECT_EQ(old.out, now.out);

    auto applied = sb.cli({"apply", "second"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "notes.txt"), "one\ntwo\n");
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "kept.txt"), "kept\n");

    // Resuming the first again goes on where the workspace is now: after the second.
    auto again = sb.cli({"run", "--resume", "first", "--session-id", "third", "--", "true"});
    EXPECT_EQ(again.status, 0) << dump(again);
    EXPECT_TRUE(contains(again.err, "resuming second")) << again.err;
    EXPECT_TRUE(contains(again.err, "session third continues second")) << again.err;
}

TEST_F(Resume, AnyIdOfALastingWorkspaceNamesItAndItsSnapshots)
{
    ASSERT_EQ(sb.run("s0", {"bash", "-c", "echo one > notes.txt"}).status, 0);
    auto s1 = sb.cli({"run", "--resume", "s0", "--session-id", "s1", "--", "bash", "-c",
                      "echo two >> notes.txt"});
    ASSERT_EQ(s1.status, 0) << dump(s1);
    // A snapshot by the first id is the current session's.
    auto a = sb.cli({"snapshot", "s0", "after-two"});
    ASSERT_EQ(a.status, 0) << dump(a);
    EXPECT_TRUE(contains(a.out, "snapshot after-two of s1")) << a.out;
    EXPECT_TRUE(contains(a.err, "went on in session s1")) << a.err;

    auto s2 = sb.cli({"run", "--resume", "s0", "--session-id", "s2", "--", "bash", "-c",
                      "echo three >> notes.txt"});
    ASSERT_EQ(s2.status, 0) << dump(s2);
    EXPECT_TRUE(contains(s2.err, "session s2 continues s1")) << s2.err;
    ASSERT_EQ(sb.cli({"snapshot", "s2", "after-three"}).status, 0);

    // Every id lists them all, with the session that took each.
    for (const char* id : {"s0", "s1", "s2"}) {
        auto listed = sb.cli({"snapshots", id});
        ASSERT_EQ(listed.status, 0) << dump(listed);
        EXPECT_TRUE(contains(listed.out, "after-two") && contains(listed.out, "(in session s1)"))
            << id << ": " << listed.out;
        EXPECT_TRUE(contains(listed.out, "after-three") && contains(listed.out, "(in session s2)"))
            << id << ": " << listed.out;
    }
    // A snapshot taken before a resume is found from the first id and from the last.
    auto restored = sb.cli({"restore", "s0", "after-two"});
    ASSERT_EQ(restored.status, 0) << dump(restored);
    EXPECT_TRUE(contains(restored.out, "restored s2 to its snapshot after-two")) << restored.out;
    EXPECT_TRUE(contains(sb.cli({"diff", "s2"}).out, "+two")) << "restored";
    EXPECT_FALSE(contains(sb.cli({"diff", "s1"}).out, "+three")) << "restored";
    ASSERT_EQ(sb.cli({"restore", "s2", "after-three"}).status, 0);
    ASSERT_EQ(sb.cli({"restore", "s1", "after-two"}).status, 0);
    EXPECT_FALSE(sb.cli({"snapshot", "s2", "after-two"}).status == 0) << "one name, one snapshot";

    auto forked = sb.cli({"fork", "s0", "after-three", "--as", "other"});
    ASSERT_EQ(forked.status, 0) << dump(forked);
    EXPECT_TRUE(contains(forked.out, "forked s2@after-three as other")) << forked.out;

    auto discarded = sb.cli({"discard", "s1", "notes.txt"});
    ASSERT_EQ(discarded.status, 0) << dump(discarded);
    EXPECT_TRUE(contains(discarded.err, "discarding those of s2")) << discarded.err;
    EXPECT_EQ(sb.cli({"changes", "s2"}).out, "");
    ASSERT_EQ(sb.cli({"restore", "s0", "after-two"}).status, 0);
    auto applied = sb.cli({"apply", "s0"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    EXPECT_TRUE(contains(applied.err, "applying session s2's changes")) << applied.err;
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "notes.txt"), "one\ntwo\n");
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
