#include "recording/RecordingCopy.h"

#include "recording/RecordingIndex.h"

#include <system_error>

namespace sb {
namespace {

// Runs `sql` with the session's id as ?1; the rows it changed.
Result<int> runForSession(SqliteDb& db, const char* sql, const std::string& id, const char* what)
{
    auto stmt = db.prepare(sql);
    if (!stmt) return stmt.error();
    stmt->bindText(1, id);
    if (auto e = stmt->run(what)) return *e;
    return db.changes();
}

Status copyRows(SqliteDb& db, const std::string& id)
{
    auto sessions =
        runForSession(db, "INSERT INTO copy.sessions SELECT * FROM main.sessions WHERE id = ?1", id,
                      "copy the session");
    if (!sessions) return sessions.error();
    if (*sessions != 1) return Error{ErrorCode::NotFound, 0, "no recorded session " + id};
    auto events = runForSession(db,
                                "INSERT INTO copy.events SELECT e.* FROM main.events e "
                                "JOIN main.sessions s ON e.sid = s.sid WHERE s.id = ?1",
                                id, "copy the events");
    if (!events) return events.error();
    auto keyframes = runForSession(db,
                                   "INSERT INTO copy.keyframes SELECT k.* FROM main.keyframes k "
                                   "JOIN main.sessions s ON k.sid = s.sid WHERE s.id = ?1",
                                   id, "copy the keyframes");
    if (!keyframes) return keyframes.error();
    return {};
}

} // namespace

Status copySessionRecording(RecordingStore& store, const std::string& id,
                            const std::filesystem::path& file)
{
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(file.string() + suffix, ec);
    {
        // The schema, as a recordings database of this version has it.
        auto made = RecordingStore::open(file);
        if (!made) return made.error();
    }
    SqliteDb& db = store.db();
    auto attach = db.prepare("ATTACH DATABASE ?1 AS copy");
    if (!attach) return attach.error();
    attach->bindText(1, file.string());
    if (auto e = attach->run("attach the copy")) return e;
    Status copied;
    if (auto e = db.exec("BEGIN"))
        copied = e;
    else {
        copied = copyRows(db, id);
        if (copied)
            (void)db.exec("ROLLBACK");
        else
            copied = db.exec("COMMIT");
    }
    if (auto e = db.exec("DETACH DATABASE copy"); e && !copied) copied = e;
    if (copied) {
        std::filesystem::remove(file, ec);
        return copied;
    }
    // The search's index of its output, and one file with no WAL beside it.
    auto copy = RecordingStore::open(file);
    if (!copy) return copy.error();
    auto sid = copy->db().queryInt("SELECT sid FROM sessions");
    if (!sid) return sid.error();
    if (auto e = indexSessionText(copy->db(), *sid, TextIndexOp::Add)) return e;
    return copy->db().exec("PRAGMA journal_mode=DELETE");
}

} // namespace sb
