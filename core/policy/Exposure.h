// From the policy's filesystem.expose entries to the concrete host paths a sandbox mounts, and the
// sensitive paths it must hide beneath them. Rules: docs/policy.md, "Exposing host paths".
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"
#include "policy/RunLater.h"

#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace sb {

struct ResolvedExposure {
    std::filesystem::path path; // absolute, lexically normal; mounted at the same path inside
    AccessMode mode = AccessMode::ReadOnly;
    std::size_t entry = 0; // index in FilesystemPolicy::expose, for messages
};

// Mounts are sorted so that a parent comes before anything inside it. Apply every mount, then
// every mask (an empty read-only file or directory over the path). No mount lies inside a mask:
// the planner refuses such a policy rather than let the order decide what the agent sees.
// Files that run later inside read-write mounts (RunLater.h), each bound over itself after the
// mounts: an existing one read-only; for an absent one, its nearest existing folder read-only
// (nothing new can be made in it) and that folder's other entries writable again.
struct Protection {
    std::filesystem::path path;
    AccessMode mode = AccessMode::ReadOnly;
};

struct ExposurePlan {
    std::vector<ResolvedExposure> mounts;
    std::vector<Protection> protections; // parents before children, after every mount
    std::vector<std::filesystem::path> masks;
    // Folders between a read-write mount and a mask inside it, each bound over itself (writable,
    // as before) with the mounts, parents first: a mount point cannot be renamed or removed, so
    // the agent cannot move a masked folder's parent aside on the host and put a folder of its
    // own making where Sandbench (or another program) will look for the real one.
    std::vector<std::filesystem::path> pins;
    // What the protections keep, for the session's start line: "~/.claude/settings.json
    // (read-only)", "~/.claude/hooks (cannot be created)".
    std::vector<std::string> protectedNotes;
};

// Secrets under the home directory (relative to it) that glob expansion never yields and that are
// masked when an exposed directory contains them. Naming one explicitly is the only way in.
std::span<const std::string_view> sensitiveHomePaths();

// The checks that need no filesystem: "~", "~/…" or absolute; no "..", no NUL; a glob only in the
// last component; not "/", /proc, /sys or /dev. The parser runs it too, to point at the line.
Status checkExposeSpelling(std::string_view path);

// The secrets of sensitiveHomePaths() and the folders of `own` (as for planExposures) that lie
// inside the project folder (a project that is the home folder, or holds some of it), to mask
// over its overlay like those inside an exposure. An error (naming the secret) when the project
// lies inside a secret: nothing of it may be shown. A project inside one of Sandbench's own
// folders is one Sandbench made (an E2B sandbox's workspace): allowed, it shows itself alone.
Result<std::vector<std::filesystem::path>>
planProjectMasks(const std::filesystem::path& project, const std::filesystem::path& home,
                 const std::vector<std::filesystem::path>& own = {});

// Expands "~" to `home` and globs against the real filesystem; `home` must be absolute. The
// files of `runLater` inside read-write mounts are protected (ExposurePlan::protections).
// `own` are Sandbench's own folders (Paths.h ownDirectories(), existing): a policy that names one
// or a path inside one is refused, a glob never matches them, and a mount that reveals one
// masks it, even where the policy names a sensitive path that would otherwise be its way in.
Result<ExposurePlan> planExposures(const FilesystemPolicy& policy,
                                   const std::filesystem::path& home,
                                   const RunLaterRules& runLater = RunLaterRules(),
                                   const std::vector<std::filesystem::path>& own = {});

} // namespace sb
