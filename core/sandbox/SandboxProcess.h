// The processes init starts, inside sandbox/: the session's command, and the exec helper
// (ExecHelper.h), contained the same way: a new session, stdio, rlimits, the project as the
// working folder, Landlock, then the seccomp filter whose exec listener goes to the supervisor.
#pragma once

#include "base/Error.h"
#include "sandbox/Sandbox.h"

#include <sys/types.h>
#include <vector>

namespace sb::sandbox {

constexpr int kSetupFailed = 125; // init's exit code when the sandbox could not be built

// Exit status as a shell reports it: code, or 128+signal.
int exitCodeOf(int status);

struct Started {
    pid_t pid = -1;
    int execListener = -1; // with superviseExec: the filter's listener, for the supervisor
};

// Forks the command (config.argv) with `ptySlave` (or config.stdioFds) as its stdio. Returns
// once it reported that its filter is in, or with the error that stopped its containment.
Result<Started> startCommand(const SandboxConfig& config, int ptySlave);

// Forks an exec helper serving `channel` (the child's end of a socketpair; the caller closes
// its copy). Its stdio is `ptySlave` or config.stdioFds when it is the session's command
// (`asCommand`), /dev/null otherwise.
Result<Started> startExecHelper(const SandboxConfig& config, int ptySlave, int channel,
                                bool asCommand);

} // namespace sb::sandbox
