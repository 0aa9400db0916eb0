// A session in the foreground: the supervisor that creates the session, starts the sandbox,
// runs its event loop (terminal, exec approval, approvals, limits) and records how it ended.
#pragma once

#include "base/Error.h"
#include "base/Session.h"
#include "policy/Exposure.h"
#include "policy/Policy.h"
#include "supervision/RunningPolicy.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sb {

struct RunOptions {
    // The policy as its document says, with the run's overrides: runSession merges in the
    // learned rules of learnedRulesFile, and clients see the two apart.
    Policy policy;
    // Where `policy` came from, for clients that edit the running policy (SessionSummary);
    // both empty for a policy built in code.
    std::filesystem::path policyFile;
    std::string policyPreset;
    std::filesystem::path workspace;
    // Where the sandbox sees the workspace, which is then also its home folder ($HOME); empty:
    // at its own path, with the caller's home an empty folder (E2B sandboxes: /home/user).
    std::filesystem::path workspaceInside;
    // The name the sandbox's user goes by inside (its passwd and group, $USER); empty: the
    // system's name of its uid (SandboxConfig::userName).
    std::string userInside;
    // Empty with `programmable`: a session without a command of its own (`sandbench-cli
    // start`), whose sandbox runs what programs ask for (exec, files) until it is stopped.
    std::vector<std::string> command;
    bool programmable = false;
    std::string sessionId; // empty: a fresh one
    // An ended session whose changes this one takes over and goes on with (SessionResume.h);
    // `workspace` may then be empty (that session's project).
    std::string resumeFrom;
    // The learned rules merged into `policy`, and where "always" answers are saved (see
    // LearnedRules.h); empty: none, and answers last the session.
    std::filesystem::path learnedRulesFile;
    // Observe mode: what the policy would ask is allowed and recorded as "would have asked";
    // deny rules still deny, and the sandbox is the same (docs/policy.md, "Observe").
    bool observe = false;
    // A candidate policy evaluated beside `policy`, never enforced: each command and network
    // decision records what it would have decided ("shadow"), for `policy compare`.
    std::optional<Policy> shadow;
    // The recordings database; empty: the default ($XDG_DATA_HOME/sandbench/recordings.db).
    std::filesystem::path recordingsDb;
    int stdinFd = 0, stdoutFd = 1, stderrFd = 2;
    // Headless (a session the GUI started): the command gets a pty of rows × cols, and only
    // control clients see its output and type into it; the stdio fds are not used.
    bool headless = false;
    unsigned short rows = 24, cols = 80;
    // The read end of a pipe whose write end the session's owner holds (`sandbench-cli mcp`'s
    // own session): when the owner is gone, however it ended, the session stops as on
    // `sandbench-cli stop`. -1: none; the session is closed by the supervisor.
    int lifeline = -1;
    // Messages for the person at the terminal (session id, degraded features, limits hit).
    std::function<void(const std::string&)> notice;
    // Called once clients can connect to the session's control socket (or once it is clear
    // they never will): who started the session in the background waits for this.
    std::function<void()> listening;
};

struct RunOutcome {
    SessionInfo session;
    int exitStatus = 0;      // the command's: code, or 128+signal
    bool timedOut = false;   // the wall-clock limit ended it
    std::size_t changes = 0; // to the workspace, held back for review
};

// Everything the sandbox needs that can be checked before anything starts, worked out once:
// the workspace folder, the exposures, the policy with its learned rules.
struct PreparedRun {
    std::filesystem::path workspace;
    ExposurePlan exposures; // its masks include the secrets inside the workspace
    RunningPolicy policy;
    RunLaterRules runLater;                 // saved in the session for review and apply
    std::filesystem::path systemRoot = "/"; // the policy's filesystem.root, resolved
    std::optional<SessionInfo> resumed;     // RunOptions::resumeFrom's session, checked
};
// Errors name what is wrong.
Result<PreparedRun> prepareRun(const RunOptions& options);
Status checkRunnable(const RunOptions& options); // prepareRun(), for its verdict only

// Runs the session prepareRun() made ready for `options`.
Result<RunOutcome> runSession(const RunOptions& options, PreparedRun prepared);
Result<RunOutcome> runSession(const RunOptions& options);

} // namespace sb
