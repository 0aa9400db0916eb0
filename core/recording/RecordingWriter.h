// Records one session. The supervisor calls the methods below from its threads (the session
// loop, exec approval); they only append to a bounded in-memory queue (a mutex held for a
// memcpy), never touch the disk nor wait for the database to open. A writer thread commits the
// queue every ~50 ms (so a SIGKILL loses at most ~100 ms), indexes terminal text and keeps screen
// keyframes.
//
// Bounded memory: adjacent terminal chunks within 10 ms are merged into one row (up to 64 KiB);
// when the queue is full they are merged regardless of time; if even that cannot hold an
// event, its bytes are counted as dropped and a "dropped" event records how many.
#pragma once

#include "base/Error.h"
#include "recording/RecordingTypes.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

namespace sb {

// The writer could not store events for a reason that may pass (`stalled`: the database locked
// by another process, a full disk), or it can again.
struct RecordingStall {
    bool stalled = false;
    std::string reason;      // when stalled: the database's error
    std::size_t waiting = 0; // when stalled: events held back in the batch at hand
};

struct WriterOptions {
    std::size_t maxQueuedItems = 65536;
    // Also bounds what a crash can lose: a fraction of a second of the writer's throughput.
    std::size_t maxQueuedBytes = 8u << 20;
    std::int64_t coalesceNs = 10'000'000;
    std::size_t maxChunkBytes = 64u << 10;
    int commitIntervalMs = 50;
    // Nanoseconds on a monotonic clock; tests and benchmarks inject synthetic time.
    std::function<std::int64_t()> clock;
    // startInBackground() only: called on the writer's thread when the database then cannot be
    // opened after all, so that the supervisor stops the session at once.
    std::function<void(const Error&)> onOpenFailed;
    // Called on the writer's thread when storing stalls and when it works again. Meanwhile the
    // session's events wait in the queue (up to its bounds: beyond them they are counted as
    // dropped); at the session's end the writer waits 15 s at most, then gives up.
    std::function<void(const RecordingStall&)> onStall;
};

class RecordingWriter {
  public:
    // Opens (creates, migrates) the database and inserts the session row. Fails before the
    // session starts when the database cannot be written: damaged file, read-only folder,
    // a session of that id already recorded. `db` empty: defaultRecordingsPath().
    static Result<std::unique_ptr<RecordingWriter>> start(const std::filesystem::path& db,
                                                          const SessionRecordInfo& info,
                                                          const WriterOptions& options = {});
    // The same, except that the database is not even looked at here: the caller has run
    // checkRecordingDb() (the supervisor does, before the sandbox starts), and opening,
    // migrating, marking interrupted sessions and inserting the session row happen on the
    // writer's thread while events already queue, so a session's start never waits for SQLite.
    // A failure there is reported to options.onOpenFailed, by opened() and by finish().
    static Result<std::unique_ptr<RecordingWriter>>
    startInBackground(const std::filesystem::path& db, const SessionRecordInfo& info,
                      const WriterOptions& options = {});
    ~RecordingWriter(); // without finish(): flushes and marks the session interrupted
    RecordingWriter(const RecordingWriter&) = delete;
    RecordingWriter& operator=(const RecordingWriter&) = delete;

    void terminalOutput(std::string_view bytes);
    void terminalInput(std::string_view bytes);
    void resize(unsigned rows, unsigned cols);
    void event(EventKind kind, nlohmann::json payload);
    // Stored as an exec request and an exec decision, both with toJson(command) as payload.
    void command(CommandRecord command);

    // The queue is three quarters full while storing goes on: the session loop then stops
    // reading the command's output for a moment, so the command waits on its terminal instead
    // of its output being dropped. False while storing stalls (a full disk, a locked
    // database): the session then goes on, and what does not fit is counted as dropped.
    bool backlogged() const;

    // Waits until the database is open: its error if it could not be.
    Status opened();

    // Blocks until everything queued so far is committed (tests, and before a summary).
    void flush();
    // flush() without the wait: `done` runs on the writer's thread once everything queued so far
    // is committed, or at once (on the caller's thread) when nothing waits. Like flush(), it does
    // not wait for a writer that is stalled, could not open its database or is finishing.
    void whenCommitted(std::function<void()> done);
    // Stores what is queued and marks the session ended (or interrupted) with this exit
    // status, in one last transaction on the writer's thread; does not wait for it. Later
    // events are refused. The first call decides; finish() then waits.
    void requestFinish(int exitStatus, bool interrupted = false);
    // requestFinish(), then waits for the last transaction: its error if it failed.
    Status finish(int exitStatus, bool interrupted = false);

    WriterStats stats() const;
    const std::string& sessionId() const;

    struct Impl;

  private:
    explicit RecordingWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace sb
