#include "base/Terminal.h"

#include <cerrno>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

namespace sb {

long long monotonicMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::optional<std::pair<unsigned short, unsigned short>> windowSize(int fd)
{
    winsize ws{};
    if (!::isatty(fd) || ::ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
        return std::nullopt;
    return std::pair(ws.ws_row, ws.ws_col);
}

void copyWindowSize(int from, int master)
{
    winsize ws{};
    if (master >= 0 && ::ioctl(from, TIOCGWINSZ, &ws) == 0) ::ioctl(master, TIOCSWINSZ, &ws);
}

RawMode::RawMode(int fd) : m_fd(fd)
{
    if (!::isatty(fd)) return;
    if (::tcgetattr(fd, &m_saved) != 0) return;
    termios raw = m_saved;
    ::cfmakeraw(&raw);
    m_active = ::tcsetattr(fd, TCSADRAIN, &raw) == 0;
}

RawMode::~RawMode()
{
    if (m_active) ::tcsetattr(m_fd, TCSADRAIN, &m_saved);
}

} // namespace sb
