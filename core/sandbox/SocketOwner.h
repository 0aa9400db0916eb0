// The process behind a socket of the sandbox, found from outside it: the socket's inode in the
// sandbox's network namespace (asked of the kernel for that one socket through a sock_diag
// netlink socket init made there, or read from /proc/INIT/net/tcp… without one), the sandbox
// process that holds it (/proc/PID/fd), and its parents up to the session's command. Read by the
// supervisor, which can read the sandbox's processes (its own user's, or the user it made them
// run as). Reading /proc/net/tcp walks the kernel's whole connection table (1.6 ms a read here);
// the sock_diag lookup takes a few microseconds (docs/benchmarks-log.md).
#pragma once

#include "policy/ProcessChain.h"

#include <array>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <sys/socket.h>
#include <sys/types.h>

namespace sb {

// The process `hostPid` (the supervisor's numbering) and its parents up to the session's command
// (the child of `initPid`, the sandbox's init), from /proc; empty when it is gone or not in that
// sandbox.
ProcessChain readProcessChain(pid_t hostPid, pid_t initPid);

class SocketOwners {
  public:
    // `diagSocket`: a NETLINK_SOCK_DIAG socket of the sandbox's network namespace, owned from
    // here on; -1: read /proc/INIT/net instead.
    SocketOwners(pid_t initPid, int diagSocket);
    ~SocketOwners();
    SocketOwners(const SocketOwners&) = delete;
    SocketOwners& operator=(const SocketOwners&) = delete;

    // The chain of the process whose socket has `local` as its own address and `remote` as its
    // peer's (as that socket sees them: a redirected connection's remote is where it was going),
    // TCP or UDP. Empty when no process holds such a socket (any more).
    ProcessChain owner(const sockaddr_storage& local, const sockaddr_storage& remote, bool udp);
    // The process `hostPid` (the supervisor's numbering) and its parents up to the session's
    // command; empty when it is gone.
    ProcessChain chainOf(pid_t hostPid) const;

  private:
    std::optional<unsigned long> inodeOf(const sockaddr_storage& local,
                                         const sockaddr_storage& remote, bool udp) const;
    std::optional<unsigned long> askKernel(const sockaddr_storage& local,
                                           const sockaddr_storage& remote, bool udp) const;
    std::optional<pid_t> holderOf(unsigned long inode);
    void rescan(); // every socket of every sandbox process, by inode

    pid_t m_initPid;
    int m_diag = -1;
    std::map<unsigned long, pid_t> m_holders; // socket inode → host pid, from the last scan
    std::deque<pid_t> m_recent; // the latest holders found, looked at first for a new socket
};

} // namespace sb
