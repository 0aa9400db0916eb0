#include "ConflictText.h"

namespace sbui {

QString ConflictText::of(const sb::ApplyIssue& issue)
{
    using Why = sb::ApplyIssue::Why;
    const QString subject = QString::fromStdString(issue.subject);
    switch (issue.why) {
    case Why::RemovedInProject:
        return tr("removed from the project since the session started");
    case Why::CreatedInProject:
        return tr("created in the project since the session started");
    case Why::ChangedInProject:
        return tr("changed in the project since the session started");
    case Why::ChangedInsideInProject:
        return tr("“%1” changed in the project since the session started").arg(subject);
    case Why::UnreadableInProject:
        return tr("“%1” in the project could not be read").arg(subject);
    case Why::Other:
        break;
    }
    return QString::fromStdString(issue.reason);
}

} // namespace sbui
