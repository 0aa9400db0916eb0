#include "recording/RecordingSchema.h"

#include "recording/RecordingIndex.h"
#include "recording/RecordingKeyframes.h"
#include "recording/RecordingText.h"

#include <array>

namespace sb {
namespace {

// Version 1: sessions and their ordered event stream.
Status step1(SqliteDb& db)
{
    return db.exec(R"sql(
CREATE TABLE sessions (
  sid          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,            -- sb::SessionInfo::id
  command      TEXT NOT NULL,                   -- JSON array of strings
  workspace    TEXT NOT NULL,
  policy       TEXT NOT NULL DEFAULT '{}',      -- JSON snapshot of the policy in force
  started_ns   INTEGER NOT NULL,                -- CLOCK_REALTIME
  ended_ns     INTEGER,                         -- CLOCK_REALTIME, NULL while running
  exit_status  INTEGER,
  state        TEXT NOT NULL DEFAULT 'running'
               CHECK (state IN ('running', 'ended', 'interrupted')),
  rows         INTEGER NOT NULL DEFAULT 24,     -- terminal size at the start
  cols         INTEGER NOT NULL DEFAULT 80,
  events       INTEGER NOT NULL DEFAULT 0,      -- kept by the writer, per transaction
  output_bytes INTEGER NOT NULL DEFAULT 0,
  stored_bytes INTEGER NOT NULL DEFAULT 0,
  last_t_ns    INTEGER NOT NULL DEFAULT 0       -- time of the last stored event
);
CREATE INDEX sessions_by_start ON sessions (started_ns);
CREATE TABLE events (
  id    INTEGER PRIMARY KEY,
  sid   INTEGER NOT NULL,                       -- sessions.sid
  seq   INTEGER NOT NULL,                       -- 0, 1, 2… within the session
  t_ns  INTEGER NOT NULL,                       -- CLOCK_MONOTONIC since the start, never decreasing
  type  INTEGER NOT NULL,                       -- sb::EventKind
  enc   INTEGER NOT NULL DEFAULT 0,             -- 0 raw, 1 zstd (terminal bytes only)
  data  BLOB                                    -- terminal bytes, or JSON text
);
CREATE INDEX events_by_time ON events (sid, t_ns, seq);
)sql");
}

// A later step that fills its new table from what earlier versions recorded, session by session.
template <class Step> Status forEachSession(SqliteDb& db, Step step)
{
    auto sids = db.prepare("SELECT sid FROM sessions ORDER BY sid");
    if (!sids) return sids.error();
    while (true) {
        auto row = sids->step("list sessions");
        if (!row) return row.error();
        if (!*row) return {};
        if (auto e = step(sids->columnInt(0))) return e;
    }
}

// Version 2: full-text index of terminal output, escape sequences stripped. Contentless with
// detail=none: it holds only which chunk has which word, so it adds little to the file; the
// exact phrase is checked against the chunk itself (RecordingSearch.cpp).
Status step2(SqliteDb& db)
{
    if (auto e = db.exec("CREATE VIRTUAL TABLE terminal_text USING fts5(text, content='', "
                         "detail=none, columnsize=0, tokenize='unicode61')"))
        return e;
    return forEachSession(
        db, [&](std::int64_t sid) { return indexSessionText(db, sid, TextIndexOp::Add); });
}

// Version 3: screen keyframes, so seeking replays at most a few hundred KiB of output.
Status step3(SqliteDb& db)
{
    if (auto e = db.exec(R"sql(
CREATE TABLE keyframes (
  sid   INTEGER NOT NULL,
  t_ns  INTEGER NOT NULL,   -- the screen after the event `seq`, at its time
  seq   INTEGER NOT NULL,
  rows  INTEGER NOT NULL,
  cols  INTEGER NOT NULL,
  enc   INTEGER NOT NULL,
  data  BLOB NOT NULL,      -- a VT byte string that repaints the screen (ScreenModel::snapshot)
  PRIMARY KEY (sid, t_ns, seq)
) WITHOUT ROWID;
)sql"))
        return e;
    return forEachSession(db, [&](std::int64_t sid) { return buildKeyframes(db, sid); });
}

// Version 4: the sessions still marked running, which every session start looks up (to mark
// those whose supervisor is gone as interrupted); without it that lookup read every session's
// row, policy snapshot included: ~10 MB for 2,000 sessions, at each start.
Status step4(SqliteDb& db)
{
    return db.exec("CREATE INDEX sessions_running ON sessions (sid) WHERE state = 'running'");
}

// Version 5: symbols and emoji are words of the index too ("✓", "✗ test_avg", "🎉"), which
// unicode61's default categories took for separators: the index is made again, with the
// tokenizer the search cuts its text by (kTerminalTextTokenizer).
Status step5(SqliteDb& db)
{
    std::string quoted; // an SQL string between double quotes
    for (const char* c = kTerminalTextTokenizer; *c != '\0'; ++c)
        quoted += *c == '"' ? std::string("\"\"") : std::string(1, *c);
    if (auto e = db.exec("DROP TABLE terminal_text")) return e;
    if (auto e = db.exec("CREATE VIRTUAL TABLE terminal_text USING fts5(text, content='', "
                         "detail=none, columnsize=0, tokenize=\"" +
                         quoted + "\")"))
        return e;
    return forEachSession(
        db, [&](std::int64_t sid) { return indexSessionText(db, sid, TextIndexOp::Add); });
}

using Step = Status (*)(SqliteDb&);
constexpr std::array<Step, 5> kSteps = {step1, step2, step3, step4, step5};

} // namespace

int latestRecordingSchema()
{
    return static_cast<int>(kSteps.size());
}

Error newerSchemaError(const std::filesystem::path& file, int version)
{
    return Error{ErrorCode::Unsupported, 0,
                 "recording database " + file.string() + " has schema version " +
                     std::to_string(version) + ", newer than this Sandbench knows (" +
                     std::to_string(latestRecordingSchema()) + "); update Sandbench"};
}

Status migrateRecordingDb(SqliteDb& db, int target)
{
    if (target < 0) target = latestRecordingSchema();
    auto version = db.queryInt("PRAGMA user_version");
    if (!version) return version.error();
    if (*version > latestRecordingSchema())
        return newerSchemaError(db.file(), static_cast<int>(*version));
    if (*version >= target) return {};
    // Only possible while the file has no tables: lets gc give space back with
    // incremental_vacuum instead of a full VACUUM.
    if (*version == 0)
        if (auto e = db.exec("PRAGMA auto_vacuum=INCREMENTAL")) return e;
    if (auto e = db.exec("BEGIN IMMEDIATE")) return e;
    // Another process may have migrated while we waited for the write lock.
    version = db.queryInt("PRAGMA user_version");
    for (auto v = version ? *version : target; v < target; ++v) {
        if (auto e = kSteps[static_cast<size_t>(v)](db)) {
            (void)db.exec("ROLLBACK");
            return e->within("migrate recording database to version " + std::to_string(v + 1));
        }
        if (auto e = db.exec("PRAGMA user_version=" + std::to_string(v + 1))) {
            (void)db.exec("ROLLBACK");
            return e;
        }
    }
    if (!version) {
        (void)db.exec("ROLLBACK");
        return version.error();
    }
    return db.exec("COMMIT");
}

} // namespace sb
