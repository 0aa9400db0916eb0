// Sessions with changes waiting that no recording lists: forks (`fork`, the window's Snapshots…
// → Fork), whose folder is made without a run, and stopped sessions whose recording is gone
// (deleted by the retention limits, or by hand). Each can be resumed like an ended session, so
// `sandbench-cli sessions` and the window list them beside the recorded ones.
#pragma once

#include "base/Session.h"

#include <set>
#include <string>
#include <vector>

namespace sb {

// The sessions of the sessions folder that are not in `recorded`, not running, not continued
// by a resumed session, and hold changes (their layer has an entry); oldest first.
std::vector<SessionInfo> unrecordedSessionsWithChanges(const std::set<std::string>& recorded);

} // namespace sb
