// Opening the recording database, and noticing sessions whose supervisor died.
#include "recording/RecordingStore.h"

#include "base/Paths.h"
#include "base/Session.h"
#include "recording/RecordingSchema.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
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

// The folder (0700) and the file (0600) of the database, created when missing.
Status prepareRecordingFile(const fs::path& file)
{
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
    // -wal and -shm files take the database file's mode. Made without opening it: closing any
    // descriptor of the file drops every POSIX lock this process holds on it, and another
    // thread's connection may have made the file and locked it since the check above.
    if (::mknod(file.c_str(), S_IFREG | 0600, 0) != 0 && errno != EEXIST)
        return sysError("create recording database " + file.string());
    return {};
}

} // namespace

Status checkRecordingDb(const fs::path& requested)
{
    fs::path file = requested.empty() ? defaultRecordingsPath() : requested;
    if (auto e = prepareRecordingFile(file)) return e;
    if (::access(file.c_str(), W_OK) != 0)
        return sysError("recording database " + file.string() +
                        " is not writable, so no session can be recorded there");
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sysError("open recording database " + file.string());
    unsigned char header[100];
    ssize_t n = ::pread(fd, header, sizeof header, 0);
    ::close(fd);
    if (n == 0) return {};                          // created just now: the writer makes the schema
    static const char kMagic[] = "SQLite format 3"; // with its NUL: the file's first 16 bytes
    if (n != sizeof header || std::memcmp(header, kMagic, sizeof kMagic) != 0)
        return Error{ErrorCode::InvalidInput, 0,
                     "recording database " + file.string() +
                         ": file is not a database (the file is damaged or not a Sandbench "
                         "recording database; move it aside to start a new one)"};
    // The schema version (PRAGMA user_version), big-endian at offset 60. A newer one may also
    // sit in the WAL only; the writer's full open still checks.
    int version = header[60] << 24 | header[61] << 16 | header[62] << 8 | header[63];
    if (version > latestRecordingSchema()) return newerSchemaError(file, version);
    return {};
}

Result<SqliteDb> openRecordingDb(const fs::path& requested)
{
    fs::path file = requested.empty() ? defaultRecordingsPath() : requested;
    if (auto e = prepareRecordingFile(file)) return *e;
    auto db = SqliteDb::open(file, true, false);
    if (!db) return db.error();
    // A reader may wait for a writer's commit (and vice versa) but never for long: commits
    // are small and frequent.
    if (auto e = db->exec("PRAGMA busy_timeout=5000")) return *e;
    if (auto e = useWal(*db)) return *e;
    if (auto e = db->exec("PRAGMA synchronous=NORMAL")) return *e;
    // The last connection to close would checkpoint the WAL into the database and delete it
    // (two fdatasyncs), and the next session's first commit would sync the new WAL's header
    // and the folder: 5-20 ms on the path of every short session. Kept, the WAL is folded in
    // by SQLite's automatic checkpoint on the writer thread once it passes 1000 pages. What a
    // crash keeps is unchanged: committed WAL frames are part of the database.
    db->keepWalOnClose();
    // A WAL restarted after a checkpoint is cut back to what its first commit needs, so its
    // size tells how much the next open's recovery reads (RecordingWriter checkpoints early).
    if (auto e = db->exec("PRAGMA journal_size_limit=0")) return *e;
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

Status RecordingStore::appendReviewEvent(const std::string& id, EventKind kind,
                                         const nlohmann::json& data)
{
    auto found = sid(id);
    if (!found) return found.error();
    auto last = m_db.prepare("SELECT state, COALESCE((SELECT MAX(seq) FROM events WHERE sid = ?1), "
                             "-1), last_t_ns FROM sessions WHERE sid = ?1");
    if (!last) return last.error();
    last->bind(1, *found);
    auto row = last->step("read the session's last event");
    if (!row) return row.error();
    if (!*row) return Error{ErrorCode::NotFound, 0, "no recorded session '" + id + "'"};
    if (last->columnText(0) == "running")
        return Error{ErrorCode::Conflict, 0, "session " + id + " is still being recorded"};
    const std::int64_t seq = last->columnInt(1) + 1, tNs = last->columnInt(2);
    auto insert = m_db.prepare("INSERT INTO events (sid, seq, t_ns, type, enc, data) "
                               "VALUES (?1, ?2, ?3, ?4, 0, ?5)");
    if (!insert) return insert.error();
    const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    insert->bind(1, *found)
        .bind(2, seq)
        .bind(3, tNs)
        .bind(4, static_cast<int>(kind))
        .bindText(5, text);
    if (auto e = insert->run("record a review event")) return e;
    auto count = m_db.prepare("UPDATE sessions SET events = events + 1 WHERE sid = ?1");
    if (!count) return count.error();
    return count->bind(1, *found).run("count a review event");
}

Status RecordingStore::markInterrupted()
{
    return markInterruptedSessions(m_db);
}

Status markInterruptedSessions(SqliteDb& db)
{
    auto running = db.prepare("SELECT sid, id FROM sessions WHERE state = 'running'");
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
    auto mark = db.prepare("UPDATE sessions SET state = 'interrupted', "
                           "ended_ns = started_ns + last_t_ns WHERE sid = ?1 AND "
                           "state = 'running'");
    if (!mark) return mark.error();
    for (std::int64_t s : gone)
        if (auto e = mark->bind(1, s).run("mark session interrupted")) return e;
    return {};
}

} // namespace sb
