#include "workspace/SessionSnapshots.h"

#include <unistd.h>

namespace sb {
namespace {

// The session, locked while its layer is read or replaced.
struct Held {
    SessionInfo session;
    UniqueFd lock;
};

Result<Held> hold(const std::string& id, bool ownLayer = true)
{
    auto session = loadSession(id);
    if (!session) return session.error();
    if (sessionIsLive(*session))
        return inputError("session " + id + " is running: stop it first (sandbench-cli stop " + id +
                          ")");
    // Its layer went on in a resumed session: that one's changes are the ones to keep.
    if (ownLayer && !session->continuedIn.empty())
        return inputError("the changes of session " + id + " went on in session " +
                          session->continuedIn + ": use that one");
    auto lock = lockSession(*session);
    if (!lock) return lock.error();
    return Held{std::move(*session), std::move(*lock)};
}

} // namespace

std::string nextSnapshotName(const SessionInfo& session)
{
    auto taken = listSnapshots(session.directory());
    for (std::size_t n = (taken ? taken->size() : 0) + 1;; ++n) {
        std::string name = "snapshot-" + std::to_string(n);
        if (!findSnapshot(session.directory(), name)) return name;
    }
}

Result<SnapshotInfo> snapshotStoppedSession(const std::string& id, std::string name)
{
    auto held = hold(id);
    if (!held) return held.error();
    if (name.empty()) name = nextSnapshotName(held->session);
    return takeSnapshot(held->session.directory(), held->session.upperDir(), name);
}

Status restoreStoppedSession(const std::string& id, const std::string& name)
{
    auto held = hold(id);
    if (!held) return held.error();
    return restoreSnapshot(held->session.directory(), held->session.upperDir(), name);
}

Result<ForkedSession> forkStoppedSession(const std::string& id, const std::string& snapshot,
                                         const std::string& newId)
{
    // A snapshot of a session whose changes went on elsewhere is still its own.
    auto held = hold(id, snapshot.empty());
    if (!held) return held.error();
    const SessionInfo& from = held->session;
    std::filesystem::path layer = from.upperDir();
    if (!snapshot.empty()) {
        auto found = findSnapshot(from.directory(), snapshot);
        if (!found) return found.error();
        layer = found->upper;
    }
    if (auto e = checkNewSessionId(newId)) return *e;
    auto made = createSession(from.project, from.command, newId);
    if (!made) return made.error();
    ForkedSession fork{*made, {}};
    // Its own layer is the copy: the empty one made with the folder goes first.
    Status copied = ::rmdir(fork.session.upperDir().c_str()) == 0
                        ? copyLayer(layer, fork.session.upperDir(), fork.stats)
                        : sysError("empty the new session's layer");
    fork.session.state = SessionState::Ended;
    fork.session.endedNs = fork.session.startedNs;
    fork.session.exitStatus = 0;
    fork.session.changesSinceNs = from.changesBaseNs();
    fork.session.forkedFrom = from.id + (snapshot.empty() ? "" : "@" + snapshot);
    if (auto e = saveSession(fork.session)) return *e;
    if (copied) return copied->within("fork " + from.id);
    return fork;
}

} // namespace sb
