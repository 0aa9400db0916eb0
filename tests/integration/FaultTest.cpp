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
    std::string script =
        "mount -t tmpfs -o size=1m none " + sbit::quote(mountPoint.path()) + " || exit 99\n";
    std::string inner;
    for (const auto& [name, value] : sb.env())
        inner += "export " + name + "=" + sbit::quote(value) + "\n";
    inner += "export SANDBENCH_RECORDINGS_DB=" + sbit::quote(mountPoint / "recordings.db") + "\n";
    const std::string cli = sbit::quote(sbtest::cliPath());
    inner += cli + " run --workspace " + sbit::quote(sb.workspace()) + " --session-id " + id +
             " -- bash -c 'head -c 3000000 /dev/urandom | base64 -w 100; "
             "seq 1 20000; echo the command went on to its end; exit 7'\n";
    inner += "echo run-status=$?\n";
    inner += cli + " show " + id + "\n";
    inner += "echo integrity=$(" + cli + " sessions --json >/dev/null && echo readable)\n";
    std::vector<std::string> argv;
    if (sbit::runningAsRoot()) {
        argv = {"unshare", "-m", "--propagation", "private", "bash", "-c", script + inner};
    } else {
        // A user namespace lets an unprivileged user mount a tmpfs; the supervisor then runs as
        // the same user in a namespace nested in it, so it is not root there either.
        script += "exec unshare -U --map-user=" + std::to_string(::getuid()) +
                  " --map-group=" + std::to_string(::getgid()) + " bash -c " + sbit::quote(inner) +
                  "\n";
        argv = {"unshare", "-U", "-r", "-m", "bash", "-c", script};
    }
    const sbtest::RunResult result = sbtest::run(argv, {}, {}, 90);
    ASSERT_NE(result.status, 99) << "no tmpfs could be mounted\n" << dump(result);
    EXPECT_TRUE(contains(result.out, "the command went on to its end")) << dump(result);
    EXPECT_TRUE(contains(result.out, "run-status=7")) << dump(result);
    EXPECT_TRUE(contains(result.err, "recording stopped: ")) << dump(result);
    EXPECT_TRUE(contains(result.err, "disk is full")) << dump(result);
    EXPECT_TRUE(contains(result.err, "the end of the recording was not saved")) << dump(result);
    EXPECT_TRUE(contains(result.out, "session   " + id + " (interrupted)")) << dump(result);
    EXPECT_TRUE(contains(result.out, "integrity=readable")) << dump(result);
}

} // namespace
