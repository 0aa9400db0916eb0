#include "recording/RecordingWriter.h"

#include "base/Session.h"
#include "recording/RecordingCodec.h"
#include "recording/RecordingIndex.h"
#include "recording/RecordingKeyframeWorker.h"
#include "recording/RecordingSqlite.h"
#include "recording/RecordingStore.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <time.h>
#include <vector>

namespace sb {
namespace {

std::int64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t realtimeNs()
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::string jsonText(const nlohmann::json& j)
{
    // Replace invalid UTF-8 (argv and paths are bytes) instead of throwing.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

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
constexpr std::size_t kBatchItems = 16384;
// About fifteen short sessions (7 frames each) of WAL: a recovery scan well under 1 ms.
constexpr std::uintmax_t kCheckpointWalBytes = 512u << 10;
// A transaction open longer than this is committed and a new one begun.
constexpr auto kMaxTransaction = std::chrono::milliseconds(100);
// A batch that could not be stored for a reason that may pass is tried again this often…
constexpr auto kRetryInterval = std::chrono::milliseconds(250);
// …and for this long once the session ends (an end waits that long at most for the database).
constexpr auto kFinalWait = std::chrono::seconds(15);

} // namespace

struct RecordingWriter::Impl {
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

RecordingWriter::RecordingWriter(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

// Opens (creates, migrates) the database, inserts the session row and prepares the statements.
Status RecordingWriter::Impl::open()
{
    auto opened = openRecordingDb(file);
    if (!opened) return opened.error();
    db = std::move(opened.value());
    SqliteDb& d = db;
    // The WAL outlives each connection (see openRecordingDb), and each first open reads all of
    // it to rebuild its index: fold it into the database once it holds a few sessions, here,
    // while the sandbox starts, rather than at some session's end (SQLite's own automatic
    // checkpoint waits for 1000 pages).
    std::error_code ec;
    auto walBytes = std::filesystem::file_size(d.file().string() + "-wal", ec);
    if (!ec && walBytes > kCheckpointWalBytes) (void)d.exec("PRAGMA wal_checkpoint(PASSIVE)");
    // In the background, the supervisor has skipped this at start (see app/cli/main.cpp).
    if (opening)
        if (auto e = markInterruptedSessions(d)) return e;

    auto exists = d.prepare("SELECT 1 FROM sessions WHERE id = ?1");
    if (!exists) return exists.error();
    exists->bindText(1, info.id);
    auto found = exists->step("find session");
    if (!found) return found.error();
    if (*found)
        return inputError("session '" + info.id + "' is already recorded in " + d.file().string());
    auto insert = d.prepare("INSERT INTO sessions (id, command, workspace, policy, started_ns, "
                            "state, rows, cols) VALUES (?1, ?2, ?3, ?4, ?5, 'running', ?6, ?7)");
    if (!insert) return insert.error();
    unsigned rows = info.rows > 0 ? info.rows : 24, cols = info.cols > 0 ? info.cols : 80;
    insert->bindText(1, info.id)
        .bindText(2, jsonText(info.command))
        .bindText(3, info.workspace.string())
        .bindText(4, jsonText(info.policy))
        .bind(5, info.startedNs != 0 ? info.startedNs : realtimeNs())
        .bind(6, static_cast<std::int64_t>(rows))
        .bind(7, static_cast<std::int64_t>(cols));
    if (auto e = insert->run("record session start")) return *e;
    sid = d.lastInsertId();

    auto ev = d.prepare("INSERT INTO events (sid, seq, t_ns, type, enc, data) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    auto up = d.prepare("UPDATE sessions SET events = ?2, output_bytes = ?3, stored_bytes = ?4, "
                        "last_t_ns = ?5 WHERE sid = ?1");
    auto end = d.prepare("UPDATE sessions SET state = ?2, ended_ns = ?3, exit_status = ?4 "
                         "WHERE sid = ?1");
    for (const Error* e :
         {ev ? nullptr : &ev.error(), up ? nullptr : &up.error(), end ? nullptr : &end.error()})
        if (e != nullptr) return *e;
    insertEvent = std::move(ev.value());
    updateSession = std::move(up.value());
    endSession = std::move(end.value());
    keyframes.emplace(rows, cols);
    // Room for the event index's hot pages during floods; allocated only as pages are used.
    (void)d.exec("PRAGMA cache_size=-16384");
    return {};
}

namespace {

Result<std::unique_ptr<RecordingWriter::Impl>> newImpl(const std::filesystem::path& file,
                                                       const SessionRecordInfo& info,
                                                       const WriterOptions& limits)
{
    if (!isValidSessionId(info.id))
        return inputError("cannot record session '" + info.id + "': invalid session id");
    auto impl = std::make_unique<RecordingWriter::Impl>();
    impl->limits = limits;
    impl->file = file;
    impl->info = info;
    impl->id = info.id;
    impl->pending.reserve(kBatchItems);
    impl->monoStart = limits.clock ? limits.clock() : monotonicNs();
    return impl;
}

} // namespace

Result<std::unique_ptr<RecordingWriter>> RecordingWriter::start(const std::filesystem::path& file,
                                                                const SessionRecordInfo& info,
                                                                const WriterOptions& limits)
{
    auto impl = newImpl(file, info, limits);
    if (!impl) return impl.error();
    if (auto e = (*impl)->open()) return *e;
    // Time 0 is when the caller can start recording: after the open.
    (*impl)->monoStart = limits.clock ? limits.clock() : monotonicNs();
    Impl* raw = impl->get();
    (*impl)->thread = std::thread([raw] { raw->run(); });
    return std::unique_ptr<RecordingWriter>(new RecordingWriter(std::move(impl.value())));
}

Result<std::unique_ptr<RecordingWriter>>
RecordingWriter::startInBackground(const std::filesystem::path& file, const SessionRecordInfo& info,
                                   const WriterOptions& limits)
{
    auto impl = newImpl(file, info, limits);
    if (!impl) return impl.error();
    (*impl)->opening = true;
    Impl* raw = impl->get();
    (*impl)->thread = std::thread([raw] {
        Status failed = raw->open();
        {
            std::lock_guard lock(raw->mutex);
            raw->opening = false;
            if (failed) {
                // Nothing will be stored: later events are refused, flush() does not wait.
                raw->openError = failed;
                raw->stop = true;
                raw->pending.clear();
            }
        }
        raw->openDone.notify_all();
        raw->committed.notify_all();
        if (!failed) return raw->run();
        if (raw->limits.onOpenFailed) raw->limits.onOpenFailed(*failed);
    });
    return std::unique_ptr<RecordingWriter>(new RecordingWriter(std::move(impl.value())));
}

Status RecordingWriter::opened()
{
    std::unique_lock lock(m_impl->mutex);
    m_impl->openDone.wait(lock, [&] { return !m_impl->opening; });
    return m_impl->openError;
}

RecordingWriter::~RecordingWriter()
{
    if (m_impl && !m_impl->finished) (void)finish(-1, true);
}

const std::string& RecordingWriter::sessionId() const
{
    return m_impl->id;
}

void RecordingWriter::Impl::enqueue(EventKind kind, std::string_view bytes, nlohmann::json payload,
                                    std::unique_ptr<CommandRecord> command)
{
    std::lock_guard lock(mutex);
    // Read under the lock: with producers on several threads (the session loop, exec approval)
    // the queue stays in time order.
    std::int64_t t = (limits.clock ? limits.clock() : monotonicNs()) - monoStart;
    if (stop) return;
    ++stats.eventsQueued;
    if (kind == EventKind::Output)
        stats.outputBytes += bytes.size();
    else if (kind == EventKind::Input)
        stats.inputBytes += bytes.size();
    ++acceptedGen;
    bool itemsFull = pending.size() >= limits.maxQueuedItems;
    bool bytesFull = pendingBytes + bytes.size() > limits.maxQueuedBytes;
    if (isTerminalBytes(kind) && !pending.empty() && !bytesFull) {
        Item& last = pending.back();
        bool sameKind = last.kind == kind;
        bool near = t - last.tNs <= limits.coalesceNs &&
                    last.bytes.size() + bytes.size() <= limits.maxChunkBytes;
        if (sameKind && (near || itemsFull)) {
            last.bytes.append(bytes);
            pendingBytes += bytes.size();
            stats.queueHighWaterBytes =
                std::max<std::uint64_t>(stats.queueHighWaterBytes, pendingBytes);
            return;
        }
    }
    if (itemsFull || bytesFull) {
        ++stats.droppedEvents, ++unreportedDropEvents;
        stats.droppedBytes += bytes.size(), unreportedDropBytes += bytes.size();
        return;
    }
    pending.push_back(Item{kind, t, std::string(bytes), std::move(payload), std::move(command)});
    pendingBytes += bytes.size();
    stats.queueHighWater = std::max<std::uint64_t>(stats.queueHighWater, pending.size());
    stats.queueHighWaterBytes = std::max<std::uint64_t>(stats.queueHighWaterBytes, pendingBytes);
    if (pending.size() == kBatchItems) wake.notify_one();
}

void RecordingWriter::terminalOutput(std::string_view bytes)
{
    if (!bytes.empty()) m_impl->enqueue(EventKind::Output, bytes, {});
}

void RecordingWriter::terminalInput(std::string_view bytes)
{
    if (!bytes.empty()) m_impl->enqueue(EventKind::Input, bytes, {});
}

void RecordingWriter::resize(unsigned rows, unsigned cols)
{
    m_impl->enqueue(EventKind::Resize, {}, nlohmann::json{{"rows", rows}, {"cols", cols}});
}

void RecordingWriter::event(EventKind kind, nlohmann::json payload)
{
    if (isTerminalBytes(kind)) {
        // Terminal bytes go through terminalOutput/terminalInput; keep the stream typed.
        std::string bytes = payload.is_string() ? payload.get<std::string>() : jsonText(payload);
        m_impl->enqueue(kind, bytes, {});
        return;
    }
    m_impl->enqueue(kind, {}, std::move(payload));
}

void RecordingWriter::command(CommandRecord command)
{
    m_impl->enqueue(EventKind::ExecRequest, {}, {},
                    std::make_unique<CommandRecord>(std::move(command)));
}

void RecordingWriter::flush()
{
    std::unique_lock lock(m_impl->mutex);
    std::uint64_t target = m_impl->acceptedGen;
    m_impl->flushRequested = true;
    m_impl->wake.notify_one();
    m_impl->committed.wait(lock, [&] {
        return m_impl->committedGen >= target || m_impl->openError || m_impl->stalled ||
               !m_impl->thread.joinable();
    });
}

bool RecordingWriter::backlogged() const
{
    std::lock_guard lock(m_impl->mutex);
    const WriterOptions& l = m_impl->limits;
    return !m_impl->stalled && !m_impl->stop &&
           (m_impl->pendingBytes >= l.maxQueuedBytes / 4 * 3 ||
            m_impl->pending.size() >= l.maxQueuedItems / 4 * 3);
}

WriterStats RecordingWriter::stats() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->stats;
}

void RecordingWriter::requestFinish(int exitStatus, bool interrupted)
{
    {
        std::lock_guard lock(m_impl->mutex);
        if (m_impl->finished) return;
        m_impl->finished = true;
        m_impl->ending = {exitStatus, interrupted};
        m_impl->stop = true;
    }
    m_impl->wake.notify_one();
}

Status RecordingWriter::finish(int exitStatus, bool interrupted)
{
    requestFinish(exitStatus, interrupted);
    if (m_impl->thread.joinable()) m_impl->thread.join();
    if (m_impl->openError) return m_impl->openError;
    std::lock_guard lock(m_impl->mutex);
    if (!m_impl->stats.lastError.empty())
        return Error{ErrorCode::System, 0,
                     "recording of session " + m_impl->id +
                         " is incomplete: " + m_impl->stats.lastError};
    return {};
}

void RecordingWriter::Impl::run()
{
    std::vector<Item> batch;
    batch.reserve(kBatchItems);
    while (true) {
        std::uint64_t gen = 0, dropEvents = 0, dropBytes = 0;
        bool stopping = false;
        Ending end;
        {
            std::unique_lock lock(mutex);
            wake.wait_for(lock, std::chrono::milliseconds(limits.commitIntervalMs),
                          [&] { return stop || flushRequested || pending.size() >= kBatchItems; });
            batch.swap(pending);
            pendingBytes = 0;
            gen = acceptedGen;
            dropEvents = std::exchange(unreportedDropEvents, 0);
            dropBytes = std::exchange(unreportedDropBytes, 0);
            flushRequested = false;
            stopping = stop;
            end = ending;
        }
        if (dropEvents > 0) {
            std::int64_t t = batch.empty() ? at.lastT : batch.back().tNs;
            batch.push_back(Item{EventKind::Dropped,
                                 t,
                                 {},
                                 nlohmann::json{{"events", dropEvents}, {"bytes", dropBytes}},
                                 {}});
        }
        // Events are refused once stopping: this is the last round.
        if (!batch.empty() || stopping) storeOrWait(batch, stopping ? &end : nullptr);
        batch.clear();
        {
            std::lock_guard lock(mutex);
            committedGen = gen;
            stopping = stopping && pending.empty();
        }
        committed.notify_all();
        if (stopping) return;
    }
}

// Stores the batch. A failure that may pass (the database locked by another process, a full
// disk) keeps it and tries again; the supervisor's events wait in the queue meanwhile (beyond
// its bound they are counted as dropped, and a "dropped" event says so once stored). Once the
// session is finishing it gives up kFinalWait later. Any other failure loses the batch.
void RecordingWriter::Impl::storeOrWait(std::vector<Item>& batch, const Ending* end)
{
    std::size_t written = 0;
    while (Status failed = writeBatch(batch, written, end)) {
        const auto now = std::chrono::steady_clock::now();
        {
            std::lock_guard lock(mutex);
            if (stop && !giveUpAt) giveUpAt = now + kFinalWait;
        }
        if (!mayPass(*failed) || (giveUpAt && now >= *giveUpAt)) {
            std::lock_guard lock(mutex);
            stats.lastError = failed->describe();
            stats.droppedEvents += batch.size() - written;
            return;
        }
        setStalled(&*failed, batch.size() - written);
        std::this_thread::sleep_for(kRetryInterval);
    }
    if (stalled) setStalled(nullptr, 0);
}

void RecordingWriter::Impl::setStalled(const Error* why, std::size_t waiting)
{
    if ((why != nullptr) == stalled) return; // said once per stall
    {
        std::lock_guard lock(mutex);
        stalled = why != nullptr;
        if (stalled) ++stats.stalls;
    }
    committed.notify_all(); // flush() does not wait for a stalled writer
    if (!limits.onStall) return;
    if (stalled)
        limits.onStall(RecordingStall{true, why->describe(), waiting});
    else
        limits.onStall(RecordingStall{false, {}, 0});
}

// Writes batch[written…] in one transaction (or a few, for a long batch), with the session's
// totals and, if `end`, its end. `written` moves past each committed slice; after a failure
// the writer's progress is back where the last commit left it.
Status RecordingWriter::Impl::writeBatch(std::vector<Item>& batch, std::size_t& written,
                                         const Ending* end)
{
    auto fail = [&](const Error& e) {
        (void)db.exec("ROLLBACK");
        at = atCommit;
        if (text) text->restore(stripperAtCommit);
        return e;
    };
    auto commit = [&](std::size_t upTo) -> Status {
        if (auto e = db.exec("COMMIT")) return fail(*e);
        committedUpTo(batch, written, upTo);
        written = upTo;
        return {};
    };
    auto begun = std::chrono::steady_clock::now();
    if (auto e = db.exec("BEGIN IMMEDIATE")) return fail(*e);
    for (std::size_t i = written; i < batch.size(); ++i) {
        if ((i & 255) == 255 && std::chrono::steady_clock::now() - begun > kMaxTransaction) {
            // Long batches commit in slices, so a crash loses at most one slice.
            if (auto e = updateTotals()) return fail(*e);
            if (auto e = commit(i)) return e;
            if (auto e = db.exec("BEGIN IMMEDIATE")) return fail(*e);
            begun = std::chrono::steady_clock::now();
        }
        if (auto e = writeItem(batch[i])) return fail(*e);
    }
    // Keyframes made from earlier batches; this batch's output reaches the screen model once
    // it is committed (committedUpTo).
    if (auto e = storeKeyframes()) return fail(*e);
    if (auto e = updateTotals()) return fail(*e);
    if (auto e = commit(batch.size())) return e;
    keyframes->kick();
    if (end) {
        // The screen model may still be catching up after a flood: give it a moment, then
        // store what it has (seeking past the last keyframe replays from there, only slower),
        // and the end.
        keyframes->stop(1000);
        if (auto e = db.exec("BEGIN IMMEDIATE")) return fail(*e);
        if (auto e = storeKeyframes()) return fail(*e);
        endSession.bind(1, sid)
            .bindText(2, end->interrupted ? "interrupted" : "ended")
            .bind(3, realtimeNs())
            .bind(4, static_cast<std::int64_t>(end->exitStatus));
        if (auto e = endSession.run("record session end")) return fail(*e);
        if (auto e = commit(batch.size())) return e;
    }
    std::lock_guard lock(mutex);
    ++stats.transactions;
    return {};
}

Status RecordingWriter::Impl::updateTotals()
{
    return updateSession.bind(1, sid)
        .bind(2, static_cast<std::int64_t>(at.storedEvents))
        .bind(3, static_cast<std::int64_t>(at.storedOutput))
        .bind(4, static_cast<std::int64_t>(at.storedBytes))
        .bind(5, at.lastT)
        .run("update session totals");
}

// batch[from, to) is in the database: the screen model gets its output (only now: a rolled-back
// chunk fed to it would be fed again), and the progress becomes the one to come back to.
void RecordingWriter::Impl::committedUpTo(std::vector<Item>& batch, std::size_t from,
                                          std::size_t to)
{
    for (std::size_t i = from; i < to; ++i) {
        Item& item = batch[i];
        if (item.kind == EventKind::Output) {
            keyframes->output(item.tNs, item.seq, std::move(item.bytes));
        } else if (item.kind == EventKind::Resize) {
            unsigned rows = item.payload.value("rows", 0u), cols = item.payload.value("cols", 0u);
            if (rows > 0 && cols > 0) keyframes->resize(item.tNs, item.seq, rows, cols);
        }
    }
    atCommit = at;
    if (text) stripperAtCommit = text->stripper();
    std::lock_guard lock(mutex);
    stats.eventsWritten = at.storedEvents;
    stats.keyframes += keyframesToStore.size();
    keyframesToStore.clear();
}

Status RecordingWriter::Impl::writeItem(Item& item)
{
    // Times never go backwards in the stream, whichever thread stamped them.
    item.tNs = std::max(item.tNs, at.lastT);
    at.lastT = item.tNs;
    item.seq = at.nextSeq++;
    const std::int64_t t = item.tNs;
    insertEvent.bind(1, sid).bind(2, item.seq).bind(3, t).bind(4, static_cast<int>(item.kind));
    std::size_t size = 0;
    if (isTerminalBytes(item.kind)) {
        EncodedBlob blob = encodeBlob(item.bytes);
        size = blob.bytes.size();
        insertEvent.bind(5, static_cast<int>(blob.encoding)).bindBlob(6, blob.bytes, true);
        if (auto e = insertEvent.run("store terminal bytes")) return e;
    } else if (item.command) {
        // Two rows: what was tried, then the whole record with what became of it.
        nlohmann::json decided = toJson(*item.command);
        nlohmann::json tried = decided;
        tried.erase("decision");
        tried.erase("rule");
        const std::string request = jsonText(tried), decision = jsonText(decided);
        size = request.size() + decision.size();
        insertEvent.bind(5, 0).bindText(6, request, true);
        if (auto e = insertEvent.run("store exec request")) return e;
        insertEvent.bind(1, sid)
            .bind(2, at.nextSeq++)
            .bind(3, t)
            .bind(4, static_cast<int>(EventKind::ExecDecision))
            .bind(5, 0)
            .bindText(6, decision, true);
        if (auto e = insertEvent.run("store exec decision")) return e;
        ++at.storedEvents;
    } else {
        std::string json = jsonText(item.payload);
        size = json.size();
        insertEvent.bind(5, 0).bindText(6, json, true);
        if (auto e = insertEvent.run("store event")) return e;
    }
    ++at.storedEvents;
    at.storedBytes += size;
    if (item.kind == EventKind::Output) {
        at.storedOutput += item.bytes.size();
        if (!text) {
            auto indexer = TextIndexer::prepare(db, TextIndexOp::Add);
            if (!indexer) return indexer.error();
            text.emplace(std::move(indexer.value()));
        }
        if (auto e = text->chunk(db.lastInsertId(), item.bytes)) return e;
    }
    return {};
}

// Keyframes the worker has made since the last commit, kept until one stores them.
Status RecordingWriter::Impl::storeKeyframes()
{
    for (Keyframe& k : keyframes->takeReady())
        keyframesToStore.push_back(std::move(k));
    if (!keyframesToStore.empty() && !insertKeyframe) {
        auto prepared = KeyframeBuilder::prepareInsert(db);
        if (!prepared) return prepared.error();
        insertKeyframe.emplace(std::move(prepared.value()));
    }
    for (const Keyframe& k : keyframesToStore)
        if (auto e = KeyframeBuilder::store(*insertKeyframe, sid, k)) return e;
    return {};
}

} // namespace sb
