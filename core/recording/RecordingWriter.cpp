#include "recording/RecordingWriter.h"

#include "base/Session.h"
#include "base/SignalFreeThread.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriterInternal.h"

#include <time.h>

namespace sb {
namespace {

std::int64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// About fifteen short sessions (7 frames each) of WAL: a recovery scan well under 1 ms.
constexpr std::uintmax_t kCheckpointWalBytes = 512u << 10;

} // namespace

std::int64_t RecordingWriter::Impl::realtimeNs()
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::string RecordingWriter::Impl::jsonText(const nlohmann::json& j)
{
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

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
    impl->pending.reserve(RecordingWriter::Impl::kBatchItems);
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
    auto thread = startThread("the recording's thread", [raw] { raw->run(); });
    if (!thread) return thread.error();
    (*impl)->thread = std::move(thread.value());
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
    auto thread = startThread("the recording's thread", [raw] {
        Status failed = raw->open();
        std::vector<std::function<void()>> due;
        {
            std::lock_guard lock(raw->mutex);
            raw->opening = false;
            if (failed) {
                // Nothing will be stored: later events are refused, flush() does not wait.
                raw->openError = failed;
                raw->stop = true;
                raw->pending.clear();
                due = raw->dueCallbacks(true);
            }
        }
        raw->openDone.notify_all();
        raw->committed.notify_all();
        for (auto& done : due)
            done();
        if (!failed) return raw->run();
        if (raw->limits.onOpenFailed) raw->limits.onOpenFailed(*failed);
    });
    if (!thread) return thread.error();
    (*impl)->thread = std::move(thread.value());
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
        std::string bytes =
            payload.is_string() ? payload.get<std::string>() : Impl::jsonText(payload);
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
    m_impl->committed.wait(lock, [&] { return m_impl->settled(target); });
}

void RecordingWriter::whenCommitted(std::function<void()> done)
{
    {
        std::lock_guard lock(m_impl->mutex);
        const std::uint64_t target = m_impl->acceptedGen;
        if (!m_impl->settled(target) && !m_impl->stop) {
            m_impl->onCommit.emplace_back(target, std::move(done));
            m_impl->flushRequested = true;
            m_impl->wake.notify_one();
            return;
        }
    }
    done();
}

std::vector<std::function<void()>> RecordingWriter::Impl::dueCallbacks(bool all)
{
    std::vector<std::function<void()>> due;
    std::erase_if(onCommit, [&](auto& waiting) {
        if (!all && waiting.first > committedGen) return false;
        due.push_back(std::move(waiting.second));
        return true;
    });
    return due;
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

} // namespace sb
