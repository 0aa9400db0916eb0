// The reviewable workspace: what the agent changed in the session's overlay upper layer, as a
// diff against the real project, applied safely or discarded. See docs/workspace.md.
//
// The overlay's layers must not change while it is mounted (the kernel leaves that undefined),
// so applyChanges and discardChanges are for sessions that are not running: check with
// checkWorkspaceEditable first. listChanges and unifiedDiff only read and work at any time.
#pragma once

#include "base/Error.h"
#include "policy/RunLater.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sb {

struct SessionInfo;

enum class ChangeKind { Added, Modified, Deleted };
enum class EntryType { File, Directory, Symlink, Other };

struct Change {
    std::string path; // relative to the project, '/'-separated
    ChangeKind kind = ChangeKind::Modified;
    EntryType type = EntryType::File; // the session's entry; for Deleted, the real one
    std::uint64_t size = 0;           // bytes of a file, length of a symlink's target, else 0
    // A file that runs later (policy/RunLater.h), held back at apply; set by markRunLater.
    std::optional<RunLaterMatch> runLater;
};

// Every change in `upper` against `project`, sorted by path (a directory before its contents).
// Costs O(entries in upper); the only part of the project it lists is the real counterpart of
// a directory the agent replaced wholesale (an opaque directory), whose entries are deletions.
Result<std::vector<Change>> listChanges(const std::filesystem::path& upper,
                                        const std::filesystem::path& project);

// Removes every file request's temporary file (base/WriteTemporary.h) from `upper`: what a
// killed upload or exec helper left. The supervisor calls it when a session starts and ends;
// listChanges never shows them anyway.
Status removeWriteTemporaries(const std::filesystem::path& upper);

// The list of files that run later a session enforces: the one it started with (saved in its
// folder), or the built-in list for a session from before there was one.
Result<RunLaterRules> sessionRunLaterRules(const SessionInfo& session);
Result<RunLaterRules> sessionRunLaterRules(const std::filesystem::path& sessionDirectory);
// Saves the list for sessionRunLaterRules (at start, by the supervisor); the built-in list alone
// needs no file.
Status saveSessionRunLaterRules(const SessionInfo& session, const RunLaterRules& rules);

// Sets Change::runLater on the added and modified entries the rules match (a deletion runs
// nothing). `home` for the home entries, when the project is the home folder or inside it.
void markRunLater(std::vector<Change>& changes, const RunLaterRules& rules,
                  const std::filesystem::path& project, const std::filesystem::path& home);

// `diff -u` text for the given changes (empty = all; a directory selects everything under it),
// labelled a/PATH and b/PATH, /dev/null for an added or deleted side. Symlinks show their
// targets; binary files read "Binary files a/x and b/x differ". With `runLater`, a file that
// runs later gets a line "!! PATH runs later (REASON): apply holds it back" before its diff.
Result<std::string> unifiedDiff(const std::filesystem::path& upper,
                                const std::filesystem::path& project,
                                const std::vector<std::string>& paths,
                                const RunLaterRules* runLater = nullptr,
                                const std::filesystem::path& home = {});

struct ApplyIssue {
    // What a conflict is, for a window to say in its own language; `reason` says it in English
    // (the CLI's text). `subject` is the path inside a folder that changed or could not be read.
    enum class Why {
        Other,
        RemovedInProject,       // modified by the session, removed from the project meanwhile
        CreatedInProject,       // added by the session, created in the project meanwhile
        ChangedInProject,       // changed in the project since the session started
        ChangedInsideInProject, // `subject`, inside a folder the change replaces, is newer
        UnreadableInProject,    // `subject` in the project could not be read
    };
    ApplyIssue() = default;
    ApplyIssue(std::string path_, std::string reason_, Why why_ = Why::Other,
               std::string subject_ = {})
        : path(std::move(path_)), reason(std::move(reason_)), why(why_),
          subject(std::move(subject_))
    {
    }
    std::string path;
    std::string reason;
    Why why = Why::Other;
    std::string subject;
};

struct ApplyReport {
    std::vector<std::string> applied;
    // Files that run later, not written: the reason is what they can run (RunLater.h).
    std::vector<ApplyIssue> held;
    std::vector<ApplyIssue> conflicts; // the project changed under the session; force overrides
    std::vector<ApplyIssue> skipped;   // cannot or must not be applied (special files, errors)
};

struct ApplyOptions {
    std::vector<std::string> paths;  // empty = all; a directory means everything under it
    bool force = false;              // overwrite conflicting real entries anyway
    std::int64_t sessionStartNs = 0; // CLOCK_REALTIME; real entries changed later conflict
    // Only check: the report says what would be applied and what conflicts; nothing is written
    // and `upper` stays as it is, so this is fine on a running session.
    bool dryRun = false;
    // Files that run later are held back (ApplyReport::held) unless `includeRunLater` is set,
    // which needs `paths`: each held file is applied only when the user named it (or its
    // folder). Unset `runLater`: the built-in list; `home` defaults to homeDirectory().
    std::optional<RunLaterRules> runLater;
    std::filesystem::path home;
    bool includeRunLater = false;
    // Called after each entry with (entries done, entries selected), on the applying thread.
    std::function<void(std::size_t, std::size_t)> progress = nullptr;
};

// Writes the selected changes into the project and removes them from `upper`. Per-entry
// problems land in the report; only bad input or an unusable upper/project is an error.
Result<ApplyReport> applyChanges(const std::filesystem::path& upper,
                                 const std::filesystem::path& project, const ApplyOptions& options);

// Removes the selected entries (empty = all) from `upper`, so the session's view of them falls
// back to the real project. Returns the paths removed. Works without the project: an entry
// hidden by an opaque directory comes back only by discarding that directory.
Result<std::vector<std::string>> discardChanges(const std::filesystem::path& upper,
                                                const std::vector<std::string>& paths);

// One side of a change for a viewer.
struct ChangeSide {
    bool exists = false;
    EntryType type = EntryType::File;
    std::uint64_t size = 0; // bytes of a file, length of a symlink's target
    std::string content;    // a file's first maxBytes bytes, a symlink's target; else empty
    bool truncated = false; // the file holds more than maxBytes
};

struct ChangeContent {
    ChangeSide before; // the real project's entry
    ChangeSide after;  // the entry as the session sees it (whiteouts and opaque dirs honoured)
};

// Both sides of one path, each read beneath its root without following symlinks. `path` may
// be any path of the session's view, also one inside a deleted or added directory; a path
// the session did not change reads the same on both sides. Only reads: fine while running.
Result<ChangeContent> readChange(const std::filesystem::path& upper,
                                 const std::filesystem::path& project, const std::string& path,
                                 std::size_t maxBytes);

// An error (ErrorCode::Conflict) while a supervisor still runs the session: its overlay is
// mounted and editing its layers underneath it would corrupt the agent's view.
Status checkWorkspaceEditable(const SessionInfo& session);

} // namespace sb
