// The recording database for readers and maintenance: listing, summaries, event streams,
// search, screen at a time, removal and retention. Writing is RecordingWriter's job.
// One file, $XDG_DATA_HOME/sandbench/recordings.db unless $SANDBENCH_RECORDINGS_DB or the
// caller names another. Every entry point should call markInterruptedSessions() once.
#pragma once

#include "base/Error.h"
#include "recording/RecordingSqlite.h"
#include "recording/RecordingTypes.h"
#include "recording/ScreenModel.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sb {

// $SANDBENCH_RECORDINGS_DB, else dataDirectory()/recordings.db.
std::filesystem::path defaultRecordingsPath();

// Opens (creating the folder and file if needed) and migrates the database, in WAL mode with
// synchronous=NORMAL and a busy timeout. Errors name the file: damaged, not a database, newer
// schema, folder not writable.
Result<SqliteDb> openRecordingDb(const std::filesystem::path& file);

// The checks a recording can fail before anything starts, without opening SQLite: the folder
// and file exist (created if need be) and are writable, and the file is empty or a SQLite
// database whose header names a schema this Sandbench knows. Errors read as openRecordingDb's.
// It reads the header through a descriptor of its own, whose close drops every POSIX lock this
// process holds on the file, SQLite's included: call it before the process connects to it.
Status checkRecordingDb(const std::filesystem::path& file);

// Marks sessions still "running" whose supervisor is gone (sb::sessionIsLive is false) as
// interrupted, ending them at their last event. Does nothing when the database does not exist.
Status markInterruptedSessions(const std::filesystem::path& file = {});
// The same on a connection already open (the recording writer's, which does it for `run`).
Status markInterruptedSessions(SqliteDb& db);

struct SessionRecord {
    std::string id;
    std::vector<std::string> command;
    std::string workspace;
    std::string policy; // JSON text
    std::int64_t startedNs = 0;
    std::int64_t endedNs = 0; // 0 while running
    std::optional<int> exitStatus;
    RecordState state = RecordState::Running;
    unsigned rows = 24, cols = 80;
    std::uint64_t events = 0, outputBytes = 0, storedBytes = 0;
    std::int64_t lastEventNs = 0; // since the start
    std::int64_t durationNs() const;
};

struct SessionFilter {
    std::optional<std::int64_t> sinceNs; // started at or after (CLOCK_REALTIME)
    std::optional<RecordState> state;
};

// What `show` prints: the session and what happened in it.
struct RecordedSessionSummary {
    SessionRecord session;
    std::vector<std::string> commands;       // execs that ran (allowed, or approved), as lines
    std::vector<std::string> deniedCommands; // execs refused by a rule, an answer or a timeout
    std::vector<std::string> hosts; // "host:port", "host:port by PROGRAM" contacted (distinct)
    // Final decisions: an `ask` counts once answered, as what the answer (or its timeout) was;
    // prompts: approval requests; timeouts: those of them no one answered in time.
    unsigned allowed = 0, denied = 0, prompts = 0, timeouts = 0;
    std::vector<std::string> changedFiles; // "M path", "A path", "D path"
    std::vector<std::string> limitsHit;
    // Calls the sandbox refused: "mount by mount -t tmpfs none /tmp (pid 7)", one per call
    // and process (repeats within seconds are one record).
    std::vector<std::string> refusals;
    // Observe mode (`run --observe`): the session asked nobody; `wouldAsk` decisions were
    // allowed where its policy says ask.
    bool observed = false;
    unsigned wouldAsk = 0;
    std::uint64_t droppedBytes = 0;
    // Model API requests through the proxy's gateway, per model as the responses named it (""
    // when none did), in the order of names; tokens as recorded (network/ModelUsage.h).
    struct ModelTotals {
        std::string model;
        std::uint64_t requests = 0, inputTokens = 0, outputTokens = 0, cacheReadTokens = 0,
                      cacheWriteTokens = 0;
    };
    std::vector<ModelTotals> models;
    // Attempted leaks, refused: "GITHUB_TOKEN to gist.github.com:443 in header by curl".
    std::vector<std::string> leaks;
};

struct SearchHit {
    std::string session;
    std::int64_t tNs = 0; // since the session's start
    std::string snippet;
};

struct GcOptions {
    std::optional<std::uint64_t> maxBytes; // total stored bytes to keep
    std::optional<std::int64_t> maxAgeNs;  // older sessions go
    bool dryRun = false;
};

struct GcReport {
    std::vector<std::string> removed;
    // The recordings' stored (compressed) bytes, as the size limit counts them.
    std::uint64_t freedBytes = 0, keptBytes = 0;
    // What the database takes on disk afterwards (its file and write-ahead log: indexes,
    // keyframes and free pages too). `gc` and the window's settings both say these two.
    std::uint64_t fileBytes = 0;
};

// Retention defaults: $XDG_CONFIG_HOME/sandbench/recordings.json
// {"max_size_mb": 2048, "max_age_days": 90}; either may be 0 (no limit).
Result<GcOptions> loadRetentionConfig();
// The same limits in the file's units (MB, days), as `gc` and the window's settings read them.
struct RetentionLimits {
    std::uint64_t maxSizeMb = 2048; // 0 = no limit
    std::uint64_t maxAgeDays = 90;  // 0 = no limit
    GcOptions toGcOptions() const;
};
Result<RetentionLimits> loadRetentionLimits();
// Writes the file (atomically: a temporary file renamed over it), creating its folder.
Status saveRetentionLimits(const RetentionLimits& limits);
std::filesystem::path retentionConfigPath();

class RecordingStore {
  public:
    static Result<RecordingStore> open(const std::filesystem::path& file = {});

    Result<std::vector<SessionRecord>> sessions(const SessionFilter& filter = {});
    Result<SessionRecord> session(const std::string& id);
    Result<RecordedSessionSummary> summary(const std::string& id);
    // Events of the session in order with fromNs <= t <= toNs; `visit` returns false to stop.
    Status forEachEvent(const std::string& id, std::int64_t fromNs, std::int64_t toNs,
                        const std::function<bool(const RecordedEvent&)>& visit);
    // Every event but terminal bytes (output, input), in order: what happened in a long
    // session without reading its output.
    Status forEachStructuredEvent(const std::string& id,
                                  const std::function<bool(const RecordedEvent&)>& visit);
    // Terminal output text containing `text` (whole words, the last may be a prefix; case and
    // runs of whitespace ignored), newest first.
    Result<std::vector<SearchHit>> search(const std::string& text,
                                          const std::string& sessionId = {}, size_t limit = 50);
    // The screen at `tNs` since the start (keyframe + the output after it).
    Status screenAt(const std::string& id, std::int64_t tNs, ScreenModel& screen);
    // Deletes a session's recording; refuses while its supervisor runs.
    Status remove(const std::string& id);
    Result<GcReport> gc(const GcOptions& options);
    Status markInterrupted();
    // Adds an event to an ended session's recording, at the time of its last event: what was
    // done with its changes afterwards (apply: what was held back). Refuses a running one,
    // whose writer owns its events.
    Status appendReviewEvent(const std::string& id, EventKind kind, const nlohmann::json& data);

    SqliteDb& db() { return m_db; }
    const std::filesystem::path& file() const { return m_db.file(); }

  private:
    explicit RecordingStore(SqliteDb db) : m_db(std::move(db)) {}
    Result<std::int64_t> sid(const std::string& id);
    Status removeSid(std::int64_t sid);

    SqliteDb m_db;
};

} // namespace sb
