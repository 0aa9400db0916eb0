// Snapshots of a session by its id, for the command line and the window: the session is locked
// against a supervisor, an apply or another snapshot while its layer is read or replaced, and
// refused while it runs (a running session's snapshot is its supervisor's to take, frozen:
// supervision/). Built on Snapshots.h.
//
// A lasting workspace (sessions resumed one from another, base/SessionChain.h) has one set of
// snapshots: any id of the chain names it, a snapshot is taken of and restored into the chain's
// current session, and a name is found in whichever session of the chain took it.
#pragma once

#include "base/Error.h"
#include "base/Session.h"
#include "base/SessionChain.h"
#include "workspace/Snapshots.h"

#include <string>
#include <vector>

namespace sb {

// Snapshot `name` (empty: snapshot-N, the next free N) of a stopped session's chain: of its
// current session. A name the chain has already is refused.
Result<SnapshotInfo> snapshotStoppedSession(const std::string& id, std::string name);
// The chain's current session gets the changes of its snapshot `name` again.
Status restoreStoppedSession(const std::string& id, const std::string& name);

struct ForkedSession {
    SessionInfo session; // ended, with the copied changes, ready for run --resume
    LayerCopyStats stats;
};
// A new session `newId` with a copy of the changes of session `id`'s chain, or of its snapshot
// `snapshot`.
Result<ForkedSession> forkStoppedSession(const std::string& id, const std::string& snapshot,
                                         const std::string& newId);

// A snapshot of a chain and the session that took it.
struct ChainSnapshot {
    SnapshotInfo info;
    SessionInfo session;
};
// The snapshots of every session of the chain: the first session's first, each one's oldest
// first.
std::vector<ChainSnapshot> listChainSnapshots(const SessionChain& chain);
// The snapshot `name` of the chain, in the latest session that has one of that name.
Result<ChainSnapshot> findChainSnapshot(const SessionChain& chain, const std::string& name);

// The next free default name, snapshot-N, in the session's whole chain.
std::string nextSnapshotName(const SessionInfo& session);

} // namespace sb
