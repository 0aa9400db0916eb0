// The workspace as the agent sees it: the real project folder with the session's upper layer
// over it, as a lazy tree with added / modified / deleted / conflict markers.
//
// Nothing is read on the GUI thread. The changes come from the upper layer (small, whatever
// the project's size) on a worker thread, again whenever the watcher sees the agent write;
// a real folder is listed on that thread only when the view expands it (fetchMore), and its
// entries arrive a moment later. Folders on the way to a change appear at once, from the
// change list, so the "changed only" view never waits for a listing.
#pragma once

#include "ReviewStyle.h"
#include "TaskQueue.h"
#include "WorkspaceScan.h"
#include "WorkspaceWatcher.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QIcon>
#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace sbui {

class WorkspaceModel : public QAbstractItemModel {
    Q_OBJECT

  public:
    enum Column { NameColumn, ChangeColumn, ColumnCount };
    enum Role {
        PathRole = Qt::UserRole + 1, // QString, relative to the project
        MarkerRole,                  // int(ChangeMarker), inherited from a deleted folder
        IsChangeRole,                // bool: the entry is a change of its own (to apply/discard)
        ChangeCountRole,             // int: changes below a folder
        IsDirectoryRole,
        ConflictRole, // QString: why applying it would conflict, empty if it would not
        RunLaterRole, // QString: what the file can run later on the host; apply holds it back
    };

    explicit WorkspaceModel(QObject* parent = nullptr);
    ~WorkspaceModel() override;

    // Shows `project` with `upper` over it and watches `upper`. Real entries changed after
    // `sessionStartNs` mark their changes as conflicts, as applying them would find.
    void setWorkspace(const QString& project, const QString& upper, qint64 sessionStartNs);
    void clear();
    // Reads the changes again now (the watcher does so by itself).
    void refresh();
    // Lists the folders shown again (the real project changed by other hands) and rescans.
    void reload();
    // Applied paths now live in the real project: added ones stay in the tree once their
    // change is gone from the layer, applied deletions leave it. Their folders are listed
    // again to be sure.
    void noteApplied(const QStringList& paths);

    QString project() const { return m_project; }
    // Changes the user would count: files, and folders not merely holding other changes.
    int changeCount() const;
    // True until the first scan of this workspace has arrived.
    bool isScanning() const { return m_scanRunning; }
    QString scanError() const { return m_scan.error; }
    const WorkspaceScan& scan() const { return m_scan; }
    ChangeMarker marker(const QString& path) const;
    bool isChange(const QString& path) const { return m_scan.changes.contains(path); }
    QString conflictReason(const QString& path) const { return m_scan.conflicts.value(path); }
    QString runLaterReason(const QString& path) const { return m_scan.runLater.value(path); }
    // The changes at or below `path` ("" = all) that run later, path -> reason.
    QHash<QString, QString> runLaterUnder(const QString& path) const;
    // The conflicting changes at or below `path` ("" = all).
    QStringList conflictsUnder(const QString& path) const;
    // fetchMore() fills a folder a moment later (never while the model is signalling another
    // change); this fills it now with what the change list knows, and asks for its listing.
    void fetchNow(const QString& path);
    QModelIndex indexForPath(const QString& path, int column = NameColumn) const;
    QString pathForIndex(const QModelIndex& index) const;
    // Entries the model holds: the folders listed so far and the way to every change.
    int loadedNodeCount() const { return static_cast<int>(m_nodes.size()); }
    WorkspaceWatcher* watcher() { return &m_watcher; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  Q_SIGNALS:
    // After every scan: the changes, their markers and counts are up to date.
    void changesUpdated(int count);
    // A folder's real entries have arrived.
    void folderListed(const QString& path);

  private:
    struct Node {
        QString name;
        QString path;
        Node* parent = nullptr;
        int row = 0;
        bool isDirectory = false;
        bool inReal = true;          // the real project has it (else it lives only in upper)
        bool fetched = false;        // fetchMore was called: its children are on their way
        bool populated = false;      // its children are in the model (those known so far)
        bool listingPending = false; // the real listing is on its way
        std::vector<std::unique_ptr<Node>> children;
    };
    struct Incoming {
        QString name;
        bool isDirectory = false;
        bool inReal = true;
    };

    Node* nodeFor(const QModelIndex& index) const;
    QModelIndex indexFor(const Node* node, int column = NameColumn) const;
    void startScan();
    void applyScan(WorkspaceScan scan);
    void applyListing(const DirListing& listing);
    void populate(Node* dir);
    void requestListing(Node* dir);
    // Adds the entries not there yet, each at its sorted place, in as few insertions as can be.
    void insertChildren(Node* dir, std::vector<Incoming> incoming);
    void removeChild(Node* dir, int row);
    void forget(Node* node);
    void renumber(Node* dir, int from);
    void emitChanged(Node* node);
    bool inDeletedFolder(const Node* node) const;
    ChangeMarker markerOf(const Node* node) const;
    QVariant changeColumnData(const Node* node, int role) const;

    QString m_project;
    QString m_upper;
    qint64 m_sessionStartNs = 0;
    std::unique_ptr<Node> m_root;
    QHash<QString, Node*> m_nodes; // every node by path, the root ("") included
    WorkspaceScan m_scan;
    int m_generation = 0; // results of an older workspace or reload are dropped
    bool m_scanRunning = false;
    bool m_rescanWanted = false;
    WorkspaceWatcher m_watcher;
    QIcon m_fileIcon;
    QIcon m_folderIcon;
    QIcon m_runLaterIcon;
    // By ChangeMarker: one parsed icon each, as a view asks for thousands of rows' decorations.
    std::array<QIcon, 5> m_markerIcons;
    TaskQueue m_scanQueue;    // last member: joined before the rest goes
    TaskQueue m_listingQueue; // apart, so a listing never waits behind a scan
};

} // namespace sbui
