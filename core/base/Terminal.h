// The caller's terminal, as the supervisor uses it: its window size, raw mode while a session
// runs, and the monotonic clock the loop measures deadlines with.
#pragma once

#include <optional>
#include <termios.h>
#include <utility>

namespace sb {

// Rows and columns of a terminal, if `fd` is one.
std::optional<std::pair<unsigned short, unsigned short>> windowSize(int fd);
// Gives the pty `master` the window size of the terminal `from`.
void copyWindowSize(int from, int master);

// Puts a terminal in raw mode for the object's lifetime (keys pass through, Ctrl-C included).
class RawMode {
  public:
    explicit RawMode(int fd);
    ~RawMode();
    RawMode(const RawMode&) = delete;
    RawMode& operator=(const RawMode&) = delete;

  private:
    int m_fd;
    bool m_active = false;
    termios m_saved{};
};

long long monotonicMs();

} // namespace sb
