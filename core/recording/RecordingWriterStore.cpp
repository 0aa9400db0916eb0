#include "recording/RecordingCodec.h"
#include "recording/RecordingWriterInternal.h"

namespace sb {
namespace {

// A transaction open longer than this is committed and a new one begun.
constexpr auto kMaxTransaction = std::chrono::milliseconds(100);
// A batch that could not be stored for a reason that may pass is tried again this often…
constexpr auto kRetryInterval = std::chrono::milliseconds(250);
// …and for this long once the session ends (an end waits that long at most for the database).
constexpr auto kFinalWait = std::chrono::seconds(15);

} // namespace

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
        std::vector<std::function<void()>> due;
        {
            std::lock_guard lock(mutex);
            committedGen = gen;
            stopping = stopping && pending.empty();
            due = dueCallbacks(stopping); // the last round leaves none waiting
        }
        committed.notify_all();
        for (auto& done : due)
            done();
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
    std::vector<std::function<void()>> due;
    {
        std::lock_guard lock(mutex);
        stalled = why != nullptr;
        if (stalled) ++stats.stalls;
        if (stalled) due = dueCallbacks(true);
    }
    committed.notify_all(); // flush() does not wait for a stalled writer, nor whenCommitted()
    for (auto& done : due)
        done();
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
