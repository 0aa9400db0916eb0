// Recording benchmarks (issue 4): writer insert rate against raw SQLite inserts of the same
// rows, database size against raw terminal bytes, seek on a synthetic one-hour 100 MB session,
// list and search across 1,000 sessions. Prints a Markdown table; exits 1 if a target is
// missed. Usage: recording_bench [--quick] [--dir DIR]
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <sqlite3.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Terminal output of the kind agents produce: build and test logs, compiler diagnostics, git,
// some colour. A vocabulary of pseudo-words keeps it from being trivially repetitive.
class LogText {
  public:
    explicit LogText(unsigned seed) : m_rng(seed)
    {
        const char* syllables[] = {"con",  "fig",  "par",  "ser",  "tok", "en",   "mod",
                                   "ule",  "net",  "work", "file", "sys", "tem",  "data",
                                   "base", "test", "case", "run",  "ner", "proc", "ess",
                                   "util", "str",  "ing",  "map"};
        for (int i = 0; i < 4000; ++i) {
            std::string w;
            int n = 2 + static_cast<int>(m_rng() % 3);
            for (int k = 0; k < n; ++k)
                w += syllables[m_rng() % 25];
            m_words.push_back(w);
        }
    }
    std::string word() { return m_words[m_rng() % m_words.size()]; }
    std::string line()
    {
        char buf[512];
        switch (m_rng() % 6) {
        case 0:
            std::snprintf(buf, sizeof buf, "[%3u%%] Building CXX object src/%s/%s_%s.cpp.o\r\n",
                          static_cast<unsigned>(m_rng() % 101), word().c_str(), word().c_str(),
                          word().c_str());
            break;
        case 1:
            std::snprintf(buf, sizeof buf, "test_%s_%s (tests.%s.%sTest) ... %s\r\n",
                          word().c_str(), word().c_str(), word().c_str(), word().c_str(),
                          m_rng() % 20 ? "\x1b[32mok\x1b[0m" : "\x1b[31mFAIL\x1b[0m");
            break;
        case 2:
            std::snprintf(buf, sizeof buf,
                          "src/%s.cpp:%u:%u: \x1b[35mwarning:\x1b[0m unused variable '%s' "
                          "[-Wunused-variable]\r\n",
                          word().c_str(), static_cast<unsigned>(m_rng() % 2000),
                          static_cast<unsigned>(m_rng() % 80), word().c_str());
            break;
        case 3:
            std::snprintf(buf, sizeof buf, "%07x %s: %s the %s in %s\r\n",
                          static_cast<unsigned>(m_rng() & 0xfffffff), word().c_str(),
                          word().c_str(), word().c_str(), word().c_str());
            break;
        case 4:
            std::snprintf(buf, sizeof buf, "  %s = %s(%s, %u)  # %s %s\r\n", word().c_str(),
                          word().c_str(), word().c_str(), static_cast<unsigned>(m_rng() % 100000),
                          word().c_str(), word().c_str());
            break;
        default:
            std::snprintf(buf, sizeof buf, "%s %s %s %s %s %s %s.\r\n", word().c_str(),
                          word().c_str(), word().c_str(), word().c_str(), word().c_str(),
                          word().c_str(), word().c_str());
        }
        return buf;
    }

  private:
    std::mt19937 m_rng;
    std::vector<std::string> m_words;
};

struct Row {
    std::string name, value, target;
    bool ok;
};
std::vector<Row> g_rows;

void report(const std::string& name, const std::string& value, const std::string& target, bool ok)
{
    g_rows.push_back({name, value, target, ok});
    std::fprintf(stderr, "  %s: %s (%s) %s\n", name.c_str(), value.c_str(), target.c_str(),
                 ok ? "ok" : "MISSED");
}

std::string num(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

sb::SessionRecordInfo info(const std::string& id)
{
    sb::SessionRecordInfo i;
    i.id = id;
    return i;
}

std::uint64_t dbBytes(const fs::path& db)
{
    std::error_code ec;
    std::uint64_t n = fs::file_size(db, ec);
    fs::path wal = db;
    wal += "-wal";
    n += fs::exists(wal, ec) ? fs::file_size(wal, ec) : 0;
    return n;
}

void checkpoint(const fs::path& db)
{
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    sqlite3_close(h);
}

// Structured events through the writer, against the same rows inserted straight with SQLite.
void insertRate(const fs::path& dir, int events)
{
    std::fprintf(stderr, "insert rate (%d events)\n", events);
    sb::WriterOptions options;
    options.maxQueuedItems = static_cast<size_t>(events) + 16; // measure throughput, not drops
    auto w = sb::RecordingWriter::start(dir / "insert.db", info("ins"), options);
    if (!w) {
        std::fprintf(stderr, "%s\n", w.error().describe().c_str());
        std::exit(2);
    }
    auto start = Clock::now();
    for (int i = 0; i < events; ++i)
        w.value()->event(sb::EventKind::ExecDecision,
                         {{"id", i}, {"decision", i % 7 ? "allow" : "deny"}, {"rule", "git *"}});
    (void)w.value()->finish(0);
    double writerSeconds = secondsSince(start);
    sb::WriterStats stats = w.value()->stats();
    double rate = events / writerSeconds;

    // Reference: the same rows with a prepared statement, 16k rows per transaction.
    sqlite3* h = nullptr;
    fs::path ref = dir / "reference.db";
    sqlite3_open(ref.c_str(), &h);
    sqlite3_exec(h,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE events (id "
                 "INTEGER PRIMARY KEY, sid INTEGER, seq INTEGER, t_ns INTEGER, type INTEGER, enc "
                 "INTEGER, data BLOB); CREATE INDEX events_by_time ON events (sid, t_ns, seq);",
                 nullptr, nullptr, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(h,
                       "INSERT INTO events (sid, seq, t_ns, type, enc, data) VALUES "
                       "(1, ?1, ?2, 5, 0, ?3)",
                       -1, &stmt, nullptr);
    start = Clock::now();
    sqlite3_exec(h, "BEGIN", nullptr, nullptr, nullptr);
    for (int i = 0; i < events; ++i) {
        std::string json = nlohmann::json{
            {"id", i},
            {"decision", i % 7 ? "allow" : "deny"},
            {"rule", "git *"}}.dump();
        sqlite3_bind_int64(stmt, 1, i);
        sqlite3_bind_int64(stmt, 2, i * 1000LL);
        sqlite3_bind_text(stmt, 3, json.data(), static_cast<int>(json.size()), SQLITE_STATIC);
        sqlite3_step(stmt);
        sqlite3_reset(stmt);
        if (i % 16384 == 16383) sqlite3_exec(h, "COMMIT; BEGIN", nullptr, nullptr, nullptr);
    }
    sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr);
    double rawSeconds = secondsSince(start);
    sqlite3_finalize(stmt);
    sqlite3_close(h);
    report("writer insert rate, structured events", (num(rate, 0) + " events/s"), "≥ 200,000/s",
           rate >= 200000 && stats.droppedEvents == 0);
    report("  vs raw SQLite insert of the same rows", (num(rate / (events / rawSeconds), 2) + "×"),
           (std::string("raw: ") + num(events / rawSeconds, 0) + " rows/s"), true);

    // Paced: 200,000 events/s for 2 s with the default queue: nothing may be dropped.
    auto paced = sb::RecordingWriter::start(dir / "paced.db", info("paced"));
    start = Clock::now();
    int sent = 0;
    while (secondsSince(start) < 2.0) {
        int due = static_cast<int>(secondsSince(start) * 200000);
        for (; sent < due; ++sent)
            if (sent % 4 == 0)
                paced.value()->terminalOutput("line of output " + std::to_string(sent) + "\r\n");
            else
                paced.value()->event(sb::EventKind::ExecRequest, {{"id", sent}, {"argv", {"ls"}}});
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    (void)paced.value()->finish(0);
    sb::WriterStats p = paced.value()->stats();
    report("paced 200,000 calls/s for 2 s, default queue",
           (num(static_cast<double>(p.droppedEvents), 0) + " dropped") +
               (std::string(", queue high-water ") + num(static_cast<double>(p.queueHighWater), 0) +
                " items"),
           "0 dropped", p.droppedEvents == 0);
}

// A one-hour session with `megabytes` of output (synthetic clock), then seeks.
void seekAndSize(const fs::path& dir, int megabytes)
{
    std::fprintf(stderr, "one-hour session, %d MB output\n", megabytes);
    fs::path db = dir / "hour.db";
    LogText text(1);
    std::int64_t now = 0;
    sb::WriterOptions options;
    options.clock = [&now] { return now; };
    options.maxQueuedItems = 1u << 22;
    options.maxQueuedBytes = 1u << 30;
    auto w = sb::RecordingWriter::start(db, info("hour"), options);
    std::uint64_t total = 0, target = static_cast<std::uint64_t>(megabytes) << 20;
    const std::int64_t hour = 3600'000'000'000;
    std::uint64_t writes = 0;
    auto start = Clock::now();
    while (total < target) {
        std::string chunk;
        int lines = 1 + static_cast<int>(writes % 40);
        for (int i = 0; i < lines; ++i)
            chunk += text.line();
        now = static_cast<std::int64_t>(static_cast<double>(total) / static_cast<double>(target) *
                                        static_cast<double>(hour));
        w.value()->terminalOutput(chunk);
        total += chunk.size();
        ++writes;
    }
    (void)w.value()->finish(0);
    double writeSeconds = secondsSince(start);
    checkpoint(db);
    sb::WriterStats stats = w.value()->stats();
    double ratio = static_cast<double>(dbBytes(db)) / static_cast<double>(total);
    report("database size / raw terminal bytes (build/test logs)", (num(ratio, 2) + "×"), "≤ 1.3×",
           ratio <= 1.3);
    report("  writing it through the writer",
           (num(static_cast<double>(total) / 1e6 / writeSeconds, 1) + " MB/s"),
           (num(static_cast<double>(stats.keyframes), 0) + " keyframes"), stats.droppedEvents == 0);

    auto store = sb::RecordingStore::open(db);
    std::mt19937 rng(3);
    std::vector<double> ms;
    for (int i = 0; i < 100; ++i) {
        std::int64_t t = static_cast<std::int64_t>(rng() % 3600) * 1'000'000'000;
        sb::ScreenModel screen(24, 80);
        auto s = Clock::now();
        (void)store->screenAt("hour", t, screen);
        ms.push_back(secondsSince(s) * 1000);
    }
    std::sort(ms.begin(), ms.end());
    report("seek + rebuild the screen, 1 h / " + std::to_string(megabytes) + " MB session",
           (std::string("median ") + num(ms[ms.size() / 2], 1) + " ms") +
               (std::string(", max ") + num(ms.back(), 1) + " ms"),
           "≤ 50 ms", ms.back() <= 50);
}

void manySessions(const fs::path& dir, int sessions)
{
    std::fprintf(stderr, "%d sessions\n", sessions);
    fs::path db = dir / "many.db";
    LogText text(2);
    for (int s = 0; s < sessions; ++s) {
        std::int64_t now = 0;
        sb::WriterOptions options;
        options.clock = [&now] { return now; };
        auto w = sb::RecordingWriter::start(db, info("s" + std::to_string(s)), options);
        if (!w) {
            std::fprintf(stderr, "%s\n", w.error().describe().c_str());
            std::exit(2);
        }
        for (int i = 0; i < 200; ++i) {
            now += 50'000'000;
            w.value()->terminalOutput(text.line() + text.line());
        }
        if (s == sessions / 2)
            w.value()->terminalOutput("the quick zebrafish jumped over the lazy compiler\r\n");
        (void)w.value()->finish(0);
    }
    auto store = sb::RecordingStore::open(db);
    auto time = [](auto&& f) {
        double best = 1e9;
        for (int i = 0; i < 5; ++i) {
            auto s = Clock::now();
            f();
            best = std::min(best, secondsSince(s) * 1000);
        }
        return best;
    };
    size_t listed = 0, rare = 0, common = 0;
    double list = time([&] { listed = store->sessions()->size(); });
    double rareMs = time([&] { rare = store->search("zebrafish jumped")->size(); });
    std::string word = LogText(2).word();
    double commonMs = time([&] { common = store->search(word)->size(); });
    report("list " + std::to_string(listed) + " sessions", (num(list, 1) + " ms"), "≤ 100 ms",
           list <= 100 && listed == static_cast<size_t>(sessions));
    report("search a rare phrase across them", (num(rareMs, 1) + " ms"), "≤ 100 ms",
           rareMs <= 100 && rare == 1);
    report("search a common word (first 50 matches)", (num(commonMs, 1) + " ms"), "≤ 100 ms",
           commonMs <= 100 && common == 50);
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false;
    fs::path dir;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
    }
    bool own = dir.empty();
    if (own) {
        std::string tmpl = (fs::temp_directory_path() / "recording-bench-XXXXXX").string();
        dir = ::mkdtemp(tmpl.data());
    }
    fs::create_directories(dir);
    insertRate(dir, quick ? 200000 : 1000000);
    seekAndSize(dir, quick ? 10 : 100);
    manySessions(dir, quick ? 200 : 1000);
    if (own) fs::remove_all(dir);

    std::printf("| recordings | measured | target |\n| --- | --- | --- |\n");
    bool ok = true;
    for (const Row& r : g_rows) {
        std::printf("| %s | %s | %s%s |\n", r.name.c_str(), r.value.c_str(), r.target.c_str(),
                    r.ok ? "" : " **missed**");
        ok = ok && r.ok;
    }
    return ok ? 0 : 1;
}
