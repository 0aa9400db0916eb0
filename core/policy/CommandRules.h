// Which `commands.rules` entry decides a program the agent executes. Pattern syntax and the
// precedence of learned rules: docs/policy.md, "commands".
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"

#include <string>
#include <string_view>
#include <vector>

namespace sb {

// A `match` string split into words the way a shell would, each word an fnmatch(3) pattern in
// which quoted characters are escaped, so `'*'` matches a literal star.
struct CommandPattern {
    std::vector<std::string> words; // words[0] matches the program, the rest argv[1..]
    bool anyRest = false;           // the pattern ended with a bare "*": any further arguments
    bool programIsPath = false;     // words[0] holds a '/': matched against the full path

    // How many words must match: the more, the narrower the rule. "git push *" is 2, "git push
    // origin" is 3. Used to decide whether a learned rule may shadow a user's deny rule.
    int specificity() const { return static_cast<int>(words.size()); }
};

// The pattern, or an InvalidInput error whose message says what is wrong with the text
// ("unterminated ' quote in …"); the policy parser adds the file position.
Result<CommandPattern> parseCommandPattern(std::string_view text);

// argv[0] is ignored: the agent chooses it freely, so the program is matched by its resolved path.
bool matchesCommand(const CommandPattern& pattern, std::string_view program,
                    const std::vector<std::string>& argv);

// A word a pattern matches literally: as is when it holds only safe characters, else in single
// quotes ("it's" → 'it'\''s').
std::string quoteCommandWord(std::string_view word);
// The words quoted so, with spaces between: a command line that splitCommandLine() reads back.
std::string quoteCommandLine(const std::vector<std::string>& argv);

// A command line typed by a person, split into argv as a shell would split it (quotes and
// backslashes; no expansions). Shell operators (| ; & < > ( ) `) are refused, naming the
// character: a command runs one program (use bash -c '…' for more).
Result<std::vector<std::string>> splitCommandLine(std::string_view text);

struct CommandDecision {
    RuleAction action = RuleAction::Allow;
    std::string rule;   // "commands.rules[2] (ask \"git push *\")" or "commands.default"
    int ruleIndex = -1; // into the rules that decided, -1 for the default
};

// The policy's rules compiled once; the supervisor asks it on every exec.
class CommandMatcher {
  public:
    explicit CommandMatcher(const CommandPolicy& policy);
    CommandDecision decide(std::string_view program, const std::vector<std::string>& argv) const;

  private:
    struct Compiled {
        CommandPattern pattern;
        bool valid = false; // a pattern the parser refused never matches (policies are checked)
    };
    CommandPolicy m_policy;
    std::vector<Compiled> m_compiled;
};

// Rules are ordered and the first match wins; no match takes `policy.defaultAction`.
CommandDecision decideCommand(const CommandPolicy& policy, const std::string& program,
                              const std::vector<std::string>& argv);

// "commands.rules[2] (ask \"git push *\")"
std::string describeCommandRule(std::size_t index, const CommandRule& rule);

} // namespace sb
