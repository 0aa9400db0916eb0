// The reading behind the file tree, done on a worker thread: the session's changes (from the
// small upper layer, through the core) and one folder of the real project at a time.
#pragma once

#include "workspace/Workspace.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

namespace sbui {

struct ChangeEntry {
    sb::ChangeKind kind = sb::ChangeKind::Modified;
    bool isDirectory = false;
    // Counted as a change of its own: not a folder that merely holds other changes.
    bool leaf = true;
    bool operator==(const ChangeEntry&) const = default;
};

struct WorkspaceScan {
    QString error; // the core's message when the changes could not be read
    QHash<QString, ChangeEntry> changes;
    QStringList paths; // the changed paths, a folder before its contents
    // For every folder on the way to a change, its entries on that way: name -> is a folder.
    QHash<QString, QHash<QString, bool>> children;
    QHash<QString, int> counts;        // folder ("" = the project) -> changes below it
    QHash<QString, QString> conflicts; // path -> why applying it would conflict
    QHash<QString, QString> runLater;  // path -> what it can run: apply holds it back
};

// listChanges marked with the session's files that run later (its list is read from the folder
// holding `upper`), and a dry run of applyChanges for the conflicts it would meet.
WorkspaceScan scanWorkspace(const std::string& upper, const std::string& project,
                            qint64 sessionStartNs);

struct DirEntry {
    QString name;
    bool isDirectory = false; // a real folder; a symlink to one is not
};

struct DirListing {
    QString path;                  // relative to the project; "" = its root
    std::vector<DirEntry> entries; // sorted with entryLess
};

// The entries of one real folder. A path through a symlink, or one that is gone, lists empty.
DirListing listProjectDirectory(const std::string& project, const QString& path);

// The tree's order: folders first, then names without regard to case.
// Folders first, then names in natural order (f2 before f10), case aside.
bool entryLess(bool aIsDirectory, const QString& a, bool bIsDirectory, const QString& b);

} // namespace sbui
