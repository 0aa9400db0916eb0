// Paths that run later: files an agent may write that the user's own tools run afterwards, on
// the host, outside any sandbox (git hooks, a repository's config, .envrc, editor tasks, CI
// definitions, package-manager configuration, shell start-up files, the agents' own settings…).
// Such a file is never applied by a plain `apply`, and inside a read-write exposure it is
// mounted read-only, or kept from being created. The list, with the reason for each entry, is
// docs/workspace.md, "Files that run later"; a test keeps the two in step.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// Bumped whenever built-in entries are added or removed; shown by `doctor` and in JSON output.
constexpr int kRunLaterListVersion = 2;

enum class RunLaterAnchor {
    Project, // relative to any folder of the project (a nested repository counts the same)
    Home,    // relative to the home folder
};

// One entry. A pattern is '/'-separated; each component is a glob (fnmatch: *, ?, [..]), "**"
// stands for any number of components. It matches the path it names and everything beneath it.
struct RunLaterEntry {
    std::string_view pattern;
    RunLaterAnchor anchor;
    std::string_view tool;        // who runs it: "git", "direnv", "VS Code", …
    std::string_view reason;      // what it can make run, for the user deciding
    bool exceptDirectory = false; // only when it is not a directory (`.git` as a file or link)
    // What inside it is harmless (a glob of the last component): git runs no `*.sample` hook.
    std::string_view harmless = {};
};

std::span<const RunLaterEntry> builtinRunLater();
// An entry's pattern as the policy and the docs spell it: "~/" before a home entry's.
std::string spelledRunLater(const RunLaterEntry& entry);
bool isBuiltinRunLater(std::string_view spelled);

// How a policy changes the list (`filesystem.run_later`): entries added, and built-in ones
// switched off, each with the reason the user gave (announced at start and recorded).
struct RunLaterAddition {
    std::string path; // a pattern; "~/…" is relative to the home folder, else to the project
    std::string reason;
};
struct RunLaterUnprotect {
    std::string path; // exactly a built-in pattern, "~/" before a home entry's
    std::string because;
};
struct RunLaterPolicy {
    std::vector<RunLaterAddition> add;
    std::vector<RunLaterUnprotect> unprotect;
};

// The spelling checks of one pattern, for the policy parser: relative (or "~/…"), no "." or
// ".." components, no empty ones, no NUL.
Status checkRunLaterPattern(std::string_view pattern);

struct RunLaterMatch {
    std::string pattern; // as listed ("~/" before a home entry's)
    std::string reason;  // "git runs it …"
};

// The list a session enforces: the built-in entries less the policy's `unprotect`, plus its
// `add`, plus what the project's own configuration names (git's core.hooksPath).
class RunLaterRules {
  public:
    // The built-in list alone.
    RunLaterRules();
    // Fails (naming the entry) on an `unprotect` that names no built-in entry.
    static Result<RunLaterRules> make(const RunLaterPolicy& policy);

    // Reads the project's .git/config for core.hooksPath and adds the folder it names when
    // that lies in the project (where the agent can write it).
    void addProjectConfiguration(const std::filesystem::path& project);
    // An exact path relative to the project (the session's own policy file, say).
    void addProjectPath(std::string path, std::string reason);

    // `path`: relative to `project`, '/'-separated. Home entries apply to the part of the
    // project inside `home` (a project that is the home folder, or inside it). A folder never
    // matches: it runs nothing itself, and what is in it is judged one by one.
    std::optional<RunLaterMatch> match(std::string_view path, bool isDirectory,
                                       const std::filesystem::path& project,
                                       const std::filesystem::path& home) const;
    // `path`: relative to the home folder.
    std::optional<RunLaterMatch> matchHome(std::string_view path, bool isDirectory) const;

    // What the list was made of beyond the built-in entries, to make it again later (a session
    // saves it at start; review and apply read it back).
    const RunLaterPolicy& policy() const { return m_policy; }
    const std::vector<std::pair<std::string, std::string>>& projectPaths() const
    {
        return m_projectPaths;
    }
    bool isBuiltinOnly() const
    {
        return m_policy.add.empty() && m_policy.unprotect.empty() && m_projectPaths.empty();
    }

    // Home entries and literal project entries (no glob), for exposures to protect.
    std::vector<std::string> homePatterns() const;
    std::vector<std::string> literalProjectPatterns() const;
    const std::vector<RunLaterUnprotect>& unprotected() const { return m_unprotected; }

  private:
    struct Rule {
        std::string pattern;
        RunLaterAnchor anchor;
        std::string reason;
        bool exceptDirectory;
        std::string harmless;
    };
    std::optional<RunLaterMatch> matchAnchored(std::string_view path, bool isDirectory,
                                               RunLaterAnchor anchor) const;
    std::vector<Rule> m_rules;
    RunLaterPolicy m_policy;
    std::vector<std::pair<std::string, std::string>> m_projectPaths; // path, reason
    std::vector<RunLaterUnprotect> m_unprotected;
};

// A '/'-separated glob against a '/'-separated path: true when the pattern matches the path or
// one of its ancestors (so a folder's pattern covers what is in it). Exposed for the tests.
bool runLaterPatternMatches(std::string_view pattern, std::string_view path);

} // namespace sb
