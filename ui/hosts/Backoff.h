// How long to wait before dialing a host again after its connection failed or dropped: twice as
// long after each failure in a row, from `first` up to `max`, and from the start again once a
// connection succeeds. So a host that is down is not dialed in a tight loop, and one that comes
// back is found within `max`.
#pragma once

namespace sbui {

class Backoff {
  public:
    explicit Backoff(int firstMs = 1000, int maxMs = 60000) : m_first(firstMs), m_max(maxMs) {}
    // The wait before the next attempt, counting one more failure.
    int next();
    // A connection succeeded.
    void reset() { m_failures = 0; }
    int failures() const { return m_failures; }

  private:
    int m_first;
    int m_max;
    int m_failures = 0;
};

} // namespace sbui
