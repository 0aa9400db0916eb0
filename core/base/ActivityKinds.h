// The "kind" of an activity event (docs/protocol.md, "Activity events"): one spelling for the
// supervisor that sends them, the recording that files them and the window that shows them.
#pragma once

namespace sb::activity {

inline constexpr char kCommand[] = "command";     // an exec the rules decided
inline constexpr char kNetwork[] = "network";     // a connection through the proxy
inline constexpr char kApproval[] = "approval";   // a request for an answer, and its outcome
inline constexpr char kFile[] = "file";           // a change in the workspace
inline constexpr char kLimit[] = "limit";         // a limit reached
inline constexpr char kPolicy[] = "policy";       // a learned rule, or a new policy
inline constexpr char kLifecycle[] = "lifecycle"; // the session's end
inline constexpr char kError[] = "error";         // the supervisor could not do something
inline constexpr char kRecording[] = "recording"; // the recording stopped (disk full…) or went on
inline constexpr char kExec[] = "exec";           // a program's process started or ended
inline constexpr char kFiles[] = "files";         // a program's file request
inline constexpr char kPort[] = "port";           // a sandbox's port exposed on the host, or closed
inline constexpr char kSnapshot[] = "snapshot";   // a snapshot of the running session was taken
inline constexpr char kRefusal[] = "refusal";     // the sandbox refused a call (mount, ptrace…)
inline constexpr char kModel[] = "model";         // a model API request through the proxy's gateway
inline constexpr char kLeak[] = "leak"; // a secret's placeholder on its way to a host not allowed
inline constexpr char kExecution[] = "execution"; // a code interpreter ran code: its results

} // namespace sb::activity
