#include "policy/RunLater.h"

#include <algorithm>
#include <cctype>
#include <fnmatch.h>
#include <fstream>

namespace fs = std::filesystem;

namespace sb {
namespace {

std::vector<std::string_view> components(std::string_view path)
{
    std::vector<std::string_view> out;
    while (!path.empty()) {
        std::size_t slash = path.find('/');
        std::string_view part = path.substr(0, slash);
        if (!part.empty()) out.push_back(part);
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return out;
}

bool componentMatches(std::string_view pattern, std::string_view name)
{
    // fnmatch needs NUL-terminated strings; components are short.
    return fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), 0) == 0;
}

// Pattern components against a prefix of the path's (the rest of the path lies beneath).
bool prefixMatches(std::span<const std::string_view> pattern,
                   std::span<const std::string_view> path)
{
    if (pattern.empty()) return true;
    if (pattern.front() == "**") {
        for (std::size_t skip = 0; skip <= path.size(); ++skip)
            if (prefixMatches(pattern.subspan(1), path.subspan(skip))) return true;
        return false;
    }
    if (path.empty() || !componentMatches(pattern.front(), path.front())) return false;
    return prefixMatches(pattern.subspan(1), path.subspan(1));
}

bool hasGlob(std::string_view s)
{
    return s.find_first_of("*?[") != std::string_view::npos;
}

std::string spelled(std::string_view pattern, RunLaterAnchor anchor)
{
    return (anchor == RunLaterAnchor::Home ? "~/" : "") + std::string(pattern);
}

std::string reasonOf(const RunLaterEntry& e)
{
    return std::string(e.tool) + ": " + std::string(e.reason);
}

std::string trim(std::string s)
{
    const char* space = " \t\r";
    s.erase(0, s.find_first_not_of(space));
    s.erase(s.find_last_not_of(space) + 1);
    return s;
}

// core.hooksPath from a git config file (the plain `key = value` form; includes are not
// followed). Empty when unset.
std::string hooksPathIn(const fs::path& config)
{
    std::ifstream in(config);
    std::string line, section, found;
    while (std::getline(in, line)) {
        line = trim(line);
        if (line.empty() || line[0] == '#' || line[0] == ';') continue;
        if (line[0] == '[') {
            section = line.substr(1, line.find(']') - 1);
            for (char& c : section)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            continue;
        }
        std::size_t eq = line.find('=');
        if (section != "core" || eq == std::string::npos) continue;
        std::string key = trim(line.substr(0, eq));
        for (char& c : key)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (key == "hookspath") found = trim(line.substr(eq + 1));
    }
    if (found.size() >= 2 && found.front() == '"' && found.back() == '"')
        found = found.substr(1, found.size() - 2);
    return found;
}

} // namespace

std::string spelledRunLater(const RunLaterEntry& entry)
{
    return spelled(entry.pattern, entry.anchor);
}

bool isBuiltinRunLater(std::string_view name)
{
    const auto all = builtinRunLater();
    return std::any_of(all.begin(), all.end(), [&](const RunLaterEntry& e) {
        return spelled(e.pattern, e.anchor) == name;
    });
}

bool runLaterPatternMatches(std::string_view pattern, std::string_view path)
{
    auto p = components(pattern), q = components(path);
    return prefixMatches(p, q);
}

Status checkRunLaterPattern(std::string_view pattern)
{
    if (pattern.empty()) return inputError("empty path (expected a path such as \"tools/hooks\")");
    if (pattern.find('\0') != std::string_view::npos)
        return inputError("the path contains a NUL character");
    std::string_view rest = pattern.starts_with("~/") ? pattern.substr(2) : pattern;
    if (rest.empty() || rest.front() == '/')
        return inputError("'" + std::string(pattern) +
                          "' is absolute (expected a path relative to the project, or \"~/…\")");
    if (rest.find("//") != std::string_view::npos || rest.back() == '/')
        return inputError("'" + std::string(pattern) + "' has an empty component");
    for (std::string_view part : components(rest))
        if (part == "." || part == "..")
            return inputError("'" + std::string(pattern) +
                              "' has a '.' or '..' component (expected a plain path)");
    return std::nullopt;
}

RunLaterRules::RunLaterRules()
{
    for (const RunLaterEntry& e : builtinRunLater())
        m_rules.push_back({std::string(e.pattern), e.anchor, reasonOf(e), e.exceptDirectory,
                           std::string(e.harmless)});
}

Result<RunLaterRules> RunLaterRules::make(const RunLaterPolicy& policy)
{
    RunLaterRules rules;
    rules.m_policy = policy;
    for (std::size_t i = 0; i < policy.unprotect.size(); ++i) {
        const RunLaterUnprotect& u = policy.unprotect[i];
        auto it = std::find_if(rules.m_rules.begin(), rules.m_rules.end(), [&](const Rule& r) {
            return spelled(r.pattern, r.anchor) == u.path;
        });
        if (it == rules.m_rules.end())
            return inputError("at /filesystem/run_later/unprotect/" + std::to_string(i) + ": '" +
                              u.path +
                              "' is no built-in entry (expected one spelled as in "
                              "docs/workspace.md, \"Files that run later\")");
        rules.m_rules.erase(it);
        rules.m_unprotected.push_back(u);
    }
    for (std::size_t i = 0; i < policy.add.size(); ++i) {
        const RunLaterAddition& a = policy.add[i];
        if (auto e = checkRunLaterPattern(a.path))
            return inputError("at /filesystem/run_later/add/" + std::to_string(i) + ": " +
                              e->message);
        const bool home = a.path.starts_with("~/");
        rules.m_rules.push_back({home ? a.path.substr(2) : a.path,
                                 home ? RunLaterAnchor::Home : RunLaterAnchor::Project,
                                 "the policy: " + (a.reason.empty() ? "listed" : a.reason),
                                 false,
                                 {}});
    }
    return rules;
}

void RunLaterRules::addProjectConfiguration(const fs::path& project)
{
    std::string hooks = hooksPathIn(project / ".git" / "config");
    if (hooks.empty()) return;
    fs::path p = fs::path(hooks).lexically_normal();
    if (p.is_absolute()) p = p.lexically_relative(project);
    std::string rel = p.generic_string();
    if (rel.empty() || rel == "." || rel.starts_with("..")) return; // outside: not ours to hold
    addProjectPath(rel, "git: core.hooksPath of this repository: hooks run on commit and more");
}

void RunLaterRules::addProjectPath(std::string path, std::string reason)
{
    m_projectPaths.emplace_back(path, reason);
    m_rules.push_back({std::move(path), RunLaterAnchor::Project, std::move(reason), false, {}});
}

std::optional<RunLaterMatch> RunLaterRules::matchAnchored(std::string_view path, bool isDirectory,
                                                          RunLaterAnchor anchor) const
{
    // A folder runs nothing itself: what is in it is judged one by one (a hooks folder of
    // git's samples is harmless, a hook in it is not).
    if (isDirectory) return std::nullopt;
    auto parts = components(path);
    for (const Rule& r : m_rules) {
        if (r.anchor != anchor) continue;
        auto pattern = components(r.pattern);
        // Project entries apply in every folder of the project (nested repositories, monorepos);
        // home entries only at the top of the home folder.
        const std::size_t starts = anchor == RunLaterAnchor::Project ? parts.size() : 1;
        for (std::size_t start = 0; start < starts; ++start) {
            std::span<const std::string_view> rest(parts.data() + start, parts.size() - start);
            if (!prefixMatches(pattern, rest)) continue;
            // `.git` as a file or link; a .git folder's own entries are judged one by one.
            if (r.exceptDirectory && pattern.size() < rest.size()) continue;
            if (!r.harmless.empty() && rest.size() > pattern.size() &&
                componentMatches(r.harmless, rest.back()))
                continue;
            return RunLaterMatch{spelled(r.pattern, r.anchor), r.reason};
        }
    }
    return std::nullopt;
}

std::optional<RunLaterMatch> RunLaterRules::match(std::string_view path, bool isDirectory,
                                                  const fs::path& project,
                                                  const fs::path& home) const
{
    if (auto m = matchAnchored(path, isDirectory, RunLaterAnchor::Project)) return m;
    const fs::path absolute = project / std::string(path);
    const fs::path rel = absolute.lexically_relative(home);
    if (rel.empty() || rel.begin()->string() == "..") return std::nullopt;
    return matchAnchored(rel.generic_string(), isDirectory, RunLaterAnchor::Home);
}

std::optional<RunLaterMatch> RunLaterRules::matchHome(std::string_view path, bool isDirectory) const
{
    return matchAnchored(path, isDirectory, RunLaterAnchor::Home);
}

std::vector<std::string> RunLaterRules::homePatterns() const
{
    std::vector<std::string> out;
    for (const Rule& r : m_rules)
        if (r.anchor == RunLaterAnchor::Home) out.push_back(r.pattern);
    return out;
}

std::vector<std::string> RunLaterRules::literalProjectPatterns() const
{
    std::vector<std::string> out;
    for (const Rule& r : m_rules)
        if (r.anchor == RunLaterAnchor::Project && !hasGlob(r.pattern) && !r.exceptDirectory)
            out.push_back(r.pattern);
    return out;
}

} // namespace sb
