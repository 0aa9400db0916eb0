// The supervisor's side of the command's terminal: the pty master it holds, the caller's
// terminal in raw mode while the session runs, and the byte relay between the two.
#pragma once

#include "Error.h"

#include <functional>
#include <optional>
#include <utility>
#include <termios.h>

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

struct RelayHooks {
    // Called when a forwarded signal arrives (SIGINT/SIGTERM/SIGHUP/SIGQUIT without a tty).
    std::function<void(int)> onSignal;
    // Called when the window size of the caller's terminal changed.
    std::function<void()> onResize;
};

// Relays until the process behind `pidFd` exits (then drains the pty) or `deadlineMs`
// (CLOCK_MONOTONIC, 0 = none) passes. Returns false when the deadline ended it.
bool relay(int inFd, int outFd, int masterFd, int pidFd, long long deadlineMs,
           const RelayHooks& hooks);

long long monotonicMs();

} // namespace sb
