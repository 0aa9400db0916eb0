// The writer's state, shared by its files: RecordingWriter.cpp (the queue the supervisor's
// threads fill, opening the database) and RecordingWriterStore.cpp (the writer thread's
// transactions).
#pragma once

#include "recording/RecordingIndex.h"
#include "recording/RecordingKeyframeWorker.h"
#include "recording/RecordingSqlite.h"
#include "recording/RecordingWriter.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace sb {

struct RecordingWriter::Impl {
    struct Item {
        EventKind kind = EventKind::Output;
        std::int64_t tNs = 0;   // when queued; once written, the stored time
        std::string bytes;      // terminal bytes
        nlohmann::json payload; // structured events
        // kind ExecRequest from command(): stored as a request and a decision
        std::unique_ptr<CommandRecord> command;
        std::int64_t seq = -1; // once written, the stored sequence number
    };

    // Wake the writer early once this many items wait: keeps transactions a sensible size.
    static constexpr std::size_t kBatchItems = 16384;
    static std::int64_t realtimeNs();
    // Replaces invalid UTF-8 (argv and paths are bytes) instead of throwing.
    static std::string jsonText(const nlohmann::json& j);

    WriterOptions limits;
    std::filesystem::path file;
    SessionRecordInfo info;
    SqliteDb db;
    std::int64_t sid = 0;
    std::string id;
    std::int64_t monoStart = 0;

    // Shared with the supervisor's thread.
    mutable std::mutex mutex;
    std::condition_variable wake, committed;
    std::vector<Item> pending;
    std::size_t pendingBytes = 0;
    std::uint64_t unreportedDropEvents = 0, unreportedDropBytes = 0;
    std::uint64_t acceptedGen = 0, committedGen = 0;
    // whenCommitted(): what to call once committedGen reaches each generation.
    std::vector<std::pair<std::uint64_t, std::function<void()>>> onCommit;
    // Under `mutex`: the callbacks of onCommit due at `committed` (all of them: `all`).
    std::vector<std::function<void()>> dueCallbacks(bool all);
    // Under `mutex`: what was accepted up to `target` is committed, or never will be (the
    // database could not open, storing is stalled, the thread is gone): flush() waits no more.
    bool settled(std::uint64_t target) const
    {
        return committedGen >= target || openError || stalled || !thread.joinable();
    }
    bool flushRequested = false, stop = false, finished = false;
    // What requestFinish() asked the last transaction to store.
    struct Ending {
        int exitStatus = 0;
        bool interrupted = false;
    };
    Ending ending;
    bool opening = false;           // startInBackground: the thread has not opened the db yet
    std::optional<Error> openError; // it could not
    std::condition_variable openDone;
    WriterStats stats;
    std::thread thread;

    // The writer thread's own: where the stream stands, and where it stood at the last commit
    // (a rolled-back transaction puts it back there, with the text index's stripper).
    struct Progress {
        std::int64_t nextSeq = 0, lastT = 0;
        std::uint64_t storedEvents = 0, storedOutput = 0, storedBytes = 0;
    };
    Progress at, atCommit;
    TerminalTextStripper stripperAtCommit;
    // Prepared with the session's first terminal output: a command without any never needs
    // them (connecting the full-text index's virtual table is itself a query).
    std::optional<TextIndexer> text;
    std::optional<SqliteStatement> insertKeyframe;
    std::optional<KeyframeWorker> keyframes;
    std::vector<Keyframe> keyframesToStore; // taken from the worker, not yet committed
    SqliteStatement insertEvent, updateSession, endSession;
    bool stalled = false; // storing fails for a reason that may pass; the batch waits (set
                          // under the mutex, for flush())
    std::optional<std::chrono::steady_clock::time_point> giveUpAt; // set once finishing

    Status open();
    void enqueue(EventKind kind, std::string_view bytes, nlohmann::json payload,
                 std::unique_ptr<CommandRecord> command = {});
    void run();
    void storeOrWait(std::vector<Item>& batch, const Ending* end);
    Status writeBatch(std::vector<Item>& batch, std::size_t& written, const Ending* end);
    Status writeItem(Item& item);
    Status updateTotals();
    Status storeKeyframes();
    void committedUpTo(std::vector<Item>& batch, std::size_t from, std::size_t to);
    void setStalled(const Error* why, std::size_t waiting);
};

} // namespace sb
