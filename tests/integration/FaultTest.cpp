// Faults around a running session (issue 25): the recordings database locked by another program
// or on a full disk. The session goes on, the user is told, and what can be kept is kept.
#include "IntegrationSupport.h"
#include "recording/RecordingSqlite.h"
#include "recording/RecordingStore.h"

#include <chrono>
#include <thread>
#include <unistd.h>

using sbit::contains;
using sbit::dump;
using namespace std::chrono_literals;

namespace {

class Faults : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    std::filesystem::path database() const
    {
        return std::filesystem::path(sb.env()["XDG_DATA_HOME"]) / "sandbench" / "recordings.db";
    }
    std::string recordedOutput(const std::filesystem::path& db, const std::string& id) const
    {
        auto store = sb::RecordingStore::open(db);
        if (!store) return "(no store: " + store.error().describe() + ")";
        std::string out;
        auto e = store->forEachEvent(id, 0, INT64_MAX, [&](const sb::RecordedEvent& event) {
            if (event.kind == sb::EventKind::Output) out += event.data;
            return true;
        });
        return e ? "(unreadable: " + e->describe() + ")" : out;
    }
    // Runs `setup` (mounts) with the rights to mount in a mount namespace of its own, then
    // `script` as the caller, in this world's environment, with $CLI set. As a user, `setup`
    // runs as root of a user namespace and `script` as the same user in one nested in it, so
    // the supervisor is not root there either. Status 99: `setup` failed.
    sbtest::RunResult inOwnMounts(const std::string& setup, const std::string& script) const
    {
        std::string inner = "export CLI=" + sbit::quote(sbtest::cliPath()) + "\n";
        for (const auto& [name, value] : sb.env())
            inner += "export " + name + "=" + sbit::quote(value) + "\n";
        inner += script;
        const std::string outer = "{\n" + setup + "\n} || exit 99\n";
        std::vector<std::string> argv;
        if (sbit::runningAsRoot())
            argv = {"unshare", "-m", "--propagation", "private", "bash", "-c", outer + inner};
        else
            argv = {"unshare",
                    "-U",
                    "-r",
                    "-m",
                    "bash",
                    "-c",
                    outer + "exec unshare -U --map-user=" + std::to_string(::getuid()) +
                        " --map-group=" + std::to_string(::getgid()) + " bash -c " +
                        sbit::quote(inner)};
        return sbtest::run(argv, {}, {}, 90);
    }
};

// Another program holds the database's write lock for 10 s, twice SQLite's busy wait: the
// recording stops and says so, the command runs on, and every line it printed is recorded.
TEST_F(Faults, ADatabaseLockedForTenSecondsStallsTheRecordingAndLosesNothing)
{
    sbtest::RunResult first = sb.sh("true"); // creates the database
    ASSERT_EQ(first.status, 0) << dump(first);
    const std::string id = sb.nextSession();
    sbtest::RunResult result;
    std::thread session([&] {
        result =
            sb.run(id, {"bash", "-c", "for i in $(seq 1 130); do echo tick $i; sleep 0.1; done"},
                   sbit::withOptions({}, 90));
    });
    std::this_thread::sleep_for(1s);
    bool locked = false;
    if (auto blocker = sb::SqliteDb::open(database(), false, false)) {
        locked = !blocker->exec("BEGIN IMMEDIATE");
        std::this_thread::sleep_for(10s);
        (void)blocker->exec("ROLLBACK");
    }
    session.join();
    ASSERT_TRUE(locked);
    EXPECT_EQ(result.status, 0) << dump(result);
    EXPECT_TRUE(contains(result.err, "recording stopped: ")) << dump(result);
    EXPECT_TRUE(contains(result.err, "database is locked")) << dump(result);
    EXPECT_TRUE(contains(result.err, "recording goes on")) << dump(result);
    EXPECT_FALSE(contains(result.err, "not saved")) << dump(result);
    const std::string recorded = recordedOutput(database(), id);
    for (int i = 1; i <= 130; ++i)
        ASSERT_TRUE(contains(recorded, "tick " + std::to_string(i) + "\r\n"))
            << "tick " << i << " is missing from the recording:\n"
            << recorded;
    const sbtest::RunResult show = sb.cli({"show", id});
    EXPECT_TRUE(contains(show.out, "(ended)")) << dump(show);
}

// The database lies on a 1 MiB tmpfs that the command's output fills: the recording stops and
// says so, the command runs to its end with its status, the session's end that could not be
// stored is reported, and the database stays sound (the next start marks it interrupted).
TEST_F(Faults, AFullDiskStopsTheRecordingNotTheSession)
{
    const sbtest::TempDir mountPoint;
    const std::string id = sb.nextSession();
    const std::string setup = "mount -t tmpfs -o size=1m none " + sbit::quote(mountPoint.path());
    const std::string script =
        "export SANDBENCH_RECORDINGS_DB=" + sbit::quote(mountPoint / "recordings.db") + "\n" +
        "$CLI run --workspace " + sbit::quote(sb.workspace()) + " --session-id " + id +
        " -- bash -c 'head -c 3000000 /dev/urandom | base64 -w 100; "
        "seq 1 20000; echo the command went on to its end; exit 7'\n"
        "echo run-status=$?\n"
        "$CLI show " +
        id +
        "\n"
        "echo integrity=$($CLI sessions --json >/dev/null && echo readable)\n";
    const sbtest::RunResult result = inOwnMounts(setup, script);
    ASSERT_NE(result.status, 99) << "no tmpfs could be mounted\n" << dump(result);
    EXPECT_TRUE(contains(result.out, "the command went on to its end")) << dump(result);
    EXPECT_TRUE(contains(result.out, "run-status=7")) << dump(result);
    EXPECT_TRUE(contains(result.err, "recording stopped: ")) << dump(result);
    EXPECT_TRUE(contains(result.err, "disk is full")) << dump(result);
    EXPECT_TRUE(contains(result.err, "the end of the recording was not saved")) << dump(result);
    EXPECT_TRUE(contains(result.out, "session   " + id + " (interrupted)")) << dump(result);
    EXPECT_TRUE(contains(result.out, "integrity=readable")) << dump(result);
}

// The state folder's file system is read-only: a session is refused before anything starts,
// naming the folder and why; what was recorded before stays readable.
TEST_F(Faults, AReadOnlyStateFolderRefusesTheSessionAndKeepsTheRecordings)
{
    const sbtest::RunResult first = sb.sh("echo recorded-before");
    ASSERT_EQ(first.status, 0) << dump(first);
    const std::string state = sb.env()["XDG_STATE_HOME"];
    const sbtest::RunResult result =
        inOwnMounts("mount -t tmpfs -o ro none " + sbit::quote(state),
                    "$CLI run --workspace " + sbit::quote(sb.workspace()) +
                        " -- bash -c 'echo the-command-ran'\n"
                        "echo run-status=$?\n"
                        "$CLI sessions\n");
    ASSERT_NE(result.status, 99) << "no tmpfs could be mounted\n" << dump(result);
    EXPECT_TRUE(contains(result.out, "run-status=125")) << dump(result);
    EXPECT_TRUE(contains(result.err, state + "/sandbench")) << dump(result);
    EXPECT_TRUE(contains(result.err, "Read-only file system")) << dump(result);
    EXPECT_FALSE(contains(result.out, "the-command-ran")) << dump(result);
    EXPECT_TRUE(contains(result.out, "echo recorded-before")) << dump(result);
}

// A damaged recordings database at start: the session is not started (never a sandbox running
// unrecorded), the message names the file and what to do, and the file is left as it was.
TEST_F(Faults, ADamagedDatabaseAtStartRefusesTheSessionAndKeepsTheFile)
{
    std::filesystem::create_directories(database().parent_path());
    const std::string garbage(20000, '\x5a');
    sbtest::writeFile(database(), garbage);
    const sbtest::RunResult result = sb.sh("echo the-command-ran");
    EXPECT_EQ(result.status, 125) << dump(result);
    EXPECT_TRUE(contains(result.err, "cannot record the session, so it was not started: "
                                     "recording database " +
                                         database().string()))
        << dump(result);
    EXPECT_TRUE(contains(result.err, "move it aside to start a new one")) << dump(result);
    EXPECT_FALSE(contains(result.out, "the-command-ran")) << dump(result);
    EXPECT_EQ(sbtest::readFile(database()), garbage);
}

// A low open-file limit (ulimit -n): a low soft limit is raised to the hard one and the session
// runs as usual; a hard limit too low for a session is refused before anything starts, naming
// the limit, instead of failing half-way with EMFILE.
TEST_F(Faults, ALowOpenFileLimitIsRaisedOrRefusedBeforeTheSessionStarts)
{
    const std::string run = "exec " + sbit::quote(sbtest::cliPath()) + " run --workspace " +
                            sbit::quote(sb.workspace()) + " -- bash -c 'touch ran; echo ran'";
    const sbtest::RunResult soft =
        sbtest::run({"bash", "-c", "ulimit -S -n 16 && " + run}, {}, sb.env(), 60);
    EXPECT_EQ(soft.status, 0) << dump(soft);
    EXPECT_TRUE(contains(soft.out, "ran")) << dump(soft);
    EXPECT_FALSE(contains(soft.err, "Too many open files")) << dump(soft);

    const sbtest::RunResult hard =
        sbtest::run({"bash", "-c", "ulimit -n 40 && " + run}, {}, sb.env(), 60);
    EXPECT_EQ(hard.status, 125) << dump(hard);
    EXPECT_TRUE(contains(hard.err, "the open-file limit (ulimit -n) is 40, below the 64"))
        << dump(hard);
    EXPECT_FALSE(contains(hard.out, "ran")) << dump(hard);
    EXPECT_FALSE(contains(hard.err, "started")) << dump(hard);
}

// A flood faster than the recording can store: the loop stops reading while the writer's queue
// is nearly full, so the command waits on its terminal and nothing is dropped (before, a
// 100 MB flood lost a fifth of its bytes to the queue's bound).
TEST_F(Faults, AFloodFasterThanTheRecordingIsRecordedWhole)
{
    const std::string id = sb.nextSession();
    const sbtest::RunResult result = sb.run(
        id, {"bash", "-c", "yes 0123456789012345678901234567890123456789 | head -c 60000000"},
        sbit::withOptions({"--headless"}, 120));
    ASSERT_EQ(result.status, 0) << dump(result);
    auto store = sb::RecordingStore::open(database());
    ASSERT_TRUE(store) << store.error().describe();
    auto summary = store->summary(id);
    ASSERT_TRUE(summary) << summary.error().describe();
    EXPECT_EQ(summary->droppedBytes, 0u);
    EXPECT_GE(summary->session.outputBytes, 60'000'000u);
}

} // namespace
