// The part of a network rule that names who may connect (`program`, `command`), matched against
// the process that asks and its parents (ProcessChain.h). Semantics: docs/policy.md, "Rules that
// name a program".
#pragma once

#include "base/Error.h"
#include "policy/CommandRules.h"
#include "policy/ProcessChain.h"

#include <optional>
#include <string>
#include <string_view>

namespace sb {

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
    // `program` against the process that asks (chain[0]); `command` against it or any of its
    // parents; both when the rule has both. An empty chain is an unknown process, which only an
    // unlimited pattern matches.
    bool matches(const ProcessChain& chain) const;

  private:
    std::string m_program;
    bool m_programIsPath = false;
    std::optional<CommandPattern> m_command;
};

} // namespace sb
