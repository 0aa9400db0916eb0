#include "policy/CommandRules.h"

#include "base/Bytes.h"

#include <algorithm>
#include <fnmatch.h>
#include <nlohmann/json.hpp>

namespace sb {
namespace {

bool isGlobChar(char c)
{
    return c == '*' || c == '?' || c == '[' || c == ']' || c == '\\';
}

// A character that came from quotes or a backslash: literal for fnmatch too.
void appendLiteral(std::string& glob, char c)
{
    if (isGlobChar(c)) glob += '\\';
    glob += c;
}

// Characters a shell would treat as syntax. A rule matches one program's argv, so "curl x | sh"
// can never match anything; saying so beats a rule that silently never fires.
bool isOperator(char c)
{
    return c == '|' || c == ';' || c == '&' || c == '<' || c == '>' || c == '(' || c == ')' ||
           c == '`';
}

std::string jsonQuoted(std::string_view text)
{
    return dumpJson(nlohmann::json(std::string(text)));
}

std::string_view baseName(std::string_view path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace

namespace {

struct Word {
    std::string text;
    bool bare = true; // written without quotes or escapes
};

// Splits a command line into words as a shell would (quotes, backslashes, no expansions).
// With `forGlob`, characters that came from quotes or escapes are escaped for fnmatch.
Result<std::vector<Word>> splitWords(std::string_view text, bool forGlob)
{
    std::vector<Word> words;
    Word word;
    bool inWord = false;
    auto literal = [&](char c) {
        if (forGlob)
            appendLiteral(word.text, c);
        else
            word.text += c;
    };
    auto finish = [&] {
        if (!inWord) return;
        words.push_back(std::move(word));
        word = Word{};
        inWord = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            finish();
            continue;
        }
        if (isOperator(c))
            return inputError(std::string("'") + c + "' in " + jsonQuoted(text) +
                              " is shell syntax (expected one program and its arguments; quote "
                              "the character to use it literally)");
        inWord = true;
        if (c == '\\') {
            if (++i == text.size())
                return inputError(jsonQuoted(text) + " ends with a lone '\\' (expected a character "
                                                     "after it)");
            literal(text[i]);
            word.bare = false;
        } else if (c == '\'' || c == '"') {
            bool closed = false;
            for (++i; i < text.size(); ++i) {
                if (text[i] == c) {
                    closed = true;
                    break;
                }
                // Inside double quotes a backslash escapes only what a shell lets it escape.
                if (c == '"' && text[i] == '\\' && i + 1 < text.size() &&
                    std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos)
                    ++i;
                literal(text[i]);
            }
            if (!closed)
                return inputError(std::string("unterminated ") + c + " quote in " +
                                  jsonQuoted(text) + " (expected a closing " + c + ")");
            word.bare = false;
        } else {
            word.text += c;
        }
    }
    finish();
    return words;
}

} // namespace

Result<CommandPattern> parseCommandPattern(std::string_view text)
{
    auto words = splitWords(text, true);
    if (!words) return words.error();
    if (words->empty())
        return inputError("empty pattern (expected a command such as \"git push *\")");
    CommandPattern pattern;
    for (const Word& w : *words)
        pattern.words.push_back(w.text);
    // Only a bare "*" after the program means "any further arguments"; '*' is one literal star,
    // and a "*" elsewhere is one argument of any value.
    if (pattern.words.size() > 1 && words->back().bare && pattern.words.back() == "*") {
        pattern.anyRest = true;
        pattern.words.pop_back();
    }
    pattern.programIsPath = pattern.words[0].find('/') != std::string::npos;
    return pattern;
}

Result<std::vector<std::string>> splitCommandLine(std::string_view text)
{
    auto words = splitWords(text, false);
    if (!words) return words.error();
    std::vector<std::string> out;
    for (Word& w : *words)
        out.push_back(std::move(w.text));
    return out;
}

bool matchesCommand(const CommandPattern& pattern, std::string_view program,
                    const std::vector<std::string>& argv)
{
    if (pattern.words.empty()) return false;
    const std::size_t args = argv.empty() ? 0 : argv.size() - 1;
    const std::size_t wanted = pattern.words.size() - 1;
    if (args < wanted || (args > wanted && !pattern.anyRest)) return false;

    // FNM_PATHNAME: in "/usr/bin/*" the star stays within one directory, as in a shell.
    const std::string prog(pattern.programIsPath ? program : baseName(program));
    if (::fnmatch(pattern.words[0].c_str(), prog.c_str(),
                  pattern.programIsPath ? FNM_PATHNAME : 0) != 0)
        return false;
    for (std::size_t i = 1; i <= wanted; ++i) {
        if (::fnmatch(pattern.words[i].c_str(), argv[i].c_str(), 0) != 0) return false;
    }
    return true;
}

std::string quoteCommandWord(std::string_view word)
{
    const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
    });
    if (safe) return std::string(word);
    std::string out = "'";
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string quoteCommandLine(const std::vector<std::string>& argv)
{
    std::string out;
    for (const std::string& word : argv)
        out += (out.empty() ? "" : " ") + quoteCommandWord(word);
    return out;
}

std::string describeCommandRule(std::size_t index, const CommandRule& rule)
{
    return "commands.rules[" + std::to_string(index) + "] (" + std::string(toString(rule.action)) +
           ' ' + jsonQuoted(rule.match) + (rule.comment.empty() ? "" : ": " + rule.comment) + ")";
}

CommandMatcher::CommandMatcher(const CommandPolicy& policy) : m_policy(policy)
{
    for (const CommandRule& rule : m_policy.rules) {
        auto pattern = parseCommandPattern(rule.match);
        m_compiled.push_back(pattern ? Compiled{std::move(*pattern), true} : Compiled{});
    }
}

CommandDecision CommandMatcher::decide(std::string_view program,
                                       const std::vector<std::string>& argv) const
{
    for (std::size_t i = 0; i < m_compiled.size(); ++i) {
        if (m_compiled[i].valid && matchesCommand(m_compiled[i].pattern, program, argv))
            return {m_policy.rules[i].action, describeCommandRule(i, m_policy.rules[i]),
                    static_cast<int>(i)};
    }
    return {m_policy.defaultAction, "commands.default", -1};
}

CommandDecision decideCommand(const CommandPolicy& policy, const std::string& program,
                              const std::vector<std::string>& argv)
{
    return CommandMatcher(policy).decide(program, argv);
}

} // namespace sb
