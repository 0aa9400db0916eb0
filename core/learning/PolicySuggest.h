// A policy learned from recorded work (`sandbench-cli policy suggest`): what the sessions did
// that a base policy would ask about becomes rules that allow it next time, generalised where
// that is safe (commands by program and subcommand, hosts by registrable domain, connections
// limited to the programs that made them), each with its evidence. Semantics and limits:
// docs/policy.md, "A policy from recorded sessions".
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sb {

class RecordingStore;

// What ran in the sessions: execs and connections that were allowed, by a rule, the default or
// an answer (what was denied, or asked and refused, is left out).
struct ObservedCommand {
    std::string program; // its path inside the sandbox
    std::vector<std::string> argv;
    std::string session;
    std::int64_t tNs = 0; // when, since the session started (its decision's event)
};
struct ObservedConnection {
    std::string host; // as decided: the name the program used, or an address
    std::uint16_t port = 0;
    std::string program; // the connecting process's executable; empty: unknown
    std::string session;
    std::int64_t tNs = 0;
};
struct Observations {
    std::vector<ObservedCommand> commands;
    std::vector<ObservedConnection> connections;
};

// Errors name the session that could not be read.
Result<Observations> readObservations(RecordingStore& store,
                                      const std::vector<std::string>& sessions);

struct Evidence {
    std::size_t count = 0;             // events the rule covers
    std::vector<std::string> sessions; // in which they happened, in order
    std::string example;               // one of them, as a command line or host:port
    std::string exampleSession;        // where and when the example happened (for a replay)
    std::int64_t exampleTNs = 0;
};

struct ProposedRule {
    enum class Section { Commands, Network } section = Section::Commands;
    CommandRule command; // Section::Commands
    NetworkRule network; // Section::Network
    Evidence evidence;
    // Where it goes: before the base rule that asked (its index in the base's rules), or after
    // them all (-1: the default asked).
    int before = -1;
    // Empty: proposed. Otherwise why it is not proposed by default (an interpreter running
    // anything…); written commented out unless asked for.
    std::string risk;
    std::string note; // a remark for the reader ("one party's names on github.io")
    // Which of those it is, for a window that says it in its own language.
    enum class Remark {
        None,
        CoversADenial,
        Interpreter,
        SharedPlatform,
        TransferTool
    } remark = Remark::None;
    std::string platform; // SharedPlatform: the party's domain; TransferTool: the tool's name
};

struct Suggestion {
    Policy base;
    std::vector<ProposedRule> rules; // commands first, then network; stable order
};

// What the suggester judges by a program's file name (and, for destructive commands, its
// arguments), shared with the generalised "always" answer (AnswerGeneralisation.h).
bool isInterpreter(const std::string& name); // python3, bash, env…: runs what it is told
bool isDestructive(const std::string& name, const std::vector<std::string>& argv); // rm -rf…
bool isTransferTool(const std::string& name);   // curl, wget, nc…: sends and fetches anything
bool isSubcommandWord(const std::string& word); // "push", "install": not a file or option

// An error when the base's rules do not compile or the public suffix list cannot be opened.
Result<Suggestion> suggestPolicy(const Policy& base, const Observations& seen);

// The base with the proposed rules in place, as a policy document: JSON with each proposed
// rule's evidence in a comment above it, risky ones commented out unless `includeRisky`.
std::string renderSuggestion(const Suggestion& suggestion, bool includeRisky);
// {"proposed": [{"section", "rule", "before", "evidence": {…}, "risk", "note"}…]}
nlohmann::json suggestionJson(const Suggestion& suggestion);

} // namespace sb
