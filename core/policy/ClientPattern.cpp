#include "policy/ClientPattern.h"

#include <algorithm>
#include <fnmatch.h>

namespace sb {
namespace {

std::string_view baseName(std::string_view path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool matchesProgram(const std::string& pattern, bool isPath, const std::string& program)
{
    if (program.empty()) return false; // an unreadable executable is an unknown one
    const std::string subject(isPath ? std::string_view(program) : baseName(program));
    return ::fnmatch(pattern.c_str(), subject.c_str(), isPath ? FNM_PATHNAME : 0) == 0;
}

} // namespace

Status checkProgramPattern(std::string_view pattern)
{
    if (pattern.empty())
        return inputError("empty program (expected a path such as \"/usr/bin/ssh\" or a file "
                          "name such as \"ssh\")");
    for (char c : pattern)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return inputError("the program contains the control character " +
                              std::to_string(static_cast<unsigned char>(c)));
    if (pattern.find('/') != std::string_view::npos && pattern.front() != '/')
        return inputError("'" + std::string(pattern) +
                          "' is neither an absolute path nor a file name (expected a path such "
                          "as \"/usr/bin/ssh\" or a file name such as \"ssh\")");
    if (pattern.size() > 1 && pattern.back() == '/')
        return inputError("'" + std::string(pattern) +
                          "' names a folder (expected the program's path, such as "
                          "\"/usr/bin/ssh\")");
    return std::nullopt;
}

std::string programPatternFor(std::string_view path)
{
    std::string out;
    for (char c : path) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

Result<ClientPattern> ClientPattern::compile(const std::string& program, const std::string& command)
{
    ClientPattern out;
    if (!program.empty()) {
        if (auto e = checkProgramPattern(program)) return *e;
        out.m_program = program;
        out.m_programIsPath = program.find('/') != std::string::npos;
    }
    if (!command.empty()) {
        auto pattern = parseCommandPattern(command);
        if (!pattern) return pattern.error();
        out.m_command = std::move(*pattern);
    }
    return out;
}

bool ClientPattern::matches(const ProcessChain& chain) const
{
    if (!limited()) return true;
    if (chain.empty()) return false;
    if (!m_program.empty() && !matchesProgram(m_program, m_programIsPath, chain.front().program))
        return false;
    if (!m_command) return true;
    // A command may be the connecting process or one that started it: `git push` connects
    // through the ssh it runs, and a rule for "git *" is meant for that ssh.
    return std::any_of(chain.begin(), chain.end(), [this](const ProcessInfo& p) {
        return !p.program.empty() && matchesCommand(*m_command, p.program, p.argv);
    });
}

} // namespace sb
