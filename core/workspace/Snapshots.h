// Snapshots of a session's layer of changes: sessions/ID/snapshots/NAME/ holds a copy of upper/
// (and snapshot.json). Only the layer is copied, never the project: a snapshot costs what the
// session changed, whatever the project's size. Files are cloned (FICLONE) where the file
// system shares blocks, copied otherwise; overlayfs's whiteouts and opaque folders are kept.
// These work on a session that is not running (the caller holds its lock).
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sb {

struct LayerCopyStats {
    std::uint64_t entries = 0; // files, folders, links and whiteouts
    std::uint64_t bytes = 0;
    std::uint64_t cloned = 0; // files whose blocks are shared, not copied
};

// Copies the layer `from` into `to`, which must not exist, without following links.
Status copyLayer(const std::filesystem::path& from, const std::filesystem::path& to,
                 LayerCopyStats& stats);

struct SnapshotInfo {
    std::string name;
    std::int64_t takenUnixMs = 0;
    LayerCopyStats stats;
    std::filesystem::path upper; // its copy of the layer
};

// A snapshot name: 1-64 of [A-Za-z0-9._-], not starting with '.'.
Status checkSnapshotName(const std::string& name);

// Copies `upper` (a session's layer) as the snapshot `name` of `sessionDir`.
Result<SnapshotInfo> takeSnapshot(const std::filesystem::path& sessionDir,
                                  const std::filesystem::path& upper, const std::string& name);
// The session's snapshots, oldest first.
Result<std::vector<SnapshotInfo>> listSnapshots(const std::filesystem::path& sessionDir);
Result<SnapshotInfo> findSnapshot(const std::filesystem::path& sessionDir, const std::string& name);
// Makes `upper` the snapshot's layer again: a copy of it replaces the layer, whose changes
// since are gone.
Status restoreSnapshot(const std::filesystem::path& sessionDir, const std::filesystem::path& upper,
                       const std::string& name);

} // namespace sb
