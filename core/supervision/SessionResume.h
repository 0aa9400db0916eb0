// Resuming (run/start --resume OLD): a new session takes over the layer of changes of an ended
// one, to go on where it stopped. The new session has an id of its own (its recording is its
// own, saying whom it continues); the ended one keeps its recording and is left without
// changes, pointing at the new one. The changes keep their first session's start as the time
// since which a real file changed is a conflict.
#pragma once

#include "base/Error.h"
#include "base/Session.h"

#include <filesystem>
#include <string>

namespace sb {

// The ended session whose changes a new session over `workspace` (empty: the ended one's
// project) takes over: `id`, or the session its changes went on in (the current one of its
// chain, base/SessionChain.h); else why not: unknown, still running, another project.
Result<SessionInfo> checkResumable(const std::string& id, const std::filesystem::path& workspace);

// Moves `from`'s layer into `to` (a session just created, its layer still empty), under
// `from`'s lock, and records the link in both. `from` is the one checkResumable() gave.
Status takeOverChanges(SessionInfo& from, SessionInfo& to);

} // namespace sb
