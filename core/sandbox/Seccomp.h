// The sandbox's syscall filter: a libseccomp deny list in the spirit of Docker's default profile
// and Flatpak's extras. Everything not listed is allowed; the namespaces and mounts are the
// boundary, the filter shrinks the kernel surface an agent can reach from inside them.
#pragma once

#include "base/Error.h"

#include <string>

namespace sb {

// Installs the filter on the calling thread only (no TSYNC: it is meant for the single-threaded
// sandbox child just before execve). The caller must already have PR_SET_NO_NEW_PRIVS or hold
// CAP_SYS_ADMIN in its user namespace; the filter does not set no_new_privs behind its back.
// Syscalls of a foreign ABI (i386 `int $0x80`, x32) kill the whole process with SIGSYS.
Status installSeccompFilter();

// The same filter, plus SECCOMP_RET_USER_NOTIF on execve/execveat and, with `outbound`, on the
// calls that open connections or send datagrams to an address (SeccompRules.h): returns the
// listener fd (O_CLOEXEC) on which the supervisor receives, inspects and answers them.
Result<int> installSeccompFilterNotifying(bool outbound);

// The name of a call the filter hands the supervisor to refuse and record (SeccompRules.h,
// reportedSyscalls), by its number; nullptr for any other call.
const char* reportedSyscallName(int nr);

// Whether the kernel offers SECCOMP_RET_USER_NOTIF (needed for command approval).
bool seccompUserNotifSupported();

// One line for `sandbench-cli doctor`: kernel support, size of the deny list and what compiled it.
std::string seccompSummary();

} // namespace sb
