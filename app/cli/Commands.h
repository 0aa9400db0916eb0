// The sandbench-cli subcommands; each file adds one group to the app.
#pragma once

#include "base/Error.h"
#include "base/SessionChain.h"
#include "control/ControlClient.h"
#include "supervision/Supervisor.h"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace sbcli {

void addRunCommand(CLI::App& app);
void addWorkspaceCommands(CLI::App& app);
void addDoctorCommand(CLI::App& app);
void addDemoCommand(CLI::App& app);
void addRecordingCommands(CLI::App& app);
void addClientCommands(CLI::App& app);
void addProgramCommands(CLI::App& app);
void addImageCommands(CLI::App& app);
void addSnapshotCommands(CLI::App& app);
void addPortCommands(CLI::App& app);
void addDialCommand(CLI::App& app); // dial-stdio
// With --host URL first (or SANDBENCH_HOST set), runs the rest of the command line on that
// host over ssh and returns its status; nothing when the command is for this host.
std::optional<int> relayToHost(int argc, char** argv);
void addPolicyTestCommand(CLI::App& policy);    // `policy test`, by addClientCommands
void addPolicySuggestCommand(CLI::App& policy); // `policy suggest`, likewise
void addPolicyCompareCommand(CLI::App& policy); // `policy compare`, likewise

// Exit codes of sandbench-cli's own failures (the command's own status passes through).
constexpr int kUsageError = 2;
constexpr int kFailure = 1;
constexpr int kSandboxFailure = 125; // like `docker run`: the sandbox could not start

// "sandbench-cli: message" on stderr; returns `code` so callers can `return fail(…)`.
int fail(const std::string& message, int code = kFailure);
int fail(const sb::Error& error, int code = kFailure);

// --headless --size ROWSxCOLS (run, demo): a terminal only control clients see.
sb::Status makeHeadless(sb::RunOptions& options, const std::string& size);

// A running session's control socket, waiting up to 2 s for a supervisor that is starting or
// finishing; an error that says why in the user's terms (unknown, ended, …).
sb::Result<std::unique_ptr<sb::ControlClient>>
connectSession(const std::string& id, sb::proto::Role role, const std::string& name);

struct PolicyChoice;
// A session without a command, its supervisor left running in the background (start, mcp).
struct StartedSession {
    std::string id;
    pid_t pid = -1;
    std::string notices; // what the supervisor said while it started
};
// The session ends with its caller when `tied` (the write end of its lifeline stays open, on
// purpose, for the rest of the caller's life); otherwise it lives until it is stopped.
sb::Result<StartedSession> startDetachedSession(const PolicyChoice& policy,
                                                const std::string& workspace,
                                                const std::string& name, bool tied = false);
// The same in two steps, for a caller that adjusts the options (serve).
sb::Result<sb::RunOptions> detachedSessionOptions(const PolicyChoice& policy,
                                                  const std::string& workspace,
                                                  const std::string& name);
sb::Result<StartedSession> startDetachedSession(sb::RunOptions options, bool tied);
// A running session's connection for exec and files: an error if its supervisor serves neither.
sb::Result<std::unique_ptr<sb::ControlClient>> programClient(const std::string& session,
                                                             const std::string& name);
void addFilesCommand(CLI::App& app); // by addProgramCommands
void addMcpCommand(CLI::App& app);
void addServeCommand(CLI::App& app);

// The lasting workspace session `id` belongs to (base/SessionChain.h). When its changes went on
// in a resumed session, says so on stderr, and that `acting` ("applying those of") the current
// one is what the command does.
sb::Result<sb::SessionChain> followChain(const std::string& id, const char* acting);

// Ends the program from inside a CLI11 callback with this exit code.
[[noreturn]] void exitWith(int code);

} // namespace sbcli
