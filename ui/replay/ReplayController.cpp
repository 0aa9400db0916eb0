#include "ReplayController.h"

#include "recording/ScreenModel.h"
#include "sessions/SessionHistory.h"
#include "terminal/TerminalWidget.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sbui {
namespace {

// Playback redraws at about the display's rate.
constexpr int kTickMs = 16;
// A stalled event loop does not make the replay leap: at most this much wall time per tick.
constexpr qint64 kMaxTickNs = 250'000'000;
// How much is read from the database at once: enough for many ticks at 16x, little memory.
constexpr std::size_t kChunkBytes = 1 << 20;
constexpr int kChunkEvents = 2048;

QString describe(const sb::Error& error)
{
    return QString::fromStdString(error.describe());
}

} // namespace

ReplayController::ReplayController(TerminalWidget* terminal, QObject* parent)
    : QObject(parent), m_terminal(terminal)
{
    m_terminal->setReadOnly(true);
    m_tick.setInterval(kTickMs);
    m_tick.setTimerType(Qt::PreciseTimer);
    connect(&m_tick, &QTimer::timeout, this, &ReplayController::onTick);
}

ReplayController::~ReplayController() = default;

bool ReplayController::open(const QString& sessionId, QString* error, const QString& file)
{
    auto failWith = [&](const sb::Error& e) {
        if (error) *error = describe(e);
        return false;
    };
    auto store = sb::RecordingStore::open(file.toStdString());
    if (!store) return failWith(store.error());
    const std::string id = sessionId.toStdString();
    auto record = store->session(id);
    if (!record) return failWith(record.error());
    std::vector<Event> events;
    const qint64 startedMs = record->startedNs / 1'000'000;
    if (auto e = store->forEachStructuredEvent(id, [&](const sb::RecordedEvent& event) {
            if (auto activity = activityEvent(event, startedMs))
                events.push_back(Event{event.tNs, std::move(*activity)});
            return true;
        }))
        return failWith(*e);

    close();
    m_store = std::make_unique<sb::RecordingStore>(std::move(store.value()));
    m_id = sessionId;
    m_idUtf8 = id;
    m_session = std::move(record.value());
    m_events = std::move(events);
    m_durationNs =
        std::max<qint64>(m_session.lastEventNs, m_events.empty() ? 0 : m_events.back().tNs);
    seek(0);
    Q_EMIT positionChanged(m_positionNs);
    return true;
}

void ReplayController::close()
{
    pause();
    m_store.reset();
    m_id.clear();
    m_idUtf8.clear();
    m_session = {};
    m_events.clear();
    m_ahead.clear();
    m_durationNs = 0;
    m_positionNs = 0;
    m_idleNs = 0;
    m_loadedThroughNs = 0;
    m_exhausted = false;
    m_terminal->reset();
}

int ReplayController::eventIndexAt(qint64 ns) const
{
    auto after = std::upper_bound(m_events.begin(), m_events.end(), ns,
                                  [](qint64 t, const Event& e) { return t < e.tNs; });
    return static_cast<int>(after - m_events.begin()) - 1;
}

void ReplayController::seek(qint64 ns)
{
    if (!m_store) return;
    ns = std::clamp<qint64>(ns, 0, m_durationNs);
    sb::ScreenModel screen(m_session.rows, m_session.cols);
    if (auto e = m_store->screenAt(m_idUtf8, ns, screen)) {
        fail(*e);
        return;
    }
    const std::string snapshot = screen.snapshot();
    m_terminal->reset();
    m_terminal->resizeTerminal(static_cast<int>(screen.rows()), static_cast<int>(screen.cols()));
    m_terminal->feed(QByteArray(snapshot.data(), static_cast<qsizetype>(snapshot.size())));
    m_ahead.clear();
    m_loadedThroughNs = ns;
    m_exhausted = false;
    m_idleNs = 0;
    setPosition(ns);
}

void ReplayController::play()
{
    if (!m_store || m_playing) return;
    if (m_positionNs >= m_durationNs) seek(0);
    m_playing = true;
    m_wall.start();
    if (m_autoAdvance) m_tick.start();
    Q_EMIT playingChanged(true);
}

void ReplayController::pause()
{
    m_tick.stop();
    if (!m_playing) return;
    m_playing = false;
    Q_EMIT playingChanged(false);
}

void ReplayController::setSpeed(double speed)
{
    if (!std::isfinite(speed)) return;
    m_speed = std::clamp(speed, kMinSpeed, kMaxSpeed);
}

void ReplayController::setAutoAdvance(bool on)
{
    m_autoAdvance = on;
    if (!on)
        m_tick.stop();
    else if (m_playing)
        m_tick.start();
}

void ReplayController::step(qint64 wallMs)
{
    if (!m_playing || wallMs <= 0) return;
    advance(static_cast<qint64>(std::llround(static_cast<double>(wallMs) * 1e6 * m_speed)));
}

void ReplayController::onTick()
{
    const qint64 wallNs = std::min(m_wall.nsecsElapsed(), kMaxTickNs);
    m_wall.restart();
    if (m_playing)
        advance(static_cast<qint64>(std::llround(static_cast<double>(wallNs) * m_speed)));
}

// Moves the position `budget` ns of recording time ahead, feeding the output passed on the way;
// a wait for the next output counts at most what is left of kMaxPauseNs (all of it in real time).
void ReplayController::advance(qint64 budget)
{
    qint64 position = m_positionNs;
    QByteArray output;
    while (budget > 0) {
        while (m_ahead.empty() && !m_exhausted)
            if (!loadMore()) {
                flushOutput(output);
                setPosition(position);
                return;
            }
        const qint64 target = m_ahead.empty() ? m_durationNs : m_ahead.front().tNs;
        if (target <= position) {
            if (m_ahead.empty()) break;
            applyThrough(position, output);
            continue;
        }
        const qint64 need =
            m_realTime ? target - position
                       : std::min(target - position, std::max<qint64>(0, kMaxPauseNs - m_idleNs));
        if (budget < need) {
            position += budget;
            m_idleNs += budget;
            break;
        }
        budget -= need;
        position = target;
        m_idleNs = 0;
        applyThrough(position, output);
    }
    flushOutput(output);
    setPosition(position);
    if (m_positionNs >= m_durationNs && m_ahead.empty() && m_exhausted) {
        refreshRunningSession();
        if (m_positionNs >= m_durationNs) {
            pause();
            Q_EMIT finished();
        }
    }
}

// Reads the next chunk of output after m_loadedThroughNs. A chunk ends between two distinct
// times, so the next one, which starts after the last time read, misses nothing.
bool ReplayController::loadMore()
{
    std::size_t bytes = 0;
    int count = 0;
    qint64 lastT = -1;
    bool full = false;
    auto e = m_store->forEachEvent(
        m_idUtf8, m_loadedThroughNs + 1, std::numeric_limits<qint64>::max(),
        [&](const sb::RecordedEvent& event) {
            if ((bytes >= kChunkBytes || count >= kChunkEvents) && event.tNs > lastT) {
                full = true;
                return false;
            }
            lastT = event.tNs;
            ++count;
            if (event.kind == sb::EventKind::Output) {
                bytes += event.data.size();
                m_ahead.push_back(Chunk{
                    event.tNs, false, 0, 0,
                    QByteArray(event.data.data(), static_cast<qsizetype>(event.data.size()))});
            } else if (event.kind == sb::EventKind::Resize) {
                auto size = nlohmann::json::parse(event.data, nullptr, false);
                if (size.is_object())
                    m_ahead.push_back(
                        Chunk{event.tNs, true, size.value("rows", 0u), size.value("cols", 0u), {}});
            }
            return true;
        });
    if (e) {
        fail(*e);
        return false;
    }
    if (lastT >= 0) {
        m_loadedThroughNs = lastT;
        m_durationNs = std::max(m_durationNs, lastT);
    }
    m_exhausted = !full;
    return true;
}

void ReplayController::applyThrough(qint64 tNs, QByteArray& output)
{
    while (!m_ahead.empty() && m_ahead.front().tNs <= tNs) {
        Chunk& chunk = m_ahead.front();
        if (!chunk.resize) {
            output.append(chunk.bytes);
        } else if (chunk.rows > 0 && chunk.cols > 0) {
            // Output before the resize was meant for the old size.
            flushOutput(output);
            m_terminal->resizeTerminal(static_cast<int>(chunk.rows), static_cast<int>(chunk.cols));
        }
        m_ahead.pop_front();
    }
}

void ReplayController::flushOutput(QByteArray& output)
{
    if (output.isEmpty()) return;
    m_terminal->feed(output);
    output.clear();
}

// A session still recording has grown since it was opened: play on into what came since.
void ReplayController::refreshRunningSession()
{
    if (m_session.state != sb::RecordState::Running) return;
    auto record = m_store->session(m_idUtf8);
    if (!record) return;
    m_session = std::move(record.value());
    if (m_session.lastEventNs > m_durationNs) {
        m_durationNs = m_session.lastEventNs;
        m_exhausted = false;
    }
}

void ReplayController::setPosition(qint64 ns)
{
    if (ns == m_positionNs) return;
    m_positionNs = ns;
    Q_EMIT positionChanged(ns);
}

void ReplayController::fail(const sb::Error& error)
{
    pause();
    Q_EMIT failed(describe(error));
}

std::vector<sb::SearchHit> ReplayController::search(const QString& text, QString* error)
{
    if (!m_store) return {};
    auto hits = m_store->search(text.toStdString(), m_idUtf8, 500);
    if (!hits) {
        if (error) *error = describe(hits.error());
        return {};
    }
    std::vector<sb::SearchHit> out = std::move(hits.value());
    std::sort(out.begin(), out.end(),
              [](const sb::SearchHit& a, const sb::SearchHit& b) { return a.tNs < b.tNs; });
    return out;
}

bool ReplayController::exportTo(sb::ExportFormat format, const QString& path, QString* error)
{
    if (!m_store) {
        if (error) *error = tr("No recording is open.");
        return false;
    }
    if (auto e = sb::exportSessionToFile(*m_store, m_idUtf8, format, path.toStdString())) {
        if (error) *error = describe(*e);
        return false;
    }
    return true;
}

} // namespace sbui
