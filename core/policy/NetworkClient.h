// Who asks for a connection, and the part of a network rule that names it (`program`,
// `command`). Semantics: docs/policy.md, "Rules that name a program".
#pragma once

#include "base/Error.h"
#include "policy/CommandRules.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// One process as the supervisor saw it.
struct ClientProcess {
    std::int64_t pid = 0;          // as the sandbox numbers it; 0: unknown
    std::string program;           // the executable's path inside the sandbox; "": unknown
    std::vector<std::string> argv; // argv[0] is not consulted, as in commands.rules
};

// The process that made a connection request, and its chain of parents: its parent first, up
// to and including the session's command. Passed to NetworkRules as a pointer; a null pointer
// is a process the supervisor could not identify, which rules naming a program never match.
struct NetworkClient {
    ClientProcess process;
    std::vector<ClientProcess> parents;
};

// A rule's `program`: an absolute path or a file name, either a glob (fnmatch(3); in a path '*'
// stays within one folder). The error says what to write instead; the parser adds the position.
Status checkProgramPattern(std::string_view pattern);

// A program's exact path as a `program` pattern: glob characters escaped.
std::string programPatternFor(std::string_view path);

// The `program` and `command` of one rule, compiled once.
class ClientPattern {
  public:
    // Both empty: the rule names no process and matches every request, known or not.
    static Result<ClientPattern> compile(const std::string& program, const std::string& command);

    bool limited() const { return !m_program.empty() || m_command.has_value(); }
    // `program` against the connecting process itself; `command` against it or any of its
    // parents; both when the rule has both. An unknown client matches only an unlimited pattern.
    bool matches(const NetworkClient* client) const;

  private:
    std::string m_program;
    bool m_programIsPath = false;
    std::optional<CommandPattern> m_command;
};

} // namespace sb
