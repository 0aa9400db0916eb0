// Snapshots (issue 24): a stopped session's changes kept, restored after they changed, and
// forked into sessions that go on separately, at the same time; whiteouts (deletions) survive
// the copies. A running session is frozen while its layer is copied.
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class Snapshots : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    // A session a failed assertion left running goes with the test.
    void TearDown() override { (void)sb.cli({"kill", "busy"}); }
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

// Whether sessions here get cgroups of their own (doctor's "cgroups" check), which freezing a
// running sandbox needs.
bool sessionsHaveCgroups(const sbit::Sandbench& sb)
{
    auto doctor = sb.cli({"doctor", "--json"});
    for (const auto& check : nlohmann::json::parse(doctor.out, nullptr, false))
        if (check.value("name", "") == "cgroups") return check.value("ok", false);
    return false;
}

TEST_F(Snapshots, ARunningSessionIsFrozenForItsSnapshot)
{
    auto started = sb.cli({"start", "--name", "busy"});
    ASSERT_EQ(started.status, 0) << dump(started);
    // A writer that never stops: each line is whole, or the copy caught it half-written.
    auto writer = sb.cli({"exec", "busy", "--detach", "--", "bash", "-c",
                          "i=0; while :; do echo \"line $i of the writer\" >> log.txt; i=$((i+1)); "
                          "done"});
    ASSERT_EQ(writer.status, 0) << dump(writer);
    ASSERT_TRUE(sbproxytest::waitUntil([&] { return fs::exists(sb.upper("busy") / "log.txt"); }));
    auto taken = sb.cli({"snapshot", "busy", "running"});
    if (!sessionsHaveCgroups(sb)) {
        // Nothing to freeze it with: refused, saying so, and nothing half-copied stays.
        EXPECT_NE(taken.status, 0);
        EXPECT_TRUE(contains(taken.err, "no cgroup of its own to freeze it with")) << dump(taken);
        EXPECT_FALSE(fs::exists(sb.sessions() / "busy" / "snapshots" / "running"));
    } else {
        ASSERT_EQ(taken.status, 0) << dump(taken);
        EXPECT_TRUE(contains(taken.out, "snapshot running of busy")) << taken.out;
        EXPECT_TRUE(contains(taken.out, "the sandbox frozen")) << taken.out;
        const std::string copy = sbtest::readFile(sb.sessions() / "busy" / "snapshots" / "running" /
                                                  "upper" / "log.txt");
        ASSERT_FALSE(copy.empty());
        EXPECT_EQ(copy.back(), '\n') << "a line half-written when copied";
        // Thawed: the writer goes on.
        const auto before = fs::file_size(sb.upper("busy") / "log.txt");
        EXPECT_TRUE(sbproxytest::waitUntil(
            [&] { return fs::file_size(sb.upper("busy") / "log.txt") > before; }));
        // The activity says who took it.
        auto events = sb.cli({"export", "busy", "--format", "jsonl"});
        (void)events; // the recording is written at the end; checked below
    }
    // Restoring under a running sandbox is refused: its overlay is mounted.
    auto restore = sb.cli({"restore", "busy", "running"});
    EXPECT_NE(restore.status, 0);
    EXPECT_TRUE(contains(restore.err, "session busy is running: stop it first")) << restore.err;
    EXPECT_EQ(sb.cli({"stop", "busy"}).status, 0);
    ASSERT_TRUE(sb.waitUntilEnded("busy"));
    if (sessionsHaveCgroups(sb)) {
        auto events = sb.cli({"export", "busy", "--format", "jsonl"});
        EXPECT_TRUE(contains(events.out, "\"kind\":\"snapshot\"")) << dump(events);
        EXPECT_TRUE(contains(events.out, "\"by\":\"sandbench-cli snapshot\"")) << dump(events);
    }
}

TEST_F(Snapshots, NamesAreChecked)
{
    ASSERT_EQ(sb.run("busy", {"true"}).status, 0);
    auto named = sb.cli({"snapshot", "busy", "../x"});
    EXPECT_NE(named.status, 0);
    EXPECT_TRUE(contains(named.err, "snapshot name '../x'")) << named.err;
    auto first = sb.cli({"snapshot", "busy"});
    EXPECT_TRUE(contains(first.out, "snapshot snapshot-1 of busy")) << dump(first);
    auto taken = sb.cli({"snapshot", "busy", "snapshot-1"});
    EXPECT_NE(taken.status, 0);
    EXPECT_TRUE(contains(taken.err, "has a snapshot named 'snapshot-1' already")) << taken.err;
}
