#include "workspace/SessionSnapshots.h"

#include <unistd.h>

namespace sb {
namespace {

// The chain's current session, locked while its layer is read or replaced.
struct Held {
    SessionChain chain;
    UniqueFd lock;
    const SessionInfo& session() const { return chain.current(); }
};

Result<Held> hold(const std::string& id)
{
    auto chain = loadSessionChain(id);
    if (!chain) return chain.error();
    const SessionInfo& current = chain->current();
    if (sessionIsLive(current))
        return inputError("session " + current.id +
                          " is running: stop it first (sandbench-cli stop " + current.id + ")");
    auto lock = lockSession(current);
    if (!lock) return lock.error();
    return Held{std::move(*chain), std::move(*lock)};
}

} // namespace

std::vector<ChainSnapshot> listChainSnapshots(const SessionChain& chain)
{
    std::vector<ChainSnapshot> out;
    for (const SessionInfo& session : chain.sessions)
        if (auto snapshots = listSnapshots(session.directory()))
            for (auto& snapshot : *snapshots)
                out.push_back({std::move(snapshot), session});
    return out;
}

Result<ChainSnapshot> findChainSnapshot(const SessionChain& chain, const std::string& name)
{
    if (auto e = checkSnapshotName(name)) return *e;
    for (auto it = chain.sessions.rbegin(); it != chain.sessions.rend(); ++it)
        if (auto found = findSnapshot(it->directory(), name)) return ChainSnapshot{*found, *it};
    const std::string named = chain.sessions[chain.named].id;
    return Error{ErrorCode::NotFound, 0,
                 "no snapshot '" + name + "' of session " + named +
                     (chain.sessions.size() > 1 ? " or the sessions it resumed or that resumed it"
                                                : std::string()) +
                     " (sandbench-cli snapshots " + named + " lists them)"};
}

std::string nextSnapshotName(const SessionInfo& session)
{
    auto chain = loadSessionChain(session.id);
    const SessionChain whole = chain ? std::move(*chain) : SessionChain{{session}, 0};
    for (std::size_t n = listChainSnapshots(whole).size() + 1;; ++n) {
        std::string name = "snapshot-" + std::to_string(n);
        if (!findChainSnapshot(whole, name)) return name;
    }
}

Result<SnapshotInfo> snapshotStoppedSession(const std::string& id, std::string name)
{
    auto held = hold(id);
    if (!held) return held.error();
    if (name.empty()) name = nextSnapshotName(held->session());
    if (auto e = checkSnapshotName(name)) return *e;
    if (auto taken = findChainSnapshot(held->chain, name))
        return inputError("the session has a snapshot named '" + name + "' already" +
                          (taken->session.id != held->session().id
                               ? " (taken in session " + taken->session.id + ", which it resumes)"
                               : std::string()));
    return takeSnapshot(held->session().directory(), held->session().upperDir(), name);
}

Status restoreStoppedSession(const std::string& id, const std::string& name)
{
    auto held = hold(id);
    if (!held) return held.error();
    auto found = findChainSnapshot(held->chain, name);
    if (!found) return found.error();
    return restoreSnapshot(found->session.directory(), held->session().upperDir(), name);
}

Result<ForkedSession> forkStoppedSession(const std::string& id, const std::string& snapshot,
                                         const std::string& newId)
{
    // A snapshot is whole once taken: forking one needs no hold on the layer, which may run.
    std::optional<Held> held;
    std::optional<ChainSnapshot> found;
    if (snapshot.empty()) {
        auto h = hold(id);
        if (!h) return h.error();
        held = std::move(*h);
    } else {
        auto chain = loadSessionChain(id);
        if (!chain) return chain.error();
        auto f = findChainSnapshot(*chain, snapshot);
        if (!f) return f.error();
        found = std::move(*f);
    }
    const SessionInfo& from = held ? held->session() : found->session;
    const std::filesystem::path layer = held ? from.upperDir() : found->info.upper;
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
