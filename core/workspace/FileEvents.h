// Live file events of a running session, the pure part: which change a path shows against the
// real project (added, modified, deleted), and the batching that turns a stream of inotify
// notes into at most one event per path per short window, with a cap per window and an
// "N more" summary for the rest. WorkspaceWatch feeds it from the overlay's upper layer;
// docs/protocol.md ("File events") documents the events.
#pragma once

#include "workspace/Workspace.h"

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sb {

// One path as the two sides see it now.
struct PathState {
    std::optional<EntryType> view; // the session's view (upper over real); nullopt: absent
    std::optional<EntryType> real; // the real project (the overlay's lower layer)
    bool upperEntry = false;       // the upper layer holds the entry itself (not a whiteout)
};

// What a path differs by from the real project: nullopt when it does not (untouched, a folder
// that only holds changes, or a file the agent made and removed again).
std::optional<ChangeKind> netChange(const PathState& state);

struct FileDecision {
    std::optional<ChangeKind> report; // the event to send, if any
    std::optional<ChangeKind> known;  // what the path is remembered as from now on
};

// Whether a path noted in this window gives an event, given what was last reported for it.
// A modified file is reported each window it is written in; an added one once (it stays new);
// a file the agent made and removed again is reported deleted when its addition was reported.
// `onlyIfChanged` (after a rescan, when the notes themselves were lost): only a different
// state is reported.
FileDecision decideFileEvent(const PathState& state, std::optional<ChangeKind> known,
                             bool onlyIfChanged = false);

const char* changeName(ChangeKind kind);   // "added", "modified", "deleted"
const char* entryTypeName(EntryType type); // "file", "directory", "symlink", "other"

// The deepest folder holding every path ("" = the workspace's root).
std::string commonFolder(const std::vector<std::string>& paths);

struct FileBatchOptions {
    long long windowMs = 250;     // a path's notes within this time make one event
    long long maxWindowMs = 2000; // the window doubles up to this while each one overflows
    std::size_t maxEvents = 50;   // per window; the rest become one "more" event
    // Why a path runs later (policy/RunLater.h), or nothing: such a file's event says so
    // ("run_later": reason) and is never folded into a "more" event.
    std::function<std::optional<std::string>(const std::string& path, bool directory)> runLater;
};

class FileEventBatcher {
  public:
    using Lookup = std::function<PathState(const std::string&)>;

    explicit FileEventBatcher(FileBatchOptions options = {}) : m_options(options) {}

    // Something happened at `path` (workspace-relative, '/'-separated) at `nowMs`.
    void note(const std::string& path, long long nowMs, bool onlyIfChanged = false);
    // `from` was renamed to `to` (both inside the workspace).
    void noteRename(const std::string& from, const std::string& to, long long nowMs);
    // Every path reported so far, to be looked at again (after lost notes).
    void noteKnown(long long nowMs);

    bool empty() const { return m_pending.empty(); }
    // When the open window ends and flush() is due; -1 when nothing is pending.
    long long dueMs() const;
    long long windowMs() const { return m_window; }

    // The window's events ({"kind": "file", …}, without a time), looked up now, in the order
    // their paths were first noted.
    std::vector<nlohmann::json> flush(const Lookup& lookup);

  private:
    struct Pending {
        std::size_t order = 0;
        bool onlyIfChanged = true;
    };
    FileBatchOptions m_options;
    long long m_window = m_options.windowMs;
    long long m_windowStart = -1;
    std::unordered_map<std::string, Pending> m_pending;
    std::vector<std::pair<std::string, std::string>> m_renames;
    std::unordered_map<std::string, ChangeKind> m_known;
};

} // namespace sb
