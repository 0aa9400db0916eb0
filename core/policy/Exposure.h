// From the policy's filesystem.expose entries to the concrete host paths a sandbox mounts, and the
// sensitive paths it must hide beneath them. Rules: docs/policy.md, "Exposing host paths".
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"

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
struct ExposurePlan {
    std::vector<ResolvedExposure> mounts;
    std::vector<std::filesystem::path> masks;
};

// Secrets under the home directory (relative to it) that glob expansion never yields and that are
// masked when an exposed directory contains them. Naming one explicitly is the only way in.
std::span<const std::string_view> sensitiveHomePaths();

// The checks that need no filesystem: "~", "~/…" or absolute; no "..", no NUL; a glob only in the
// last component; not "/", /proc, /sys or /dev. The parser runs it too, to point at the line.
Status checkExposeSpelling(std::string_view path);

// Expands "~" to `home` and globs against the real filesystem; `home` must be absolute.
Result<ExposurePlan> planExposures(const FilesystemPolicy& policy,
                                   const std::filesystem::path& home);

} // namespace sb
