#include "base/Session.h"
#include "recording/RecordingIndex.h"
#include "recording/RecordingKeyframes.h"
#include "recording/RecordingSchema.h"
#include "recording/RecordingTestSupport.h"

#include <atomic>
#include <cstdio>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace sbtest;
namespace fs = std::filesystem;

TEST(RecordingStore, WriterRecordsEveryKindInOrder)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    auto writer = sb::RecordingWriter::start(db, recordInfo("s1"));
    ASSERT_TRUE(writer) << writer.error().describe();
    auto& w = *writer.value();
    w.event(sb::EventKind::Lifecycle, {{"phase", "started"}});
    w.terminalOutput("$ make test\r\n");
    w.terminalInput("q");
    w.resize(40, 120);
    w.event(sb::EventKind::ExecRequest, {{"id", 1}, {"argv", {"git", "push"}}, {"cwd", "/p"}});
    w.event(sb::EventKind::ExecDecision,
            {{"id", 1}, {"argv", {"git", "push"}}, {"decision", "deny"}, {"rule", "git push *"}});
    w.event(sb::EventKind::NetworkRequest, {{"id", 2}, {"host", "github.com"}, {"port", 443}});
    w.event(sb::EventKind::NetworkDecision, {{"id", 2}, {"decision", "allow"}});
    w.event(sb::EventKind::ApprovalAnswer,
            {{"request_id", 1}, {"decision", "deny"}, {"timed_out", true}});
    w.event(sb::EventKind::WorkspaceChange, {{"path", "calc.py"}, {"kind", "modified"}});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    w.terminalOutput("ok\r\n");
    ASSERT_FALSE(w.finish(3));
    sb::WriterStats stats = w.stats();
    EXPECT_EQ(stats.droppedEvents, 0u);
    EXPECT_EQ(stats.eventsWritten, 11u);

    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store) << store.error().describe();
    auto list = store->sessions();
    ASSERT_TRUE(list);
    ASSERT_EQ(list->size(), 1u);
    EXPECT_EQ(list->at(0).state, sb::RecordState::Ended);
    EXPECT_EQ(list->at(0).exitStatus, 3);
    EXPECT_EQ(list->at(0).command, (std::vector<std::string>{"bash", "-c", "make test"}));
    EXPECT_EQ(recordedOutput(*store, "s1"), "$ make test\r\nok\r\n");

    std::vector<sb::EventKind> kinds;
    std::int64_t lastT = -1, expectSeq = 0;
    ASSERT_FALSE(store->forEachEvent("s1", 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
        kinds.push_back(e.kind);
        EXPECT_GE(e.tNs, lastT);
        EXPECT_EQ(e.seq, expectSeq++);
        lastT = e.tNs;
        return true;
    }));
    EXPECT_EQ(kinds.front(), sb::EventKind::Lifecycle);
    EXPECT_EQ(kinds.at(3), sb::EventKind::Resize);
    EXPECT_EQ(kinds.back(), sb::EventKind::Output);

    auto summary = store->summary("s1");
    ASSERT_TRUE(summary);
    EXPECT_TRUE(summary->commands.empty()) << "the one command was denied";
    EXPECT_EQ(summary->deniedCommands, std::vector<std::string>{"git push"});
    EXPECT_EQ(summary->hosts, std::vector<std::string>{"github.com:443"});
    EXPECT_EQ(summary->allowed, 1u) << "the connection";
    EXPECT_EQ(summary->denied, 2u) << "the command, and the approval no one answered";
    EXPECT_EQ(summary->timeouts, 1u);
    EXPECT_EQ(summary->changedFiles, std::vector<std::string>{"M calc.py"});
    EXPECT_EQ(integrityCheck(db), "ok");
}

TEST(RecordingStore, SameSessionTwiceIsRefused)
{
    TempDir dir;
    auto first = sb::RecordingWriter::start(dir / "rec.db", recordInfo("dup"));
    ASSERT_TRUE(first);
    auto second = sb::RecordingWriter::start(dir / "rec.db", recordInfo("dup"));
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("already recorded"), std::string::npos);
}

// A database at version `v` with one session of terminal output, as that version stored it.
static void makeDatabaseAtVersion(const fs::path& file, int v)
{
    auto db = sb::SqliteDb::open(file, true, false);
    ASSERT_TRUE(db);
    ASSERT_FALSE(sb::migrateRecordingDb(*db, v));
    if (v == 0) return;
    ASSERT_FALSE(db->exec("BEGIN"));
    ASSERT_FALSE(db->exec("INSERT INTO sessions (sid, id, command, workspace, started_ns, state) "
                          "VALUES (1, 'old', '[\"make\"]', '/p', 1000, 'ended')"));
    auto ins = db->prepare("INSERT INTO events (sid, seq, t_ns, type, enc, data) "
                           "VALUES (1, ?1, ?2, 0, 0, ?3)");
    ASSERT_TRUE(ins);
    // Enough output (> 256 KiB) for keyframes; an escape sequence split across two rows.
    std::string line = "compiling module number ";
    for (int i = 0; i < 4000; ++i) {
        std::string data = line + std::to_string(i) + " \x1b[32mok\x1b[0m\r\n";
        if (i == 10) data = "\x1b[1;3";
        if (i == 11) data = "1mfatal: linker exploded\x1b[0m\r\n";
        if (i == 12) data = "\xe2\x9c\x97 test_avg failed \xf0\x9f\x8e\x89\r\n"; // ✗ … 🎉
        ins->bind(1, std::int64_t{i}).bind(2, std::int64_t{i} * 1'000'000).bindBlob(3, data);
        ASSERT_FALSE(ins->run());
    }
    for (int i = 0; i < 4000; ++i) {
        ins->bind(1, std::int64_t{4000 + i}).bind(2, std::int64_t{4000 + i} * 1'000'000);
        ins->bindBlob(3, std::string(100, 'x') + "\r\n");
        ASSERT_FALSE(ins->run());
    }
    // What the writer of that version derived as it went.
    if (v >= 2) {
        ASSERT_FALSE(sb::indexSessionText(*db, 1, sb::TextIndexOp::Add));
    }
    if (v >= 3) {
        ASSERT_FALSE(sb::buildKeyframes(*db, 1));
    }
    ASSERT_FALSE(db->exec("COMMIT"));
}

TEST(RecordingStore, MigratesFromEveryEarlierVersion)
{
    for (int v = 0; v < sb::latestRecordingSchema(); ++v) {
        SCOPED_TRACE("from version " + std::to_string(v));
        TempDir dir;
        fs::path file = dir / "rec.db";
        makeDatabaseAtVersion(file, v);
        if (HasFatalFailure()) return;
        EXPECT_EQ(queryInt(file, "PRAGMA user_version"), v);
        auto store = sb::RecordingStore::open(file);
        ASSERT_TRUE(store) << store.error().describe();
        EXPECT_EQ(queryInt(file, "PRAGMA user_version"), sb::latestRecordingSchema());
        EXPECT_EQ(integrityCheck(file), "ok");
        EXPECT_EQ(queryInt(file, "SELECT count(*) FROM sqlite_master WHERE name = "
                                 "'sessions_running'"),
                  1);
        if (v == 0) continue;
        // Derived data was built from the rows that were there.
        auto hits = store->search("fatal: linker");
        ASSERT_TRUE(hits) << hits.error().describe();
        ASSERT_EQ(hits->size(), 1u);
        EXPECT_EQ(hits->at(0).session, "old");
        EXPECT_EQ(hits->at(0).tNs, 11'000'000);
        EXPECT_NE(hits->at(0).snippet.find("fatal: linker exploded"), std::string::npos);
        // Symbols are words now, also in what an older version indexed without them.
        for (const char* symbolic : {"\xe2\x9c\x97 test_avg", "\xf0\x9f\x8e\x89"}) {
            auto found = store->search(symbolic);
            ASSERT_TRUE(found) << found.error().describe();
            ASSERT_EQ(found->size(), 1u) << symbolic;
            EXPECT_EQ(found->at(0).tNs, 12'000'000);
        }
        EXPECT_GT(queryInt(file, "SELECT count(*) FROM keyframes"), 0);
        sb::ScreenModel screen(24, 80);
        ASSERT_FALSE(store->screenAt("old", 3999'000'000, screen));
        EXPECT_NE(screen.text().find("compiling module number 3998 ok"), std::string::npos);
    }
}

// Every session start looks for sessions left running (markInterruptedSessions): that must read
// the few running ones, not every recorded session's row.
TEST(RecordingStore, RunningSessionsAreFoundWithoutReadingTheOthers)
{
    TempDir dir;
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_TRUE(store) << store.error().describe();
    auto db = sb::SqliteDb::open(dir / "rec.db", false, false);
    ASSERT_TRUE(db) << db.error().describe();
    // The query of markInterruptedSessions (RecordingStore.cpp).
    auto plan = db->prepare("EXPLAIN QUERY PLAN SELECT sid, id FROM sessions WHERE state = "
                            "'running'");
    ASSERT_TRUE(plan) << plan.error().describe();
    auto row = plan->step("plan");
    ASSERT_TRUE(row && *row);
    EXPECT_EQ(plan->columnText(3), "SCAN sessions USING INDEX sessions_running");
}

TEST(RecordingStore, NewerSchemaIsRefusedByName)
{
    TempDir dir;
    {
        auto db = sb::SqliteDb::open(dir / "rec.db", true, false);
        ASSERT_TRUE(db);
        ASSERT_FALSE(db->exec("PRAGMA user_version=99"));
    }
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().message.find("version 99"), std::string::npos);
}

TEST(RecordingStore, CorruptDatabaseIsAClearError)
{
    TempDir dir;
    fs::path file = dir / "rec.db";
    writeFile(file, std::string(8192, 'Z'));
    auto writer = sb::RecordingWriter::start(file, recordInfo("s"));
    ASSERT_FALSE(writer);
    EXPECT_NE(writer.error().message.find(file.string()), std::string::npos);
    EXPECT_NE(writer.error().message.find("damaged"), std::string::npos);
    EXPECT_TRUE(sb::markInterruptedSessions(file).has_value()); // reported, not thrown

    // The CLI reports it and still runs.
    RunResult r = run({cliPath(), "sessions", "--db", file.string()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
    EXPECT_EQ(run({cliPath(), "--version"}).status, 0);
}

TEST(RecordingStore, ReadOnlyFolderFailsBeforeStart)
{
    TempDir dir;
    fs::path ro = dir / "ro";
    fs::create_directories(ro);
    fs::permissions(dir.path(),
                    fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                            fs::perms::others_exec);
    // Root writes anywhere: check as an unprivileged uid in a child.
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
        auto writer = sb::RecordingWriter::start(ro / "rec.db", recordInfo("s"));
        std::string msg = writer ? "started" : writer.error().describe();
        (void)!write(pipefd[1], msg.data(), msg.size());
        _exit(writer ? 1 : 0);
    }
    close(pipefd[1]);
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;)
        msg.append(buf, static_cast<size_t>(n));
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << msg;
    EXPECT_NE(msg.find(ro.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("not writable"), std::string::npos) << msg;
}

TEST(RecordingStore, SessionsWhoseSupervisorIsGoneAreMarkedInterrupted)
{
    IsolatedXdg xdg;
    TempDir project;
    fs::path db = xdg.root() / "rec.db";
    auto live = sb::createSession(project.path(), {"sleep"}, "live-one");
    ASSERT_TRUE(live);
    auto lock = sb::lockSession(*live);
    ASSERT_TRUE(lock);
    // A supervisor that died: its writer was never finished. Simulated by a child that exits
    // without running destructors.
    for (const char* id : {"live-one", "dead-one"}) {
        pid_t pid = fork();
        if (pid == 0) {
            auto w = sb::RecordingWriter::start(db, recordInfo(id));
            if (!w) _exit(1);
            w.value()->terminalOutput("working\r\n");
            w.value()->flush();
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        ASSERT_EQ(status, 0);
    }
    ASSERT_FALSE(sb::markInterruptedSessions(db));
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    EXPECT_EQ(store->session("live-one")->state, sb::RecordState::Running);
    auto dead = store->session("dead-one");
    EXPECT_EQ(dead->state, sb::RecordState::Interrupted);
    EXPECT_GE(dead->endedNs, dead->startedNs);
    // rm refuses the running one, takes the interrupted one.
    auto refused = store->remove("live-one");
    ASSERT_TRUE(refused);
    EXPECT_NE(refused->message.find("still running"), std::string::npos);
    lock->reset();
    ASSERT_FALSE(store->markInterrupted());
    EXPECT_EQ(store->session("live-one")->state, sb::RecordState::Interrupted);
}

TEST(RecordingStore, ConcurrentWritersFromSeveralProcessesAndThreads)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    constexpr int kEvents = 20000;
    auto writeSession = [&](const std::string& id) {
        auto w = sb::RecordingWriter::start(db, recordInfo(id));
        if (!w) {
            ADD_FAILURE() << id << ": " << w.error().describe();
            return false;
        }
        for (int i = 0; i < kEvents; ++i) {
            if (i % 2 == 0)
                w.value()->terminalOutput("line " + std::to_string(i) + "\r\n");
            else
                w.value()->event(sb::EventKind::ExecRequest, {{"id", i}, {"argv", {"true"}}});
        }
        return !w.value()->finish(0) && w.value()->stats().droppedEvents == 0;
    };
    std::vector<pid_t> children;
    for (int p = 0; p < 2; ++p) {
        pid_t pid = fork();
        if (pid == 0) _exit(writeSession("proc-" + std::to_string(p)) ? 0 : 1);
        children.push_back(pid);
    }
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&, t] { ok += writeSession("thread-" + std::to_string(t)); });
    for (auto& t : threads)
        t.join();
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_EQ(status, 0);
    }
    EXPECT_EQ(ok.load(), 2);
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto list = store->sessions();
    ASSERT_EQ(list->size(), 4u);
    for (const auto& r : *list) {
        std::string out = recordedOutput(*store, r.id);
        EXPECT_EQ(out.substr(0, 8), "line 0\r\n") << r.id;
        EXPECT_NE(out.find("line 19998\r\n"), std::string::npos) << r.id;
        EXPECT_EQ(r.state, sb::RecordState::Ended);
    }
    EXPECT_EQ(queryInt(db, "SELECT count(*) FROM events WHERE type = 4"), 4 * kEvents / 2);
    EXPECT_EQ(integrityCheck(db), "ok");
}

// The first opens of a new database, from threads of several processes at once: each thread
// may find the file missing and make it while another thread of its process has already made
// it and holds SQLite's locks on it. Making it must not drop those locks (a descriptor opened
// and closed to create the file did: "disk I/O error" on the switch to WAL in ~10 % of rounds).
TEST(RecordingStore, FirstOpensFromThreadsOfSeveralProcessesAtOnceAllSucceed)
{
    TempDir dir;
    constexpr int kRounds = 100, kProcesses = 3, kThreads = 4;
    int failedProcesses = 0;
    for (int round = 0; round < kRounds; ++round) {
        fs::path db = dir / ("first-" + std::to_string(round) + ".db");
        int ready[2], gate[2];
        ASSERT_EQ(pipe(ready), 0);
        ASSERT_EQ(pipe(gate), 0);
        std::vector<pid_t> children;
        for (int p = 0; p < kProcesses; ++p) {
            pid_t pid = fork();
            if (pid == 0) {
                ::close(gate[1]);
                char byte = 0;
                (void)!::write(ready[1], &byte, 1);
                (void)!::read(gate[0], &byte, 1); // all start when the gate closes
                std::atomic<int> failed{0};
                std::vector<std::thread> threads;
                for (int t = 0; t < kThreads; ++t)
                    threads.emplace_back([&] {
                        auto opened = sb::openRecordingDb(db);
                        if (!opened) {
                            std::fprintf(stderr, "%s\n", opened.error().describe().c_str());
                            ++failed;
                        }
                    });
                for (auto& t : threads)
                    t.join();
                _exit(failed == 0 ? 0 : 1);
            }
            children.push_back(pid);
        }
        for (int p = 0; p < kProcesses; ++p) {
            char byte;
            ASSERT_EQ(::read(ready[0], &byte, 1), 1);
        }
        for (int fd : {ready[0], ready[1], gate[0], gate[1]})
            ::close(fd);
        for (pid_t pid : children) {
            int status = 0;
            waitpid(pid, &status, 0);
            failedProcesses += status != 0;
        }
        ASSERT_EQ(queryInt(db, "PRAGMA user_version"), sb::latestRecordingSchema());
    }
    EXPECT_EQ(failedProcesses, 0);
    EXPECT_EQ(fs::status(dir / "first-0.db").permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
}
