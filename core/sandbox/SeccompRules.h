// The deny list of Seccomp.h, compiled with libseccomp into a BPF program. The build runs it once
// (sandbench-seccomp-gen writes the programs into the generated SeccompBpf.h, which
// Seccomp.cpp loads: nothing is compiled when a sandbox starts). Not part of the core library,
// so nothing Sandbench ships loads libseccomp: only the generator and the unit tests, which
// check that the generated programs are still what libseccomp makes, are built with it.
#pragma once

#include "base/Error.h"

#include <linux/filter.h>
#include <string>
#include <utility>
#include <vector>

namespace sb {

struct SeccompProgram {
    std::vector<sock_filter> code;
    unsigned ruleCount = 0; // deny rules, for doctor's summary
};

// What the filter hands the supervisor (SECCOMP_RET_USER_NOTIF) besides denying its list.
enum class SeccompNotify {
    None,
    Exec,            // execve and execveat (command approval)
    ExecAndOutbound, // those, and every way to open a connection or send a datagram to an
                     // address: connect; sendto with an address; sendmsg and sendmmsg with
                     // MSG_FASTOPEN (the supervised network, SocketGate.h)
};
// Where it notifies at all, the filter also hands the supervisor the calls of its deny list a
// program makes deliberately rather than to probe (mount, unshare, ptrace, a namespace-making
// clone…): the supervisor refuses each with EPERM, as the filter would, and records it.
Result<SeccompProgram> compileSeccompFilter(SeccompNotify notify);

// Those calls, by number on this architecture, with their names.
std::vector<std::pair<int, std::string>> reportedSyscalls();

// The program the build generated, as Seccomp.cpp loads it.
std::vector<sock_filter> precompiledSeccompFilter(SeccompNotify notify);

} // namespace sb
