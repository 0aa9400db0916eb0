// Opening the recording database, and noticing sessions whose supervisor died.
#include "RecordingStore.h"

#include "Paths.h"
#include "RecordingSchema.h"
#include "Session.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {

fs::path defaultRecordingsPath()
{
    if (const char* env = std::getenv("SANDBENCH_RECORDINGS_DB"); env != nullptr && *env != 0)
        return env;
    return dataDirectory() / "recordings.db";
}

namespace {

// The first statement that reads the file, so a damaged or foreign file fails here. WAL mode
// is persistent; switching to it needs a moment alone with the file, which SQLite does not
// wait for (no busy handler), so a first open racing another retries.
Status useWal(SqliteDb& db)
{
    {
        auto mode = db.prepare("PRAGMA journal_mode");
        if (!mode) return mode.error();
        auto row = mode->step("read journal mode");
        if (!row) return row.error();
        if (*row && mode->columnText(0) == "wal") return {};
    } // the statement must be finished before the mode can change
    for (int attempt = 0;; ++attempt) {
        Status e = db.exec("PRAGMA journal_mode=WAL");
        if (!e || e->code != ErrorCode::Conflict || attempt == 500) return e;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

} // namespace

Result<SqliteDb> openRecordingDb(const fs::path& requested)
{
    fs::path file = requested.empty() ? defaultRecordingsPath() : requested;
    fs::path dir = file.parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::is_directory(dir, ec)) {
        fs::create_directories(dir, ec);
        if (!ec) fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
        if (ec)
            return Error{ErrorCode::System, ec.value(),
                         "create folder " + dir.string() + " for the recording database"};
    }
    if (!dir.empty() && !fs::exists(file, ec) && ::access(dir.c_str(), W_OK) != 0)
        return sysError("recording folder " + dir.string() +
                        " is not writable, so no session can be recorded there");
    // Recordings hold whatever the terminal showed, secrets included: owner-only. SQLite's
    // -wal and -shm files take the database file's mode.
    if (!fs::exists(file, ec)) {
        int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) return sysError("create recording database " + file.string());
        ::close(fd);
    }
    auto db = SqliteDb::open(file, true, false);
    if (!db) return db.error();
    // A reader may wait for a writer's commit (and vice versa) but never for long: commits
    // are small and frequent.
    if (auto e = db->exec("PRAGMA busy_timeout=5000")) return *e;
    if (auto e = useWal(*db)) return *e;
    if (auto e = db->exec("PRAGMA synchronous=NORMAL")) return *e;
    if (auto e = migrateRecordingDb(*db)) return *e;
    return db;
}

Status markInterruptedSessions(const fs::path& requested)
{
    fs::path file = requested.empty() ? defaultRecordingsPath() : requested;
    std::error_code ec;
    if (!fs::exists(file, ec)) return {};
    auto store = RecordingStore::open(file);
    if (!store) return store.error();
    return store->markInterrupted();
}

std::int64_t SessionRecord::durationNs() const
{
    if (endedNs > startedNs) return endedNs - startedNs;
    return lastEventNs;
}

Result<RecordingStore> RecordingStore::open(const fs::path& file)
{
    auto db = openRecordingDb(file);
    if (!db) return db.error();
    return RecordingStore(std::move(db.value()));
}

Result<std::int64_t> RecordingStore::sid(const std::string& id)
{
    auto stmt = m_db.prepare("SELECT sid FROM sessions WHERE id = ?1");
    if (!stmt) return stmt.error();
    stmt->bindText(1, id);
    auto row = stmt->step("find session");
    if (!row) return row.error();
    if (!*row)
        return Error{ErrorCode::NotFound, 0,
                     "no recorded session '" + id + "' in " + m_db.file().string()};
    return stmt->columnInt(0);
}

Status RecordingStore::markInterrupted()
{
    auto running = m_db.prepare("SELECT sid, id FROM sessions WHERE state = 'running'");
    if (!running) return running.error();
    std::vector<std::int64_t> gone;
    while (true) {
        auto row = running->step("list running sessions");
        if (!row) return row.error();
        if (!*row) break;
        SessionInfo probe;
        probe.id = running->columnText(1);
        // No lock holder (or no session folder at all): the supervisor is gone.
        if (!isValidSessionId(probe.id) || !sessionIsLive(probe))
            gone.push_back(running->columnInt(0));
    }
    if (gone.empty()) return {};
    auto mark = m_db.prepare("UPDATE sessions SET state = 'interrupted', "
                             "ended_ns = started_ns + last_t_ns WHERE sid = ?1 AND "
                             "state = 'running'");
    if (!mark) return mark.error();
    for (std::int64_t s : gone)
        if (auto e = mark->bind(1, s).run("mark session interrupted")) return e;
    return {};
}

} // namespace sb
