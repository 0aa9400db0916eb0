// A lasting workspace: sessions that took over one another's layer of changes (run/start
// --resume OLD) are one chain, from the first session to the current one, which holds the
// changes (and may be running). Any id of the chain names the workspace: commands that act on
// its changes act on the current session, and its snapshots are found in every session of it.
#pragma once

#include "base/Error.h"
#include "base/Session.h"

#include <string>
#include <vector>

namespace sb {

struct SessionChain {
    std::vector<SessionInfo> sessions; // first to current, by resumedFrom / continuedIn
    std::size_t named = 0;             // the one the caller named

    const SessionInfo& current() const { return sessions.back(); }
    // The id named is not the current session's: its changes went on in a resumed one.
    bool followed() const { return named + 1 != sessions.size(); }
};

// The chain `id` belongs to (a session never resumed is a chain of one). NotFound when no
// session has that id. A link to a session that is gone (removed with `rm`) ends the chain
// there.
Result<SessionChain> loadSessionChain(const std::string& id);

} // namespace sb
