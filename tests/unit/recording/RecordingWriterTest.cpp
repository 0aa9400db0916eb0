#include "recording/RecordingTestSupport.h"

#include <atomic>
#include <csignal>
#include <future>
#include <mutex>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>

using namespace sbtest;
namespace fs = std::filesystem;

namespace {

std::int64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

TEST(RecordingWriter, AFloodIsCoalescedNotLost)
{
    TempDir dir;
    auto w = sb::RecordingWriter::start(dir / "rec.db", recordInfo("flood"));
    ASSERT_TRUE(w);
    std::string expected;
    for (int i = 0; i < 200000; ++i) {
        std::string line = "row " + std::to_string(i) + "\n";
        expected += line;
        w.value()->terminalOutput(line);
    }
    ASSERT_FALSE(w.value()->finish(0));
    sb::WriterStats s = w.value()->stats();
    EXPECT_EQ(s.droppedEvents, 0u);
    EXPECT_EQ(s.outputBytes, expected.size());
    EXPECT_LT(s.eventsWritten, 2000u) << "adjacent chunks should be merged";
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_TRUE(store);
    EXPECT_EQ(recordedOutput(*store, "flood"), expected);
}

TEST(RecordingWriter, RequestFinishStoresTheEndWithTheLastEventsAndRefusesLaterOnes)
{
    TempDir dir;
    auto w = sb::RecordingWriter::start(dir / "rec.db", recordInfo("ending"));
    ASSERT_TRUE(w);
    w.value()->terminalOutput("last words\n");
    w.value()->requestFinish(3);
    w.value()->terminalOutput("too late\n");
    w.value()->requestFinish(9); // the first request decides
    ASSERT_FALSE(w.value()->finish(5));
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_TRUE(store);
    EXPECT_EQ(recordedOutput(*store, "ending"), "last words\n");
    auto session = store->session("ending");
    ASSERT_TRUE(session);
    EXPECT_EQ(session->state, sb::RecordState::Ended);
    EXPECT_EQ(session->exitStatus, 3);
    EXPECT_GT(session->endedNs, 0);
    EXPECT_EQ(session->events, 1u);
}

TEST(RecordingWriter, WhenTheDiskStallsMemoryStaysBoundedAndDropsAreRecorded)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    sb::WriterOptions limits;
    limits.maxQueuedItems = 100;
    limits.maxQueuedBytes = 64 * 1024;
    auto w = sb::RecordingWriter::start(db, recordInfo("stall"), limits);
    ASSERT_TRUE(w);
    // Another connection holds the write lock: the writer thread waits (busy timeout).
    auto blocker = sb::SqliteDb::open(db, false, false);
    ASSERT_TRUE(blocker);
    ASSERT_FALSE(blocker->exec("BEGIN IMMEDIATE"));
    auto began = monotonicNs();
    for (int i = 0; i < 5000; ++i) {
        w.value()->event(sb::EventKind::ExecRequest, {{"id", i}});
        w.value()->terminalOutput(std::string(100, 'x'));
    }
    // Never blocked on the disk: 10,000 calls took far less than the busy timeout.
    EXPECT_LT(monotonicNs() - began, 1'000'000'000);
    sb::WriterStats mid = w.value()->stats();
    EXPECT_LE(mid.queueHighWater, 100u);
    EXPECT_LE(mid.queueHighWaterBytes, 64u * 1024);
    EXPECT_GT(mid.droppedEvents, 0u);
    ASSERT_FALSE(blocker->exec("ROLLBACK"));
    ASSERT_FALSE(w.value()->finish(0));
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto summary = store->summary("stall");
    ASSERT_TRUE(summary);
    EXPECT_GT(summary->droppedBytes, 0u);
    EXPECT_EQ(queryInt(db, "SELECT count(*) FROM events WHERE type = 13"), 1);
}

// Locked by another process for longer than SQLite's busy timeout (5 s): the writer says it
// stopped, keeps the batch in hand and the queue, and stores all of it once the lock is gone.
TEST(RecordingWriter, ALockedDatabaseStallsTheWriterWhichSaysSoAndLosesNothing)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    std::mutex mutex;
    std::vector<sb::RecordingStall> said;
    sb::WriterOptions limits;
    limits.onStall = [&](const sb::RecordingStall& stall) {
        std::lock_guard lock(mutex);
        said.push_back(stall);
    };
    auto w = sb::RecordingWriter::start(db, recordInfo("locked"), limits);
    ASSERT_TRUE(w);
    auto blocker = sb::SqliteDb::open(db, false, false);
    ASSERT_TRUE(blocker);
    std::string expected;
    int lines = 0;
    auto writeLine = [&] {
        std::string line = "line " + std::to_string(lines) + "\r\n";
        w.value()->terminalOutput(line);
        w.value()->event(sb::EventKind::LimitHit, {{"count", lines}});
        expected += line;
        ++lines;
    };
    for (int i = 0; i < 50; ++i)
        writeLine();
    w.value()->flush();
    ASSERT_FALSE(blocker->exec("BEGIN IMMEDIATE"));
    const auto locked = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - locked < std::chrono::milliseconds(6500)) {
        writeLine();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    {
        std::lock_guard lock(mutex);
        ASSERT_EQ(said.size(), 1u) << "the stall is said once, while it lasts";
        EXPECT_TRUE(said[0].stalled);
        EXPECT_NE(said[0].reason.find("database is locked"), std::string::npos) << said[0].reason;
    }
    ASSERT_FALSE(blocker->exec("ROLLBACK"));
    for (int i = 0; i < 50; ++i)
        writeLine();
    sb::Status finished = w.value()->finish(0);
    ASSERT_FALSE(finished) << finished->describe();
    {
        std::lock_guard lock(mutex);
        ASSERT_EQ(said.size(), 2u);
        EXPECT_FALSE(said[1].stalled);
    }
    EXPECT_EQ(w.value()->stats().droppedEvents, 0u);
    EXPECT_EQ(w.value()->stats().stalls, 1u);
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    EXPECT_EQ(recordedOutput(*store, "locked"), expected);
    EXPECT_EQ(queryInt(db, "SELECT count(*) FROM events WHERE type = 11"), lines);
    // Sequence numbers run without a gap or a repeat, as if nothing had happened.
    EXPECT_EQ(queryInt(db, "SELECT count(DISTINCT seq) = count(*) AND max(seq) + 1 = count(*) "
                           "FROM events"),
              1);
    EXPECT_EQ(integrityCheck(db), "ok");
}

TEST(RecordingWriter, SigkillMidFloodLosesAtMostTheLast200ms)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    // The child publishes how far it got; the parent samples that 200 ms before the kill.
    auto* progress = static_cast<std::atomic<std::int64_t>*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(progress, MAP_FAILED);
    new (progress) std::atomic<std::int64_t>(-1);
    pid_t pid = fork();
    if (pid == 0) {
        auto w = sb::RecordingWriter::start(db, recordInfo("crash"));
        if (!w) _exit(1);
        // A terminal flood (~9 MB/s, the speed of a fast terminal emulator) with numbered
        // exec events among it.
        const std::string line(78, '=');
        for (std::int64_t i = 0, n = 0;; ++i) {
            w.value()->terminalOutput(line + "\r\n");
            if (i % 8 == 0) {
                w.value()->event(sb::EventKind::ExecRequest, {{"n", n}});
                progress->store(n++);
            }
            if (i % 64 == 0) usleep(500);
        }
    }
    while (progress->load() < 0)
        usleep(1000);
    usleep(700'000);
    std::int64_t before = progress->load();
    usleep(200'000);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    std::int64_t reached = progress->load();
    munmap(progress, 4096);

    EXPECT_EQ(integrityCheck(db), "ok");
    ASSERT_FALSE(sb::markInterruptedSessions(db));
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto s = store->session("crash");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->state, sb::RecordState::Interrupted);
    // Every exec event up to `before` is there, in order, without gaps.
    std::int64_t expect = 0;
    ASSERT_FALSE(store->forEachEvent("crash", 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
        if (e.kind == sb::EventKind::ExecRequest) {
            auto j = nlohmann::json::parse(e.data);
            EXPECT_EQ(j["n"].get<std::int64_t>(), expect);
            ++expect;
        }
        return true;
    }));
    EXPECT_GT(expect, before) << "reached " << reached;
    EXPECT_GT(before, 1000);
}

TEST(RecordingWriter, TimestampsFollowTheCalls)
{
    TempDir dir;
    auto w = sb::RecordingWriter::start(dir / "rec.db", recordInfo("timing"));
    ASSERT_TRUE(w);
    w.value()->terminalOutput("a");
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    w.value()->terminalOutput("b");
    ASSERT_FALSE(w.value()->finish(0));
    auto store = sb::RecordingStore::open(dir / "rec.db");
    std::vector<std::int64_t> times;
    ASSERT_FALSE(store->forEachEvent("timing", 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
        times.push_back(e.tNs);
        return true;
    }));
    ASSERT_EQ(times.size(), 2u);
    EXPECT_GE(times[1] - times[0], 110'000'000);
    EXPECT_LT(times[1] - times[0], 1'000'000'000);
}

TEST(RecordingWriter, InTheBackgroundEventsQueuedBeforeTheOpenAreKept)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    auto w = sb::RecordingWriter::startInBackground(db, recordInfo("bg"));
    ASSERT_TRUE(w);
    // The supervisor records from the first exec on, whether or not SQLite is open yet.
    sb::CommandRecord command;
    command.id = 7;
    command.program = "/usr/bin/git";
    command.argv = {"git", "push"};
    command.cwd = "/p";
    command.pid = 42;
    command.decision = "deny";
    command.rule = "git push *";
    w.value()->command(command);
    w.value()->terminalOutput("denied\r\n");
    EXPECT_FALSE(w.value()->opened());
    ASSERT_FALSE(w.value()->finish(1));

    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    EXPECT_EQ(recordedOutput(*store, "bg"), "denied\r\n");
    std::vector<sb::RecordedEvent> execs;
    ASSERT_FALSE(store->forEachEvent("bg", 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
        if (e.kind == sb::EventKind::ExecRequest || e.kind == sb::EventKind::ExecDecision)
            execs.push_back(e);
        return true;
    }));
    // What was tried, then the whole record with what became of it; both name the command.
    ASSERT_EQ(execs.size(), 2u);
    EXPECT_EQ(execs[0].kind, sb::EventKind::ExecRequest);
    EXPECT_EQ(execs[1].kind, sb::EventKind::ExecDecision);
    for (const auto& e : execs) {
        auto j = nlohmann::json::parse(e.data);
        EXPECT_EQ(j["kind"], "command");
        EXPECT_EQ(j["id"], 7);
        EXPECT_EQ(j["argv"], nlohmann::json({"git", "push"}));
        EXPECT_EQ(j["cwd"], "/p");
        const bool decision = e.kind == sb::EventKind::ExecDecision;
        EXPECT_EQ(j.contains("decision"), decision) << j.dump();
        EXPECT_EQ(j.contains("rule"), decision) << j.dump();
    }
    auto decided = nlohmann::json::parse(execs[1].data);
    EXPECT_EQ(decided["decision"], "deny");
    EXPECT_EQ(decided["rule"], "git push *");
    auto summary = store->summary("bg");
    ASSERT_TRUE(summary);
    EXPECT_TRUE(summary->commands.empty());
    EXPECT_EQ(summary->deniedCommands, std::vector<std::string>{"git push"});
    EXPECT_EQ(summary->denied, 1u);
}

TEST(RecordingWriter, InTheBackgroundAFailedOpenIsReportedAndNothingWaits)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    {
        auto first = sb::RecordingWriter::start(db, recordInfo("twice"));
        ASSERT_TRUE(first);
        ASSERT_FALSE(first.value()->finish(0));
    }
    // What the cheap checks cannot see: the session is already recorded.
    std::atomic<bool> told{false};
    sb::WriterOptions options;
    options.onOpenFailed = [&](const sb::Error&) { told = true; };
    auto w = sb::RecordingWriter::startInBackground(db, recordInfo("twice"), options);
    ASSERT_TRUE(w);
    w.value()->terminalOutput("lost\r\n");
    auto opened = w.value()->opened();
    ASSERT_TRUE(opened.has_value());
    EXPECT_NE(opened->message.find("already recorded"), std::string::npos) << opened->message;
    w.value()->flush(); // returns: nothing will be committed
    bool called = false;
    w.value()->whenCommitted([&] { called = true; }); // nor does this wait
    EXPECT_TRUE(called);
    auto finished = w.value()->finish(0);
    ASSERT_TRUE(finished.has_value());
    EXPECT_TRUE(told);
}

TEST(RecordingWriter, ADamagedFileIsRefusedByTheCheckAndInTheBackgroundByTheOpen)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    writeFile(db, std::string(8192, 'Z'));
    // What the supervisor runs before the sandbox starts.
    auto checked = sb::checkRecordingDb(db);
    ASSERT_TRUE(checked);
    EXPECT_NE(checked->message.find(db.string()), std::string::npos) << checked->message;
    EXPECT_NE(checked->message.find("damaged"), std::string::npos) << checked->message;
    // Damaged after that check: the writer's own open says so, and who must stop is told.
    std::atomic<bool> told{false};
    sb::WriterOptions options;
    options.onOpenFailed = [&](const sb::Error&) { told = true; };
    auto w = sb::RecordingWriter::startInBackground(db, recordInfo("s"), options);
    ASSERT_TRUE(w);
    auto opened = w.value()->opened();
    ASSERT_TRUE(opened.has_value());
    EXPECT_NE(opened->message.find("not a database"), std::string::npos) << opened->message;
    EXPECT_TRUE(w.value()->finish(0).has_value());
    EXPECT_TRUE(told);
}

TEST(RecordingWriter, InTheBackgroundDeadSessionsAreMarkedInterrupted)
{
    IsolatedXdg xdg;
    fs::path db = xdg.root() / "rec.db";
    {
        // A supervisor that died: never finished, its session folder gone.
        pid_t pid = fork();
        if (pid == 0) {
            auto w = sb::RecordingWriter::start(db, recordInfo("dead"));
            if (!w) _exit(1);
            w.value()->flush();
            _exit(0);
        }
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    auto w = sb::RecordingWriter::startInBackground(db, recordInfo("next"));
    ASSERT_TRUE(w);
    ASSERT_FALSE(w.value()->opened());
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto dead = store->session("dead");
    ASSERT_TRUE(dead);
    EXPECT_EQ(dead->state, sb::RecordState::Interrupted);
    ASSERT_FALSE(w.value()->finish(0));
}

// What the supervisor answers an execution's record with (SessionLoop::recordExecution): called
// back once the event is in the database, without blocking the caller meanwhile.
TEST(RecordingWriter, WhenCommittedCallsBackOnceTheEventsAreStored)
{
    TempDir dir;
    const fs::path db = dir / "rec.db";
    sb::WriterOptions limits;
    limits.commitIntervalMs = 600'000; // nothing but the request commits
    auto w = sb::RecordingWriter::start(db, recordInfo("callback"), limits);
    ASSERT_TRUE(w);
    auto storedLimitHits = [&]() -> std::int64_t {
        auto reader = sb::SqliteDb::open(db, false, true);
        if (!reader) return -1;
        auto query = reader->prepare("SELECT COUNT(*) FROM events WHERE type = ?");
        if (!query) return -1;
        query->bind(1, static_cast<int>(sb::EventKind::LimitHit));
        auto row = query->step();
        return row && *row ? query->columnInt(0) : -1;
    };
    w.value()->event(sb::EventKind::LimitHit, {{"count", 1}});
    w.value()->event(sb::EventKind::LimitHit, {{"count", 2}});
    std::promise<std::int64_t> seen;
    w.value()->whenCommitted([&] { seen.set_value(storedLimitHits()); });
    auto stored = seen.get_future();
    ASSERT_EQ(stored.wait_for(std::chrono::seconds(30)), std::future_status::ready)
        << "never called back";
    EXPECT_EQ(stored.get(), 2);

    // Nothing left to commit: called at once, on the caller's thread.
    std::thread::id where;
    w.value()->whenCommitted([&] { where = std::this_thread::get_id(); });
    EXPECT_EQ(where, std::this_thread::get_id());

    // One still waiting when the writer finishes is called all the same.
    std::atomic<int> calls{0};
    w.value()->event(sb::EventKind::LimitHit, {{"count", 3}});
    w.value()->whenCommitted([&] { ++calls; });
    ASSERT_FALSE(w.value()->finish(0));
    EXPECT_EQ(calls.load(), 1);
}
