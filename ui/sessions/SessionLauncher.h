// Starts a session the way the GUI does: as its own supervisor process
// (`sandbench-cli run --headless`), in a new process session, so neither a crash of the window
// nor its terminal closing ends the agent's session.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace sbui {

struct LaunchRequest {
    QString workspace;
    QString preset;     // one of sb::presetNames(), or empty with policyFile
    QString policyFile; // a policy document, or empty with preset
    QString network;    // "", "none", "filtered", "host": empty keeps the policy's
    QString root;       // filesystem.root ("image:NAME"): empty keeps the policy's
    QString resumeFrom; // an ended session whose changes the new one goes on with
    std::optional<unsigned> wallSeconds, memoryMb, pids, cpuPercent; // overrides
    std::optional<unsigned> approvalTimeoutSeconds;                  // override, 1-86400
    bool observe = false; // run --observe: nobody is asked, what would have been is recorded
    QStringList command;
    // The built-in demo (`sandbench-cli demo`) instead of a command: its own fresh workspace,
    // agent and policy; the fields above are not used.
    bool demo = false;
    int rows = 24, cols = 80;
    QString sessionId; // empty: a fresh one
};

// The sandbench-cli arguments for `request` (after the program name).
QStringList launchArguments(const LaunchRequest& request);

// $SANDBENCH_CLI, else sandbench-cli beside this program's binary (a build tree or an
// installation), else on PATH.
QString cliProgram();

struct Launched {
    QString sessionId;
    QString logFile; // the supervisor's messages (why it stopped, if it did)
    qint64 pid = 0;  // the supervisor's process
};

// Starts the supervisor detached. Fails only when it cannot be started at all; a policy or
// sandbox problem shows up in the log and as the session never coming up.
std::optional<Launched> launchSession(LaunchRequest request, QString* error);

} // namespace sbui
