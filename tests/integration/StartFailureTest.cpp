// Issue 33: starts refused cleanly. Limits the caller's shell set too low (ulimit -u, -v, -f)
// are named, with status 125, instead of crashing the supervisor (an uncaught exception, or
// SIGXFSZ) before it said anything; and a start that fails after making its session folder
// leaves nothing that blocks its id.
#include "IntegrationSupport.h"

#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using sbit::contains;
constexpr rlim_t kLimit = 64; // sb::kMinimumProcesses
using sbit::dump;

namespace {

class StartFailures : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    // `sandbench-cli run --session-id ID -- bash -c COMMAND`, started from a shell that ran
    // SETUP first (ulimit …) and then became the CLI.
    sbtest::RunResult runAfter(const std::string& setup, const std::string& id,
                               const std::string& command = "echo the-command-ran") const
    {
        const std::string run = sbit::quote(sbtest::cliPath()) + " run --workspace " +
                                sbit::quote(sb.workspace()) + " --session-id " + id +
                                " -- bash -c " + sbit::quote(command);
        return sbtest::run({"bash", "-c", setup + "\nexec " + run}, {}, sb.env(), 60);
    }
};

// A crash reads as status 134 (abort) or 128+SIGXFSZ, and "terminate called" on stderr.
void expectRefused(const sbtest::RunResult& r, const std::string& message)
{
    EXPECT_EQ(r.status, 125) << dump(r);
    EXPECT_TRUE(contains(r.err, message)) << dump(r);
    EXPECT_FALSE(contains(r.err, "terminate called")) << dump(r);
    EXPECT_FALSE(contains(r.out, "the-command-ran")) << dump(r);
}

} // namespace

// Whether this process may raise a hard limit it lowered (CAP_SYS_RESOURCE): root in a
// container often may not.
bool mayRaiseHardLimits()
{
    const pid_t child = ::fork();
    if (child == 0) {
        const rlimit low{5, 5}, unlimited{RLIM_INFINITY, RLIM_INFINITY};
        ::_exit(::setrlimit(RLIMIT_NPROC, &low) == 0 && ::setrlimit(RLIMIT_NPROC, &unlimited) == 0
                    ? 0
                    : 1);
    }
    int status = 0;
    return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

// ulimit -u: refused by name. Root, whose sandbox runs as another uid held to the limit, lifts
// it where it may and then runs.
TEST_F(StartFailures, AProcessLimitTooLowIsNamed)
{
    const sbtest::RunResult r = runAfter("ulimit -u 5", "few-processes");
    if (sbit::runningAsRoot() && mayRaiseHardLimits()) {
        EXPECT_EQ(r.status, 0) << dump(r);
        EXPECT_TRUE(contains(r.out, "the-command-ran")) << dump(r);
        return;
    }
    expectRefused(r, "the process limit (ulimit -u 5) is too low: Sandbench needs at least 64");
    EXPECT_FALSE(fs::exists(sb.sessions() / "few-processes")) << "refused before anything";
}

// Processes that only wait, as many as this user may still start under a soft process limit
// of `limit` (this process's, which the CLI inherits), less `room`. Killed when it goes; the
// soft limit is restored (only lowered, never the hard one).
class ProcessLimitFilled {
  public:
    ProcessLimitFilled(rlim_t limit, int room)
    {
        ::getrlimit(RLIMIT_NPROC, &m_saved);
        rlimit lowered = m_saved;
        lowered.rlim_cur = limit;
        ::setrlimit(RLIMIT_NPROC, &lowered);
        for (;;) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                ::pause();
                ::_exit(0);
            }
            if (pid < 0) break;
            m_waiting.push_back(pid);
        }
        for (int i = 0; i < room && !m_waiting.empty(); ++i) {
            end(m_waiting.back());
            m_waiting.pop_back();
        }
    }
    ~ProcessLimitFilled()
    {
        for (const pid_t pid : m_waiting)
            end(pid);
        ::setrlimit(RLIMIT_NPROC, &m_saved);
    }
    ProcessLimitFilled(const ProcessLimitFilled&) = delete;
    ProcessLimitFilled& operator=(const ProcessLimitFilled&) = delete;

  private:
    static void end(pid_t pid)
    {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
    rlimit m_saved{};
    std::vector<pid_t> m_waiting;
};

// A process limit above the minimum that the user's other processes have nearly used up: the
// supervisor's threads or the sandbox's processes cannot all start. Whichever fails first, the
// start is refused (or runs, when all could start), never aborted.
TEST_F(StartFailures, NoRoomForAThreadOrProcessIsAnErrorNotACrash)
{
    if (sbit::runningAsRoot()) GTEST_SKIP() << "root is not held to the process limit";
    for (int room = 1; room <= 12; ++room) {
        const std::string id = "room-" + std::to_string(room);
        sbtest::RunResult r;
        {
            ProcessLimitFilled filled(kLimit, room); // the CLI itself takes one
            r = sb.run(id, {"bash", "-c", "echo the-command-ran"}, sbit::withOptions({}, 30));
        }
        SCOPED_TRACE("room for " + std::to_string(room) + " more: " + dump(r));
        EXPECT_TRUE(r.status == 0 || r.status == 125);
        EXPECT_FALSE(contains(r.err, "terminate called"));
        if (r.status == 125) {
            EXPECT_TRUE(contains(r.err, "ulimit -u 64"));
        }
    }
}

TEST_F(StartFailures, AnAddressSpaceLimitTooLowIsNamed)
{
    expectRefused(runAfter("ulimit -v 200000", "small-memory"),
                  "the address-space limit (ulimit -v 200000) is too low: Sandbench needs at "
                  "least");
    EXPECT_FALSE(fs::exists(sb.sessions() / "small-memory"));
}

// ulimit -f: no SIGXFSZ; the file that could not grow is named, and the session's folder goes
// with the failed start, so the same id starts once the limit is lifted.
TEST_F(StartFailures, AFileSizeLimitIsAnErrorNamingTheFile)
{
    const sbtest::RunResult small = runAfter("ulimit -f 1", "small-files");
    expectRefused(small, "File too large");
    EXPECT_TRUE(contains(small.err, "ulimit -f")) << dump(small);
    EXPECT_FALSE(fs::exists(sb.sessions() / "small-files")) << dump(small);

    const sbtest::RunResult none = runAfter("ulimit -f 0", "no-files");
    expectRefused(none, "session.json");
    EXPECT_FALSE(fs::exists(sb.sessions() / "no-files")) << dump(none);

    const sbtest::RunResult again = runAfter("", "no-files");
    EXPECT_EQ(again.status, 0) << dump(again);
    EXPECT_TRUE(contains(again.out, "the-command-ran")) << dump(again);
}

// A start refused after its folder was made (here: a damaged recordings database) leaves no
// folder: the same id starts once the cause is gone.
TEST_F(StartFailures, ARefusedStartLeavesNothingThatBlocksItsId)
{
    const fs::path db = fs::path(sb.env()["XDG_DATA_HOME"]) / "sandbench" / "recordings.db";
    fs::create_directories(db.parent_path());
    sbtest::writeFile(db, std::string(20000, 'Z'));
    expectRefused(runAfter("", "retry"), "cannot record the session, so it was not started");
    EXPECT_FALSE(fs::exists(sb.sessions() / "retry"));
    fs::remove(db);
    const sbtest::RunResult again = runAfter("", "retry");
    EXPECT_EQ(again.status, 0) << dump(again);
    EXPECT_FALSE(contains(again.err, "already exists")) << dump(again);
}

// Folders such starts left before (no session.json, or a damaged one): rm and gc remove them,
// keep one that holds files unless forced, and never one a supervisor holds.
TEST_F(StartFailures, RmAndGcRemoveLeftoverSessionFolders)
{
    auto leftover = [&](const std::string& id) {
        const fs::path dir = sb.sessions() / id;
        fs::create_directories(dir / "upper");
        fs::create_directories(dir / "work");
        sbtest::writeFile(dir / "lock", "");
        return dir;
    };
    leftover("no-record");
    sbtest::writeFile(leftover("damaged") / "session.json", "{\"id\": ");
    sbtest::writeFile(leftover("with-files") / "upper" / "kept.txt", "work");
    const fs::path held = leftover("held");
    const int lock = ::open((held / "lock").c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(lock, 0);
    ASSERT_EQ(::flock(lock, LOCK_EX), 0) << "as a supervisor holds it";

    const sbtest::RunResult blocked = runAfter("", "no-record");
    EXPECT_EQ(blocked.status, 2) << dump(blocked);
    EXPECT_TRUE(contains(blocked.err, "already exists")) << dump(blocked);

    const sbtest::RunResult rm = sb.cli({"rm", "no-record"});
    EXPECT_EQ(rm.status, 0) << dump(rm);
    EXPECT_TRUE(contains(rm.out, "removed session no-record")) << dump(rm);
    EXPECT_FALSE(fs::exists(sb.sessions() / "no-record"));

    const sbtest::RunResult gc = sb.cli({"gc"});
    EXPECT_EQ(gc.status, 0) << dump(gc);
    EXPECT_TRUE(contains(gc.out, "removed the folder of damaged (no valid session.json)"))
        << dump(gc);
    EXPECT_TRUE(contains(gc.err, "kept the folder of with-files")) << dump(gc);
    EXPECT_FALSE(fs::exists(sb.sessions() / "damaged"));
    EXPECT_TRUE(fs::exists(sb.sessions() / "with-files" / "upper" / "kept.txt"));
    EXPECT_TRUE(fs::exists(held)) << "a supervisor holds it";

    const sbtest::RunResult refused = sb.cli({"rm", "with-files"});
    EXPECT_EQ(refused.status, 1) << dump(refused);
    EXPECT_TRUE(contains(refused.err, "rm --force removes them")) << dump(refused);
    EXPECT_EQ(sb.cli({"rm", "held"}).status, 1);
    EXPECT_TRUE(fs::exists(held));
    ::close(lock);

    EXPECT_EQ(sb.cli({"rm", "with-files", "--force"}).status, 0);
    EXPECT_FALSE(fs::exists(sb.sessions() / "with-files"));
    const sbtest::RunResult again = runAfter("", "no-record");
    EXPECT_EQ(again.status, 0) << dump(again);
    EXPECT_TRUE(contains(again.out, "the-command-ran")) << dump(again);
}
