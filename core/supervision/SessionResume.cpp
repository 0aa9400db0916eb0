#include "supervision/SessionResume.h"

#include "base/SessionChain.h"
#include "workspace/Workspace.h"

#include <cerrno>
#include <cstdio>
#include <sys/stat.h>

namespace sb {
namespace fs = std::filesystem;

Result<SessionInfo> checkResumable(const std::string& id, const fs::path& workspace)
{
    // Any id of a lasting workspace names it: the session to resume is the one its changes are
    // in now, the chain's current one.
    auto chain = loadSessionChain(id);
    if (!chain) return chain.error().within("resume");
    SessionInfo old = chain->current();
    const std::string named =
        "session " + old.id +
        (chain->followed() ? " (where the changes of " + id + " went on)" : "");
    if (sessionIsLive(old)) return inputError("cannot resume " + named + ": it is still running");
    std::error_code ec;
    if (!fs::is_directory(old.upperDir(), ec))
        return inputError("cannot resume " + named + ": it has no layer of changes (" +
                          old.upperDir().string() + ")");
    if (!workspace.empty()) {
        const fs::path wanted = fs::weakly_canonical(workspace, ec);
        if (wanted != old.project)
            return inputError("cannot resume " + named + " over " + workspace.string() +
                              ": its changes are to " + old.project.string());
    }
    return old;
}

Status takeOverChanges(SessionInfo& from, SessionInfo& to)
{
    // No apply, discard or supervisor may use the layer while it moves.
    auto lock = lockSession(from);
    if (!lock) return lock.error().within("resume " + from.id);
    // Another resume may have taken the changes since checkResumable() looked.
    auto now = loadSession(from.id);
    if (!now) return now.error().within("resume");
    if (!now->continuedIn.empty())
        return inputError("cannot resume session " + from.id + ": its changes went on in session " +
                          now->continuedIn + " meanwhile");
    // The new session's own layer is empty: the rename replaces it.
    if (::rename(from.upperDir().c_str(), to.upperDir().c_str()) != 0)
        return sysError("move the changes of " + from.id + " to " + to.id);
    if (::mkdir(from.upperDir().c_str(), 0700) != 0)
        return sysError("leave an empty layer in " + from.id);
    // A supervisor that died mid-upload left its temporary files: not the new session's.
    (void)removeWriteTemporaries(to.upperDir());
    to.resumedFrom = from.id;
    to.changesSinceNs = from.changesBaseNs();
    from.continuedIn = to.id;
    if (auto e = saveSession(from)) return e;
    return saveSession(to);
}

} // namespace sb
