#include "TerminalRelay.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

namespace sb {
namespace {

bool writeAll(int fd, const char* data, size_t size)
{
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, 100);
            continue;
        }
        if (n <= 0)
            return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// Reads what the pty still holds after the command is gone.
void drain(int masterFd, int outFd)
{
    int flags = ::fcntl(masterFd, F_GETFL);
    ::fcntl(masterFd, F_SETFL, flags | O_NONBLOCK);
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(masterFd, buf, sizeof buf);
        if (n > 0 && writeAll(outFd, buf, static_cast<size_t>(n)))
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        break; // EAGAIN: empty; EIO: no slave left
    }
}

} // namespace

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
    if (master >= 0 && ::ioctl(from, TIOCGWINSZ, &ws) == 0)
        ::ioctl(master, TIOCSWINSZ, &ws);
}

RawMode::RawMode(int fd) : m_fd(fd)
{
    if (!::isatty(fd))
        return;
    if (::tcgetattr(fd, &m_saved) != 0)
        return;
    termios raw = m_saved;
    ::cfmakeraw(&raw);
    m_active = ::tcsetattr(fd, TCSADRAIN, &raw) == 0;
}

RawMode::~RawMode()
{
    if (m_active)
        ::tcsetattr(m_fd, TCSADRAIN, &m_saved);
}

bool relay(int inFd, int outFd, int masterFd, int pidFd, long long deadlineMs,
           const RelayHooks& hooks)
{
    sigset_t watched, previous;
    sigemptyset(&watched);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH})
        sigaddset(&watched, sig);
    ::sigprocmask(SIG_BLOCK, &watched, &previous);
    int sigFd = ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);

    bool inOpen = inFd >= 0 && masterFd >= 0;
    bool masterOpen = masterFd >= 0;
    bool finished = true;
    char buf[65536];
    for (;;) {
        pollfd fds[4] = {{pidFd, POLLIN, 0},
                         {sigFd, POLLIN, 0},
                         {masterOpen ? masterFd : -1, POLLIN, 0},
                         {inOpen ? inFd : -1, POLLIN, 0}};
        int timeout = -1;
        if (deadlineMs > 0) {
            long long left = deadlineMs - monotonicMs();
            if (left <= 0) {
                finished = false;
                break;
            }
            timeout = static_cast<int>(std::min(left, 1000LL * 60 * 60));
        }
        if (::poll(fds, 4, timeout) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[1].revents & POLLIN) {
            signalfd_siginfo info{};
            while (::read(sigFd, &info, sizeof info) == sizeof info) {
                if (info.ssi_signo == SIGWINCH) {
                    if (hooks.onResize)
                        hooks.onResize();
                } else if (hooks.onSignal) {
                    hooks.onSignal(static_cast<int>(info.ssi_signo));
                }
            }
        }
        if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = ::read(masterFd, buf, sizeof buf);
            if (n > 0)
                writeAll(outFd, buf, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR)
                masterOpen = false; // EIO: every slave closed; wait for init alone
        }
        if (fds[3].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = ::read(inFd, buf, sizeof buf);
            if (n > 0)
                writeAll(masterFd, buf, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR)
                inOpen = false; // end of input: the command keeps its terminal
        }
        if (fds[0].revents & POLLIN) {
            if (masterFd >= 0)
                drain(masterFd, outFd);
            break;
        }
    }
    if (sigFd >= 0)
        ::close(sigFd);
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    return finished;
}

} // namespace sb
