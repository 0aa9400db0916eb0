#include "recording/RecordingKeyframeWorker.h"

#include <chrono>
#include <spdlog/spdlog.h>
#include <system_error>

namespace sb {

KeyframeWorker::KeyframeWorker(unsigned rows, unsigned cols, std::size_t maxBacklogBytes)
    : m_maxBacklog(maxBacklogBytes), m_rows(rows), m_cols(cols)
{
}

void KeyframeWorker::startLocked()
{
    // On the first work, not at construction: a session that prints nothing (or has not yet)
    // costs neither the thread nor libvterm's screen.
    if (m_thread.joinable()) return;
    try {
        m_thread = std::thread([this] { run(); });
    } catch (const std::system_error& e) {
        // Keyframes only make seeking in a replay fast: the recording goes on without them.
        spdlog::warn("no keyframes for this recording: no thread to make them: {}", e.what());
        giveUpLocked();
    }
}

KeyframeWorker::~KeyframeWorker()
{
    stop(0);
}

void KeyframeWorker::output(std::int64_t tNs, std::int64_t seq, std::string bytes)
{
    std::lock_guard lock(m_mutex);
    if (m_gaveUp || m_stop) return;
    if (m_backlog + bytes.size() > m_maxBacklog) return giveUpLocked();
    m_backlog += bytes.size();
    m_work.push_back(Work{tNs, seq, 0, 0, std::move(bytes)});
    startLocked();
}

void KeyframeWorker::resize(std::int64_t tNs, std::int64_t seq, unsigned rows, unsigned cols)
{
    std::lock_guard lock(m_mutex);
    if (m_gaveUp || m_stop) return;
    m_work.push_back(Work{tNs, seq, rows, cols, {}});
    startLocked();
}

void KeyframeWorker::giveUpLocked()
{
    m_gaveUp = true;
    m_work.clear();
    m_backlog = 0;
    m_idle.notify_all(); // stop() may be waiting for the work to drain
}

void KeyframeWorker::kick()
{
    m_wake.notify_one();
}

std::vector<Keyframe> KeyframeWorker::takeReady()
{
    std::lock_guard lock(m_mutex);
    return std::exchange(m_ready, {});
}

bool KeyframeWorker::gaveUp() const
{
    std::lock_guard lock(m_mutex);
    return m_gaveUp;
}

void KeyframeWorker::stop(int waitMs)
{
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait_for(lock, std::chrono::milliseconds(waitMs),
                        [&] { return m_work.empty() && !m_busy; });
        m_stop = true;
        m_work.clear();
    }
    m_abandon = true;
    m_wake.notify_one();
    if (m_thread.joinable()) m_thread.join();
}

void KeyframeWorker::run()
{
    if (auto e = ScreenModel::available()) {
        // The output is still recorded whole; seeking needs libvterm too and says so then.
        spdlog::warn("recording without screen keyframes: {}", e->describe());
        std::lock_guard lock(m_mutex);
        return giveUpLocked();
    }
    KeyframeBuilder builder(m_rows, m_cols);
    std::deque<Work> batch;
    while (true) {
        {
            std::unique_lock lock(m_mutex);
            m_busy = false;
            m_idle.notify_all();
            m_wake.wait(lock, [&] { return m_stop || !m_work.empty(); });
            if (m_stop) return;
            batch.swap(m_work);
            m_busy = true;
        }
        std::size_t done = 0;
        for (Work& work : batch) {
            if (m_abandon.load(std::memory_order_relaxed)) return;
            if (work.rows > 0) {
                builder.resize(work.rows, work.cols);
            } else if (builder.output(work.tNs, work.bytes)) {
                Keyframe k = builder.take(work.tNs, work.seq);
                std::lock_guard lock(m_mutex);
                m_ready.push_back(std::move(k));
            }
            done += work.bytes.size();
        }
        batch.clear();
        std::lock_guard lock(m_mutex);
        m_backlog -= std::min(m_backlog, done);
    }
}

} // namespace sb
