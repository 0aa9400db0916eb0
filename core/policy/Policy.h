// The policy document: what a sandbox may see, reach and use.
// Format reference: docs/policy.md. Presets in resources/presets/ are its tested examples.
#pragma once

#include "base/Error.h"
#include "policy/RunLater.h"
#include "policy/Secrets.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

enum class NetworkMode { None, Filtered, Host };
enum class AccessMode { ReadOnly, ReadWrite };

std::string_view toString(NetworkMode mode);
std::string_view toString(AccessMode mode);

struct ExposedPath {
    std::string path; // as written; "~/" is the caller's home
    AccessMode mode = AccessMode::ReadOnly;
    bool optional = false; // a missing path is skipped instead of refusing to start
};

struct FilesystemPolicy {
    // Where the sandbox's system folders (/usr, /etc, /lib*, /opt, /bin, /sbin) come from: ""
    // for this machine's, "image:NAME" for an imported image, or an absolute folder (a root
    // file system). Resolved when a session starts (resolveSystemRoot, image/ImageStore.h).
    std::string root;
    std::vector<ExposedPath> expose;
    RunLaterPolicy runLater; // `run_later`: paths added to, or announced off, the built-in list
};

// What a rule or a default does with a command or a connection.
enum class RuleAction { Allow, Ask, Deny };
std::string_view toString(RuleAction action);

// {"action": "deny", "host": "*.example.com", "ports": [443]}. host: an exact name, "*.suffix"
// (the suffix and its subdomains), an IPv4/IPv6 address or a CIDR range, or "*" for any.
// `program` and `command` limit the rule to requests of a process they match
// (policy/ClientPattern.h); empty: any process, known or not.
struct NetworkRule {
    RuleAction action = RuleAction::Deny;
    std::string host;
    std::vector<std::uint16_t> ports; // empty: any port
    std::string comment;
    // Braced, so that {action, host, ports, comment} stays a complete initializer.
    std::string program{}; // "/usr/bin/ssh", "ssh": the connecting process's executable
    std::string command{}; // "git *": the connecting process or one of its parents
};

struct NetworkPolicy {
    NetworkMode mode = NetworkMode::Filtered;
    RuleAction defaultAction = RuleAction::Ask; // when no rule matches (mode filtered)
    std::vector<NetworkRule> rules;             // ordered; the first match wins
};

// {"action": "ask", "match": "git push *"}: a pattern over the command line (see
// docs/policy.md); "*" matches any run of characters, including none.
struct CommandRule {
    RuleAction action = RuleAction::Ask;
    std::string match;
    std::string comment;
};

struct CommandPolicy {
    RuleAction defaultAction = RuleAction::Allow;
    std::vector<CommandRule> rules; // ordered; the first match wins
};

struct ApprovalPolicy {
    std::uint32_t timeoutSeconds = 120;
    RuleAction onTimeout = RuleAction::Deny; // Allow or Deny; never creates a rule
};

// Zero means "no limit" for the optional limits.
// The largest values a policy (and the CLI's overrides of it) accepts.
namespace maximum {
inline constexpr std::uint64_t memoryMb = 1u << 20;       // 1 TiB
inline constexpr std::uint32_t pids = 4194304;            // the kernel's PID_MAX_LIMIT
inline constexpr std::uint32_t cpuPercent = 102400;       // 1024 cores
inline constexpr std::uint32_t limitSeconds = 30 * 86400; // wall, idle and CPU time: 30 days
// An agent held longer than a day for an answer is a forgotten session.
inline constexpr std::uint32_t approvalSeconds = 86400;
} // namespace maximum

struct Limits {
    std::uint64_t memoryMb = 4096; // cgroup memory.max; RLIMIT_DATA fallback per process
    std::uint32_t pids = 512;      // cgroup pids.max; RLIMIT_NPROC always
    std::uint32_t cpuPercent = 0;  // cgroup cpu.max (100 = one core); 0 = unlimited
    std::uint32_t wallSeconds = 0; // whole session; 0 = unlimited
    // A session without a command (`start`) ends after this long with no process of a program
    // running and no client connected; 0 = never.
    std::uint32_t idleSeconds = 0;
    std::uint32_t cpuSeconds = 0;    // RLIMIT_CPU per process; 0 = unlimited
    std::uint32_t openFiles = 4096;  // RLIMIT_NOFILE
    std::uint64_t fileSizeMb = 4096; // RLIMIT_FSIZE
    // Model API requests through the proxy's gateway (docs/secrets.md): once the session's
    // requests used this many tokens (input, output and cache together), or made this many
    // requests, each further one is put to the human first; 0 = unlimited.
    std::uint64_t modelTokens = 0;
    std::uint64_t modelRequests = 0;
};

struct EnvPolicy {
    // Names (or "PREFIX_*" patterns) of the caller's variables that pass in, beside the defaults
    // TERM, LANG, LC_*, PATH, HOME, USER, SHELL.
    std::vector<std::string> pass;
    std::map<std::string, std::string> set; // set last, overriding passed values
};

struct Policy {
    int version = 1;
    FilesystemPolicy filesystem;
    NetworkPolicy network;
    CommandPolicy commands;
    ApprovalPolicy approvals;
    Limits limits;
    EnvPolicy env;
    std::vector<SecretSpec> secrets; // policy/Secrets.h
};

// Parses a policy document (JSON with // and /* */ comments). `origin` names the document in
// messages: "FILE:LINE:COLUMN: at /json/pointer: what is wrong (expected …)".
Result<Policy> parsePolicy(std::string_view text, std::string_view origin);
Result<Policy> loadPolicyFile(const std::filesystem::path& file);

// What a run changes on top of its policy document (`run
// --network/--timeout/--memory/--pids/--cpu/--approval-timeout`, the GUI's New session dialog);
// unset fields keep the document's value.
struct PolicyOverrides {
    std::optional<NetworkMode> network;
    std::optional<std::uint32_t> wallSeconds, pids, cpuPercent;
    std::optional<std::uint64_t> memoryMb;
    std::optional<std::uint32_t> approvalTimeoutSeconds; // approvals.timeout_seconds, 1-86400
};
void applyOverrides(Policy& policy, const PolicyOverrides& overrides);
// "none", "filtered", "host"; nothing for any other text.
std::optional<NetworkMode> networkModeFromName(std::string_view name);

// Presets ship in resources/presets/NAME.json; the directory is found via presetDirectory().
std::vector<std::string> presetNames();
Result<Policy> loadPreset(std::string_view name);
std::filesystem::path presetDirectory();

} // namespace sb
