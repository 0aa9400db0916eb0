// The exec helper: a process of the sandbox that starts the processes programs ask for
// (`sandbench-cli exec`, the MCP server, the E2B API) and does their file requests. It runs
// where the agent's command runs: a child of init in the sandbox's namespaces and cgroup, as
// the sandbox's user, with no capabilities, no_new_privs, its rlimits and Landlock, under its
// seccomp filter, so every exec it makes is approved like the agent's own. Files are opened by
// it, so a request sees exactly what the sandbox sees (the overlay's merged view, the masks,
// the exposures) with the sandbox user's rights; a symlink cannot lead out of the sandbox's
// root because the sandbox has no other. Never by entering the namespaces from the host.
//
// Init starts it (SandboxConfig::argv empty: as the session's command; else on request, see
// Sandbox.h) and the supervisor talks to it over a SOCK_SEQPACKET socket, one JSON object per
// message, descriptors beside (SandboxChannel.h). Requests carry an "id" the replies repeat:
//
//   {"op": "spawn", "id", "argv", "env": ["N=V"…], "cwd", "pty": {"rows", "cols"}?}
//       fds: stdin, stdout, stderr (without a pty). Replies "spawned" {"id", "pid"} (fds: the
//       pty's master), later "exec_failed" {"id", "errno"} when execve failed (a denied exec:
//       EPERM) and "exited" {"id", "status"} (the wait status).
//   {"op": "signal", "id", "signal"}          to the process group of spawn `id`
//   {"op": "open_read", "id", "path"}         {"ok", "size", "mode"} and the file's fd
//   {"op": "open_write", "id", "path", "mode"?, "append"?}
//       {"ok"} and the fd of a temporary file beside `path` (or of `path` itself to append);
//       then {"op": "commit", "id"} puts it in place (rename) or {"op": "abort", "id"} drops it.
//   {"op": "stat"|"list"|"mkdir"|"remove"|"rename"|"symlink", "id", …}   {"ok", …}
//
// A failure is {"id", "ok": false, "errno", "message"}. Paths are as the sandbox names them,
// relative ones from the project folder; strings that are not UTF-8 travel as Bytes.h does.
#pragma once

#include "sandbox/Sandbox.h"

namespace sb {

// In the helper's process, once contained: serves `channel` until the supervisor closes it.
[[noreturn]] void runExecHelper(int channel, const SandboxConfig& config);

} // namespace sb
