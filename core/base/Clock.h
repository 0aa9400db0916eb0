// Injectable time (after KeePassXC's Clock/MockClock): code that waits or times out asks a Clock,
// so its tests move time forward instead of sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace sb {

class Clock {
  public:
    virtual ~Clock() = default;
    // Wall-clock time, for timestamps people read (a prompt's deadline, a recording).
    virtual std::int64_t unixMs() const = 0;
    // For deadlines and latencies: never jumps when the wall clock is set.
    virtual std::int64_t monotonicMs() const = 0;

    static Clock& system();
};

class SystemClock final : public Clock {
  public:
    std::int64_t unixMs() const override
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
    std::int64_t monotonicMs() const override
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
};

inline Clock& Clock::system()
{
    static SystemClock clock;
    return clock;
}

// Time that moves only when a test says so. Safe to read from several threads.
class MockClock final : public Clock {
  public:
    explicit MockClock(std::int64_t unixStartMs = 1'700'000'000'000) : m_unix(unixStartMs) {}

    std::int64_t unixMs() const override { return m_unix.load(); }
    std::int64_t monotonicMs() const override { return m_mono.load(); }

    void advance(std::int64_t ms)
    {
        m_unix += ms;
        m_mono += ms;
    }
    // Only the wall clock moves, as when the user or NTP sets it.
    void setUnixMs(std::int64_t ms) { m_unix = ms; }

  private:
    std::atomic<std::int64_t> m_unix;
    std::atomic<std::int64_t> m_mono{1'000'000};
};

} // namespace sb
