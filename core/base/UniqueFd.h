// A file descriptor with one owner: closed when its owner goes (or resets it), unless released
// first. The one fd-owning type of the core; a raw int is a borrowed descriptor.
#pragma once

#include "base/Error.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace sb {

class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) noexcept : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept
    {
        if (this != &other) reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const noexcept { return m_fd; }
    bool valid() const noexcept { return m_fd >= 0; }
    explicit operator bool() const noexcept { return valid(); }
    // Hands the descriptor over: no longer closed here.
    int release() noexcept { return std::exchange(m_fd, -1); }
    // Closes what it holds, then holds `fd`.
    void reset(int fd = -1) noexcept
    {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = fd;
    }

  private:
    int m_fd = -1;
};

// Both ends of a pipe, each owned.
struct Pipe {
    UniqueFd read, write;
};

inline Result<Pipe> makePipe(int flags = O_CLOEXEC)
{
    int fds[2];
    if (::pipe2(fds, flags) != 0) return sysError("pipe");
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Both ends of a connected pair of Unix sockets, each owned.
struct SocketPair {
    UniqueFd one, other;
};

inline Result<SocketPair> makeSocketPair(int type)
{
    int fds[2];
    if (::socketpair(AF_UNIX, type, 0, fds) != 0) return sysError("socketpair");
    return SocketPair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

} // namespace sb
