// The process behind a socket of the sandbox, found from outside it: the socket's inode in the
// sandbox's network namespace (/proc/INIT/net/tcp, tcp6, udp, udp6), the sandbox process that
// holds it (/proc/PID/fd), and its parents up to the session's command. Read by the supervisor,
// which can read the sandbox's processes (its own user's, or the user it made them run as).
#pragma once

#include "policy/ProcessChain.h"

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <sys/socket.h>
#include <sys/types.h>

namespace sb {

class SocketOwners {
  public:
    explicit SocketOwners(pid_t initPid) : m_initPid(initPid) {}

    // The chain of the process whose socket has `local` as its own address and `remote` as its
    // peer's (as that socket sees them: a redirected connection's remote is where it was going),
    // TCP or UDP. Empty when no process holds such a socket (any more).
    ProcessChain owner(const sockaddr_storage& local, const sockaddr_storage& remote, bool udp);

  private:
    std::optional<unsigned long> inodeOf(const sockaddr_storage& local,
                                         const sockaddr_storage& remote, bool udp) const;
    void rescan(); // every socket of every sandbox process, by inode
    ProcessChain chainOf(pid_t hostPid) const;

    pid_t m_initPid;
    std::map<unsigned long, pid_t> m_holders; // socket inode → host pid, from the last scan
};

} // namespace sb
