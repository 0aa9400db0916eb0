// The vocabulary of a session recording: event kinds (stored as integers, named in exports),
// what the supervisor tells the store about a session, and the writer's statistics.
// docs/recording.md documents the schema and every event's payload.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// Values are stored in the database: append new kinds, never renumber.
enum class EventKind : int {
    Output = 0,          // terminal bytes from the command (raw)
    Input = 1,           // terminal bytes typed by the user (raw)
    Resize = 2,          // {"rows", "cols"}
    Lifecycle = 3,       // {"phase": "started"|"sandbox_ready"|"exited"|…, …}
    ExecRequest = 4,     // {"id", "argv", "cwd", "program"}
    ExecDecision = 5,    // {"id", "decision", "rule", "program"}
    NetworkRequest = 6,  // {"id", "host", "port", "protocol"}
    NetworkDecision = 7, // {"id", "host", "port", "protocol", "decision", "rule"}
    ApprovalPrompt = 8,  // {"request_id", "kind", "subject"}
    ApprovalAnswer =
        9, // {"request_id", "kind", "decision", "scope", "answered_by", "latency_ms", "timed_out"}
    // A live file event ({"kind": "file", "change", "path", …}), or the end's net result
    // {"path", "kind": "added"|"modified"|"deleted", "final": true}; see docs/recording.md.
    WorkspaceChange = 10,
    LimitHit = 11, // {"kind": "limit", "limit", "value", "unit", "action", "count", …}
    // A learned rule {"section", "rule", "scope", "source"}, or a running session's new policy
    // {"kind": "policy", "type": "update", "by", "applied", "deferred", …}.
    PolicyChange = 12,
    Dropped = 13,       // {"events", "bytes"}: the writer's queue overflowed (never expected)
    ResourceUsage = 14, // {"memory_bytes", "pids", "cpu_us"}
    // {"kind": "refusal", "syscall", "pid", "process", "command_id", "rule"}: the sandbox's
    // system call filter refused a deliberate call (mount, unshare, ptrace…).
    Refusal = 15,
    // {"kind": "model", "host", "port", "api", "model", "status", "input_tokens",
    // "output_tokens", "cache_read_tokens", "cache_write_tokens", "streamed", "duration_ms",
    // "connection", "process", "command_id"}: a model API request through the proxy's gateway.
    ModelRequest = 16,
    // {"kind": "leak", "secret", "host", "port", "protocol", "where", "process", "command_id",
    // "connection"}: a secret's placeholder on its way to a host it may not go to, refused.
    SecretLeak = 17,
    // {"kind": "execution", "language", "context", "execution_count", "code", "stdout",
    // "stderr", "results": [{"main", "parts": [{"mime", "text" | "base64" | "json", "bytes"…}]}],
    // "error"?, …}: one execution of a code interpreter's code (recording/CodeExecution.h).
    CodeExecution = 18,
};

constexpr int kLastEventKind = static_cast<int>(EventKind::CodeExecution);

std::string_view eventKindName(EventKind kind);
std::optional<EventKind> eventKindFromName(std::string_view name);
inline bool isTerminalBytes(EventKind kind)
{
    return kind == EventKind::Output || kind == EventKind::Input;
}

enum class RecordState { Running, Ended, Interrupted };
std::string_view recordStateName(RecordState state);
std::optional<RecordState> recordStateFromName(std::string_view name);

// What the supervisor knows when the session starts.
struct SessionRecordInfo {
    std::string id; // sb::SessionInfo::id
    std::vector<std::string> command;
    std::filesystem::path workspace;
    nlohmann::json policy = nlohmann::json::object(); // the policy in force, as a snapshot
    std::int64_t startedNs = 0;                       // CLOCK_REALTIME; 0 = now
    unsigned rows = 24, cols = 80;
};

// A command the supervisor judged, as the exec path hands it over: plain strings, so that the
// JSON (an activity event of kind "command") is built off that path, on the writer's thread,
// or for control clients only when one listens.
struct CommandRecord {
    std::uint64_t id = 0; // the session's commands in order, from 1: ties an approval to it
    std::string program;
    std::vector<std::string> argv;
    std::string cwd;
    std::int64_t pid = 0;
    std::string decision; // "allow", "deny" or "ask"
    std::string rule;
    std::int64_t timeUnixMs = 0;
    bool wouldAsk = false; // allowed by observe mode where the rules say ask ("would_ask")
    // What a shadow policy (RunOptions::shadow) decided instead: "shadow": {"decision", "rule"}.
    std::string shadowDecision, shadowRule;
};
// The whole record ("kind": "command"), as clients see it and exec_decision stores it.
nlohmann::json toJson(const CommandRecord& command);

struct WriterStats {
    std::uint64_t eventsWritten = 0; // rows stored (coalesced terminal chunks count once)
    std::uint64_t eventsQueued = 0;  // calls accepted from the supervisor
    std::uint64_t outputBytes = 0, inputBytes = 0;
    std::uint64_t droppedEvents = 0, droppedBytes = 0; // expected 0
    std::uint64_t queueHighWater = 0;                  // most queued items at once
    std::uint64_t queueHighWaterBytes = 0;             // most queued payload bytes at once
    std::uint64_t transactions = 0;
    std::uint64_t keyframes = 0;
    std::uint64_t stalls = 0; // times storing stopped for a reason that may pass, then went on
    std::string lastError;    // set when a write failed; the writer keeps trying
};

// A stored event as readers see it (terminal bytes decoded).
struct RecordedEvent {
    std::int64_t seq = 0;
    std::int64_t tNs = 0; // monotonic, since the session started
    EventKind kind = EventKind::Output;
    std::string data; // raw bytes for Output/Input, JSON text otherwise
};

} // namespace sb
