// Reading recordings back: search, export (through the real asciinema), replay, the screen
// at a time, removal and retention, and the CLI over them.
#include "base/Session.h"
#include "recording/RecordingCodec.h"
#include "recording/RecordingExport.h"
#include "recording/RecordingReplay.h"
#include "recording/RecordingTestSupport.h"
#include "recording/RecordingText.h"

#include <fcntl.h>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace sbtest;
namespace fs = std::filesystem;

namespace {

// Records `chunks` as output, one every ~15 ms so they stay separate events.
void recordSession(const fs::path& db, const std::string& id,
                   const std::vector<std::string>& chunks, int pauseMs = 15)
{
    auto w = sb::RecordingWriter::start(db, recordInfo(id));
    ASSERT_TRUE(w) << w.error().describe();
    for (const auto& c : chunks) {
        w.value()->terminalOutput(c);
        if (pauseMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
    }
    ASSERT_FALSE(w.value()->finish(0));
}

// `asciinema cat` insists on a controlling terminal (/dev/tty): give it a pty as that, but
// collect its standard output through a pipe, byte for byte.
RunResult asciinemaCat(const fs::path& cast)
{
    RunResult r;
    int out[2];
    if (pipe(out) != 0) return r;
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return r;
    std::string slave = ptsname(master);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int tty = open(slave.c_str(), O_RDWR); // becomes the controlling terminal
        dup2(tty, 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        setenv("PYTHONIOENCODING", "utf-8", 1);
        execlp("asciinema", "asciinema", "cat", cast.c_str(), nullptr);
        _exit(127);
    }
    close(out[1]);
    char buf[65536];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;)
        r.out.append(buf, static_cast<size_t>(n));
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

} // namespace

TEST(RecordingText, StripperRemovesSequencesEvenAcrossChunks)
{
    sb::TerminalTextStripper s;
    std::string out;
    s.feed("\x1b[1;3", out);
    s.feed("1mred\x1b[0m plain\r\nnext\x1b]0;title\x07 line\x1b(B!\ttab\x08", out);
    EXPECT_EQ(out, "red plain\nnext line!\ttab");
    EXPECT_EQ(sb::ftsQuery("error: undefined ref"), "\"error\" AND \"undefined\" AND \"ref\"*");
    size_t len = 0;
    EXPECT_EQ(sb::findLoosely("a  Error:\n  undefined reference", "error: undefined", len), 3u);
}

TEST(RecordingSearch, FindsWordsWithSessionAndTime)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    recordSession(db, "build-1",
                  {"$ make\r\n", "cc -c main.c\r\n",
                   "main.c:3: \x1b[31merror:\x1b[0m undefined reference to `foo'\r\n"});
    recordSession(db, "build-2", {"all tests passed\r\n", "no errors here\r\n"});
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto hits = store->search("error: undefined refer");
    ASSERT_TRUE(hits) << hits.error().describe();
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ(hits->at(0).session, "build-1");
    EXPECT_GT(hits->at(0).tNs, 20'000'000); // the third chunk, ~30 ms in
    EXPECT_NE(hits->at(0).snippet.find("main.c:3: error: undefined reference to `foo'"),
              std::string::npos)
        << hits->at(0).snippet;
    EXPECT_EQ(store->search("tests passed")->size(), 1u);
    EXPECT_EQ(store->search("tests passed", "build-1")->size(), 0u);
    EXPECT_EQ(store->search("passed tests")->size(), 0u); // the phrase, not just the words
    EXPECT_FALSE(store->search("!!!"));                   // no word: an error, not everything
}

TEST(RecordingSearch, SymbolsAndEmojiAreWords)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    recordSession(db, "tests-1",
                  {"\xe2\x9c\x93 test_sum\r\n", "\xe2\x9c\x97 test_avg: 2 != 3\r\n",
                   "done \xf0\x9f\x8e\x89 na\xc3\xafve\xe2\x80\x94word x\xc2\xa0y\r\n"});
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto count = [&](const std::string& text) {
        auto hits = store->search(text);
        EXPECT_TRUE(hits) << text << ": " << hits.error().describe();
        return hits ? hits->size() : 0u;
    };
    EXPECT_EQ(count("\xe2\x9c\x97 test_avg"), 1u);        // ✗ test_avg
    EXPECT_EQ(count("\xe2\x9c\x93"), 1u);                 // ✓
    EXPECT_EQ(count("\xf0\x9f\x8e\x89"), 1u);             // 🎉
    EXPECT_EQ(count("na\xc3\xafve\xe2\x80\x94word"), 1u); // naïve—word: one word
    EXPECT_EQ(count("\xe2\x9c\x93 test_avg"), 0u) << "a symbol is a word, not a wildcard";
    // A no-break space separates words, in the index and in the search text alike.
    EXPECT_EQ(sb::searchTokens("x\xc2\xa0y"), (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(sb::searchTokens("\xe2\x9c\x97 test_avg"),
              (std::vector<std::string>{"\xe2\x9c\x97", "test", "avg"}));
}

TEST(RecordingExport, AsciicastPlaysInAsciinema)
{
    if (run({"sh", "-c", "command -v asciinema"}).status != 0)
        SB_SKIP("asciinema is not installed (scripts/deps.sh installs it)");
    TempDir dir;
    fs::path db = dir / "rec.db";
    std::vector<std::string> chunks = {"\x1b[1mbold\x1b[0m text\r\n", "caf\xc3",
                                       "\xa9 ünïcödé ✓\r\n", "tab\there \"quotes\" \\ back\r\n",
                                       "\x1b[2J\x1b[Hdone\r\n"};
    recordSession(db, "cast", chunks);
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    fs::path cast = dir / "out.cast";
    ASSERT_FALSE(sb::exportSessionToFile(*store, "cast", sb::ExportFormat::Asciicast, cast));
    std::string header = readFile(cast).substr(0, readFile(cast).find('\n'));
    auto h = nlohmann::json::parse(header);
    EXPECT_EQ(h["version"], 2);
    EXPECT_EQ(h["width"], 80);
    RunResult r = asciinemaCat(cast);
    ASSERT_EQ(r.status, 0) << r.out;
    std::string expected;
    for (const auto& c : chunks)
        expected += c;
    EXPECT_EQ(r.out, expected);
}

TEST(RecordingExport, JsonLinesCarriesEveryEvent)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    {
        auto w = sb::RecordingWriter::start(db, recordInfo("jl"));
        ASSERT_TRUE(w);
        w.value()->terminalOutput("hello\r\n");
        w.value()->terminalInput("\xff\xfe");
        w.value()->event(sb::EventKind::NetworkDecision,
                         {{"host", "example.com"}, {"port", 443}, {"decision", "deny"}});
        ASSERT_FALSE(w.value()->finish(0));
    }
    auto store = sb::RecordingStore::open(db);
    fs::path out = dir / "out.jsonl";
    // Through the CLI: written atomically to -o.
    RunResult r = run(
        {cliPath(), "export", "jl", "--format", "jsonl", "-o", out.string(), "--db", db.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    std::stringstream lines(readFile(out));
    std::vector<nlohmann::json> rows;
    for (std::string line; std::getline(lines, line);)
        rows.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0]["type"], "session");
    EXPECT_EQ(rows[0]["policy"]["network"]["mode"], "none");
    EXPECT_EQ(rows[1]["type"], "output");
    EXPECT_EQ(rows[1]["text"], "hello\r\n");
    EXPECT_EQ(rows[2]["type"], "input");
    EXPECT_EQ(rows[2]["base64"], "//4=");
    EXPECT_EQ(rows[3]["type"], "network_decision");
    EXPECT_EQ(rows[3]["payload"]["host"], "example.com");
    for (const auto& entry : fs::directory_iterator(dir.path()))
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos);
}

TEST(RecordingScreen, SnapshotRepaintsTheSameScreen)
{
    sb::ScreenModel a(10, 40);
    a.feed("plain line\r\n\x1b[1;31mbold red\x1b[0m and \x1b[7mreverse\x1b[0m\r\nwide: 日本語\r\n");
    a.feed("\x1b[5;10H\x1b[38;2;1;2;3;48;5;200mrgb\x1b[?25l");
    sb::ScreenModel b(10, 40);
    b.restore(a.snapshot(), 10, 40);
    EXPECT_EQ(a.lines(), b.lines());
    EXPECT_EQ(a.cursor().row, b.cursor().row);
    EXPECT_EQ(a.cursor().col, b.cursor().col);
    EXPECT_FALSE(b.cursor().visible);
    EXPECT_EQ(b.snapshot(), a.snapshot()); // attributes and pen survive the round trip
    // Output after the snapshot lands the same on both.
    a.feed("more\r\n");
    b.feed("more\r\n");
    EXPECT_EQ(a.snapshot(), b.snapshot());
}

// Found by fuzz_recording: a damaged recording's size (rows -1, 99,999,999 columns) crashed
// libvterm; a screen's sides are kept within 1…1000 (columns 2…1000) whatever it is given.
TEST(RecordingScreen, SizesFromADamagedRecordingAreBounded)
{
    sb::ScreenModel screen(static_cast<unsigned>(-1), 99'999'999);
    EXPECT_EQ(screen.rows(), sb::ScreenModel::kMaxSide);
    EXPECT_EQ(screen.cols(), sb::ScreenModel::kMaxSide);
    screen.feed("text\r\n\x1b[999;999Hend");
    screen.resize(0, 0);
    EXPECT_EQ(screen.rows(), 1u);
    EXPECT_EQ(screen.cols(), sb::ScreenModel::kMinColumns);
    screen.restore("x", 5000, 3);
    EXPECT_EQ(screen.rows(), sb::ScreenModel::kMaxSide);
    EXPECT_EQ(screen.lines().size(), sb::ScreenModel::kMaxSide);
}

// A compressed chunk whose header claims more than its bytes can hold is damaged: refused before
// anything is allocated for it (found by fuzz_recording: a 9-byte chunk claimed 2 GiB).
TEST(RecordingCodec, AChunkClaimingMoreThanItsBytesCanHoldIsRefused)
{
    const std::string text(200'000, 'a');
    sb::EncodedBlob blob = sb::encodeBlob(text);
    ASSERT_EQ(blob.encoding, sb::Encoding::Zstd);
    auto back = sb::decodeBlob(blob.bytes, static_cast<int>(sb::Encoding::Zstd));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, text);
    // Magic, a frame header with an 8-byte content size of 2 GiB - 1, and nothing else.
    const std::string claims2GiB("\x28\xb5\x2f\xfd\xe0\xff\xff\xff\x7f\x00\x00\x00\x00", 13);
    auto damaged = sb::decodeBlob(claims2GiB, static_cast<int>(sb::Encoding::Zstd));
    ASSERT_FALSE(damaged);
    EXPECT_EQ(damaged.error().message, "recording: damaged compressed chunk");
    auto unknown = sb::decodeBlob("x", 7);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("unknown encoding 7"), std::string::npos);
}

TEST(RecordingScreen, SeekMatchesAFullReplayAtAnyTime)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    std::mt19937 rng(7);
    std::vector<std::string> chunks;
    std::string full;
    for (int i = 0; i < 3000; ++i) {
        std::string c = "\x1b[3" + std::to_string(i % 8) + "mline " + std::to_string(i) + " " +
                        std::string(rng() % 150, static_cast<char>('a' + i % 26)) + "\x1b[0m\r\n";
        if (i % 500 == 7) c += "\x1b[2J\x1b[H"; // clear screens now and then
        chunks.push_back(c);
    }
    {
        sb::WriterOptions limits;
        limits.coalesceNs = 0; // keep chunks separate: many events, several keyframes
        auto w = sb::RecordingWriter::start(db, recordInfo("seek"), limits);
        ASSERT_TRUE(w);
        for (size_t i = 0; i < chunks.size(); ++i) {
            w.value()->terminalOutput(chunks[i]);
            if (i == 1500) w.value()->resize(30, 100);
            if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        ASSERT_FALSE(w.value()->finish(0));
        EXPECT_GT(w.value()->stats().keyframes, 0u);
    }
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    std::vector<sb::RecordedEvent> events;
    ASSERT_FALSE(store->forEachEvent("seek", 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
        events.push_back(e);
        return true;
    }));
    for (size_t probe : {size_t{0}, events.size() / 3, events.size() / 2, events.size() - 1}) {
        std::int64_t t = events[probe].tNs;
        sb::ScreenModel reference(24, 80);
        for (const auto& e : events) {
            if (e.tNs > t) break;
            if (e.kind == sb::EventKind::Output)
                reference.feed(e.data);
            else if (e.kind == sb::EventKind::Resize)
                reference.resize(30, 100);
        }
        sb::ScreenModel seeked(24, 80);
        ASSERT_FALSE(store->screenAt("seek", t, seeked));
        EXPECT_EQ(seeked.lines(), reference.lines()) << "at " << t;
        EXPECT_EQ(seeked.rows(), reference.rows());
    }
}

TEST(RecordingReplay, WritesTheOutputWithScaledBoundedPauses)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    recordSession(db, "rp", {"one\r\n", "two\r\n", "three\r\n"}, 100);
    auto store = sb::RecordingStore::open(db);
    int p[2];
    ASSERT_EQ(pipe(p), 0);
    std::vector<std::int64_t> sleeps;
    sb::ReplayOptions options;
    options.speed = 2;
    options.outFd = p[1];
    options.maxPauseNs = 80'000'000;
    options.sleep = [&](std::int64_t ns) { sleeps.push_back(ns); };
    ASSERT_FALSE(sb::replaySession(*store, "rp", options));
    close(p[1]);
    char buf[256];
    ssize_t n = read(p[0], buf, sizeof buf);
    close(p[0]);
    EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), "one\r\ntwo\r\nthree\r\n");
    ASSERT_EQ(sleeps.size(), 3u);
    EXPECT_LT(sleeps[0], 5'000'000);  // the first chunk came right at the start
    EXPECT_EQ(sleeps[1], 40'000'000); // 100 ms gaps, capped at 80 ms, at double speed
    EXPECT_EQ(sleeps[2], 40'000'000);
    EXPECT_EQ(sb::parseDuration("1m30s").value(), 90'000'000'000);
    EXPECT_EQ(sb::parseDuration("250ms").value(), 250'000'000);
    EXPECT_EQ(sb::parseDuration("1.5").value(), 1'500'000'000);
    EXPECT_FALSE(sb::parseDuration("3 apples"));
    auto tooLong = sb::parseDuration("999999999999d");
    ASSERT_FALSE(tooLong);
    EXPECT_EQ(tooLong.error().message, "duration '999999999999d' is too long");
}

TEST(RecordingReplay, DurationsReadAsPeopleWriteThem)
{
    EXPECT_EQ(sb::formatDuration(3'240'000'000), "3.2s");
    EXPECT_EQ(sb::formatDuration(0), "0.0s");
    EXPECT_EQ(sb::formatDuration(125'000'000'000), "2m05.0s");
    EXPECT_EQ(sb::formatDuration(3'723'400'000'000), "1h02m03.4s");
    // Rounded once, to the tenth: never "59m60.0s".
    EXPECT_EQ(sb::formatDuration(3'599'960'000'000), "1h00m00.0s");
    EXPECT_EQ(sb::formatDuration(59'960'000'000), "1m00.0s");
}

TEST(RecordingRetention, RmAndGcNeverTouchARunningSession)
{
    IsolatedXdg xdg;
    fs::path db = xdg.root() / "rec.db";
    recordSession(db, "old", {std::string(5000, 'a') + "\r\nneedle one\r\n"}, 0);
    recordSession(db, "newer", {std::string(5000, 'b') + "\r\nneedle two\r\n"}, 0);
    TempDir project;
    auto live = sb::createSession(project.path(), {"sh"}, "running");
    ASSERT_TRUE(live);
    auto lock = sb::lockSession(*live);
    ASSERT_TRUE(lock);
    auto w = sb::RecordingWriter::start(db, recordInfo("running"));
    ASSERT_TRUE(w);
    w.value()->terminalOutput(std::string(5000, 'c') + "\r\nneedle three\r\n");
    w.value()->flush();

    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    EXPECT_EQ(store->search("needle")->size(), 3u);
    ASSERT_FALSE(store->remove("old"));
    EXPECT_EQ(store->search("needle")->size(), 2u);
    EXPECT_FALSE(store->session("old"));
    sb::GcOptions gc;
    gc.maxBytes = 1; // everything is too much: only the running session may stay
    auto report = store->gc(gc);
    ASSERT_TRUE(report) << report.error().describe();
    EXPECT_EQ(report->removed, std::vector<std::string>{"newer"});
    auto left = store->sessions();
    ASSERT_EQ(left->size(), 1u);
    EXPECT_EQ(left->at(0).id, "running");
    EXPECT_EQ(integrityCheck(db), "ok");
    ASSERT_FALSE(w.value()->finish(0));
    lock->reset();
}

TEST(RecordingCli, ListsShowsSearchesAndReplays)
{
    TempDir dir;
    fs::path db = dir / "rec.db";
    recordSession(db, "cli-1", {"hello from the agent\r\n"}, 0);
    std::map<std::string, std::string> env{{"SANDBENCH_RECORDINGS_DB", db.string()}};
    RunResult list = run({cliPath(), "sessions", "--json"}, {}, env);
    ASSERT_EQ(list.status, 0) << list.err;
    auto j = nlohmann::json::parse(list.out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["id"], "cli-1");
    EXPECT_EQ(j[0]["state"], "ended");
    EXPECT_EQ(run({cliPath(), "sessions", "--state", "running", "--json"}, {}, env).out, "[]\n");
    RunResult show = run({cliPath(), "show", "cli-1"}, {}, env);
    EXPECT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("bash -c make test"), std::string::npos) << show.out;
    RunResult found = run({cliPath(), "search", "agent"}, {}, env);
    EXPECT_EQ(found.status, 0);
    EXPECT_NE(found.out.find("cli-1"), std::string::npos);
    RunResult replay = run({cliPath(), "replay", "cli-1", "--speed", "100"}, {}, env);
    EXPECT_EQ(replay.status, 0) << replay.err;
    EXPECT_EQ(replay.out, "hello from the agent\r\n");
    RunResult missing = run({cliPath(), "show", "nope"}, {}, env);
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("no recorded session 'nope'"), std::string::npos);
    EXPECT_EQ(run({cliPath(), "rm", "cli-1"}, {}, env).status, 0);
    EXPECT_EQ(run({cliPath(), "sessions", "--json"}, {}, env).out, "[]\n");
}
