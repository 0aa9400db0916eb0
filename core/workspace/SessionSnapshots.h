// Snapshots of a session by its id, for the command line and the window: the session is locked
// against a supervisor, an apply or another snapshot while its layer is read or replaced, and
// refused while it runs (a running session's snapshot is its supervisor's to take, frozen:
// supervision/). Built on Snapshots.h.
#pragma once

#include "base/Error.h"
#include "base/Session.h"
#include "workspace/Snapshots.h"

#include <string>

namespace sb {

// Snapshot `name` (empty: snapshot-N, the next free N) of a stopped session.
Result<SnapshotInfo> snapshotStoppedSession(const std::string& id, std::string name);
// Its changes become those of its snapshot `name` again.
Status restoreStoppedSession(const std::string& id, const std::string& name);

struct ForkedSession {
    SessionInfo session; // ended, with the copied changes, ready for run --resume
    LayerCopyStats stats;
};
// A new session `newId` with a copy of session `id`'s changes, or of its snapshot `snapshot`.
Result<ForkedSession> forkStoppedSession(const std::string& id, const std::string& snapshot,
                                         const std::string& newId);

// The next free default name, snapshot-N.
std::string nextSnapshotName(const SessionInfo& session);

} // namespace sb
