#include "control/PeerCheck.h"

#include "base/UniqueFd.h"

#include <fstream>
#include <sstream>
#include <sys/syscall.h>
#include <unistd.h>

namespace sb {
namespace {

constexpr int kSoPeerPidFd = 77; // SO_PEERPIDFD: Linux 6.5; Debian 12's headers predate it

Error refused(pid_t pid, const std::string& why)
{
    return Error{ErrorCode::InvalidInput, 0,
                 "connection refused: the peer (pid " + std::to_string(pid) + ") " + why};
}

} // namespace

Result<int> pidNamespaceDepth(std::string_view procPid)
{
    const std::string file = "/proc/" + std::string(procPid) + "/status";
    std::ifstream in(file);
    if (!in) return sysError("read " + file);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("NSpid:")) continue;
        std::istringstream pids(line.substr(6));
        int depth = 0;
        for (long pid = 0; pids >> pid;)
            ++depth;
        if (depth > 0) return depth;
        break;
    }
    return unsupported(file + " has no NSpid line (Linux 4.1 or later has it)");
}

Status checkPeerOutsideSandboxes(int socketFd, pid_t peerPid)
{
    if (peerPid <= 0) return refused(peerPid, "runs in a pid namespace this supervisor cannot see");
    int raw = -1;
    socklen_t len = sizeof raw;
    UniqueFd pidfd;
    if (::getsockopt(socketFd, SOL_SOCKET, kSoPeerPidFd, &raw, &len) == 0) pidfd.reset(raw);

    auto own = pidNamespaceDepth("self");
    if (!own) return own.error();
    auto peer = pidNamespaceDepth(std::to_string(peerPid));
    if (!peer) return refused(peerPid, "could not be checked: " + peer.error().describe());
    // The process read above is still the peer: its pid was not reused in between.
    if (pidfd && ::syscall(SYS_pidfd_send_signal, pidfd.get(), 0, nullptr, 0) != 0)
        return refused(peerPid, "ended before it could be checked");
    if (*peer != *own)
        return refused(peerPid, "runs in a pid namespace of its own, as every process inside a "
                                "sandbox does: no sandbox may drive a session");
    return {};
}

} // namespace sb
