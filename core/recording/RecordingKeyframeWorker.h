// Keeps the writer's screen model off its commit path. libvterm costs far more per byte than
// compressing and storing (every scrolled line moves the whole screen), so a flood would
// otherwise slow commits and widen what a crash can lose. This thread feeds the model and
// hands finished keyframes back to the writer thread, which stores them with its next batch.
// If it falls more than `maxBacklogBytes` behind it stops: later seeks replay from the last
// keyframe (slower, still correct).
#pragma once

#include "recording/RecordingKeyframes.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sb {

class KeyframeWorker {
  public:
    KeyframeWorker(unsigned rows, unsigned cols, std::size_t maxBacklogBytes = 64u << 20);
    ~KeyframeWorker();
    KeyframeWorker(const KeyframeWorker&) = delete;
    KeyframeWorker& operator=(const KeyframeWorker&) = delete;

    void output(std::int64_t tNs, std::int64_t seq, std::string bytes);
    void resize(std::int64_t tNs, std::int64_t seq, unsigned rows, unsigned cols);
    // Wakes the thread for what output()/resize() queued: once per batch, not per chunk.
    void kick();
    std::vector<Keyframe> takeReady();
    // Waits up to `waitMs` for the backlog, then stops (dropping what is left).
    void stop(int waitMs);
    bool gaveUp() const;

  private:
    struct Work {
        std::int64_t tNs, seq;
        unsigned rows, cols; // non-zero: a resize
        std::string bytes;
    };
    void startLocked();
    // No more keyframes (too far behind, or no libvterm): drops what waits. With m_mutex held.
    void giveUpLocked();
    void run();

    mutable std::mutex m_mutex;
    std::condition_variable m_wake, m_idle;
    std::deque<Work> m_work;
    std::size_t m_backlog = 0, m_maxBacklog;
    std::vector<Keyframe> m_ready;
    bool m_stop = false, m_gaveUp = false, m_busy = false;
    std::atomic<bool> m_abandon{false}; // checked between chunks, without the lock
    unsigned m_rows, m_cols;
    std::thread m_thread;
};

} // namespace sb
