// Who is on the other end of a control connection. A process inside a sandbox must never drive
// a session (answer its own approvals, rewrite its policy, apply its changes), whatever the
// sandbox can see: the socket folder is masked in every sandbox, and this check refuses such a
// peer even where something exposed the socket after all.
#pragma once

#include "base/Error.h"

#include <string_view>
#include <sys/types.h>

namespace sb {

// How many pid namespaces deep a process runs, counted from the one /proc was mounted for: the
// number of pids on its /proc/PID/status "NSpid:" line (1 for a process of this namespace).
// Any user may read that line, so root's clients of a user's session are checked too.
Result<int> pidNamespaceDepth(std::string_view procPid); // "self" or a pid

// Refuses a peer that runs in a pid namespace below this process's (every sandbox has its own)
// or that this process cannot see (SO_PEERCRED's pid is then 0). `peerPid` is SO_PEERCRED's.
// Where the kernel has SO_PEERPIDFD (Linux 6.5) the check holds the peer's process, so a pid
// reused between connect() and the check cannot pass for it.
Status checkPeerOutsideSandboxes(int socketFd, pid_t peerPid);

} // namespace sb
