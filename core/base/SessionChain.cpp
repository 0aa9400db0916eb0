#include "base/SessionChain.h"

#include <set>

namespace sb {

Result<SessionChain> loadSessionChain(const std::string& id)
{
    auto named = loadSession(id);
    if (!named) return named.error();
    SessionChain chain;
    chain.sessions.push_back(std::move(*named));
    // Each id once: a damaged session.json that links back cannot make the walk go round.
    std::set<std::string> seen = {id};
    for (;;) { // back to the first
        const SessionInfo& earliest = chain.sessions.front();
        if (earliest.resumedFrom.empty() || !seen.insert(earliest.resumedFrom).second) break;
        auto before = loadSession(earliest.resumedFrom);
        if (!before || before->continuedIn != earliest.id) break;
        chain.sessions.insert(chain.sessions.begin(), std::move(*before));
        ++chain.named;
    }
    for (;;) { // on to the current one
        const SessionInfo& latest = chain.sessions.back();
        if (latest.continuedIn.empty() || !seen.insert(latest.continuedIn).second) break;
        auto after = loadSession(latest.continuedIn);
        if (!after || after->resumedFrom != latest.id) break;
        chain.sessions.push_back(std::move(*after));
    }
    return chain;
}

} // namespace sb
