#include "workspace/UnrecordedSessions.h"

#include <algorithm>
#include <filesystem>

namespace sb {

std::vector<SessionInfo> unrecordedSessionsWithChanges(const std::set<std::string>& recorded)
{
    std::vector<SessionInfo> out;
    for (SessionInfo& session : listSessions()) {
        if (recorded.count(session.id) || !session.continuedIn.empty()) continue;
        std::error_code ec;
        if (std::filesystem::directory_iterator(session.upperDir(), ec) ==
                std::filesystem::directory_iterator() ||
            ec)
            continue; // no changes (or no layer at all)
        if (sessionIsLive(session)) continue;
        out.push_back(std::move(session));
    }
    std::sort(out.begin(), out.end(),
              [](const SessionInfo& a, const SessionInfo& b) { return a.startedNs < b.startedNs; });
    return out;
}

} // namespace sb
