// The vocabulary of approvals, shared by the broker (which owns them), the control protocol
// (which carries them to clients) and the recording (which keeps them).
#pragma once

#include "policy/ProcessChain.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sb {

enum class ApprovalKind { Command, Network };

// What an "allow" or "deny" answer covers.
enum class ApprovalScope {
    // commands
    ExactCommand, // this exact command line
    Subcommand,   // this program with this first argument ("git push", any further args)
    AnyArguments, // this program with any arguments
    // network
    HostPort, // this host and port
    Host,     // this host, any port
    Domain,   // *.domain (the host's registrable parent and its subdomains)
};

enum class ApprovalDuration { Once, Session, Always };

struct ApprovalRequest {
    std::uint64_t id = 0; // unique within the session
    ApprovalKind kind = ApprovalKind::Command;
    // Command: the program as resolved inside the sandbox, argv, the working directory.
    std::string program;
    std::vector<std::string> argv;
    std::string cwd;
    // Network: the host as the agent named it, the port, and "http", "connect" or "socks5".
    std::string host;
    std::uint16_t port = 0;
    std::string protocol;
    std::string rule;                // the rule (or "default") whose action was "ask"
    std::int64_t deadlineUnixMs = 0; // when on_timeout applies
    // Command: the process and its session (its leader's pid), as the sandbox numbers them
    // (0: unknown). A program's process is a session of its own, so its children share it.
    std::int64_t pid = 0, session = 0;
    // What the activity events call what is asked about: the command's "id" or the network
    // connection's "connection" (0: none).
    std::uint64_t subject = 0;
    // Network: the process that connects and its parents (empty: unknown).
    ProcessChain process;
};

struct ApprovalAnswer {
    bool allow = false;
    ApprovalScope scope = ApprovalScope::ExactCommand;
    ApprovalDuration duration = ApprovalDuration::Once;
    std::string answeredBy; // "cli", "gui", "tty", a client name
    // Network: the rule made from the answer names the program of the request's process (its
    // exact path), so it covers that program's connections only. Needs a known process.
    // Braced, so that {allow, scope, duration, answeredBy} stays a complete initializer.
    bool programOnly{};
    // Network, scope Host or Domain: the rule keeps the request's port (a generalised answer,
    // sb::generaliseAnswer: "*.example.com" on port 443 only, not any port).
    bool samePort{};
};

struct ApprovalOutcome {
    std::uint64_t id = 0;
    bool allow = false;
    bool timedOut = false;
    bool cancelled = false; // the supervisor shut down before an answer: denied
    ApprovalAnswer answer;  // meaningful when neither timedOut nor cancelled
    std::int64_t latencyMs = 0;
    // An "always" answer whose rule could not be saved: why (it still holds for the session).
    std::string persistError;
};

} // namespace sb
