#include "WorkspaceModel.h"

#include <QFile>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <QSet>
#include <algorithm>
#include <iterator>

namespace sbui {
namespace {

QString joinPath(const QString& dir, const QString& name)
{
    return dir.isEmpty() ? name : dir + QLatin1Char('/') + name;
}

bool isUnder(const QString& path, const QString& dir)
{
    return dir.isEmpty() || path == dir ||
           (path.startsWith(dir) && path.size() > dir.size() && path[dir.size()] == u'/');
}

ChangeMarker markerOfKind(sb::ChangeKind kind)
{
    switch (kind) {
    case sb::ChangeKind::Added:
        return ChangeMarker::Added;
    case sb::ChangeKind::Modified:
        return ChangeMarker::Modified;
    case sb::ChangeKind::Deleted:
        return ChangeMarker::Deleted;
    }
    return ChangeMarker::None;
}

std::string localPath(const QString& path)
{
    return QFile::encodeName(path).toStdString();
}

} // namespace

WorkspaceModel::WorkspaceModel(QObject* parent)
    : QAbstractItemModel(parent), m_fileIcon(QStringLiteral(":/icons/file.svg")),
      m_folderIcon(QStringLiteral(":/icons/folder.svg")),
      m_runLaterIcon(QStringLiteral(":/icons/run-later.svg"))
{
    for (std::size_t m = 0; m < m_markerIcons.size(); ++m)
        m_markerIcons[m] = ReviewStyle::markerIcon(static_cast<ChangeMarker>(m));
    connect(&m_watcher, &WorkspaceWatcher::changed, this, &WorkspaceModel::refresh);
}

WorkspaceModel::~WorkspaceModel() = default;

void WorkspaceModel::setWorkspace(const QString& project, const QString& upper,
                                  qint64 sessionStartNs)
{
    beginResetModel();
    ++m_generation;
    m_scanQueue.clearPending();
    m_listingQueue.clearPending();
    m_project = project;
    m_upper = upper;
    m_sessionStartNs = sessionStartNs;
    m_scan = {};
    m_scanRunning = false;
    m_rescanWanted = false;
    m_nodes.clear();
    m_root = std::make_unique<Node>();
    m_root->isDirectory = true;
    m_nodes.insert(QString(), m_root.get());
    endResetModel();
    m_watcher.start(upper);
    startScan();
}

void WorkspaceModel::clear()
{
    beginResetModel();
    ++m_generation;
    m_scanQueue.clearPending();
    m_listingQueue.clearPending();
    m_project.clear();
    m_upper.clear();
    m_scan = {};
    m_scanRunning = false;
    m_rescanWanted = false;
    m_nodes.clear();
    m_root.reset();
    endResetModel();
    m_watcher.stop();
    emit changesUpdated(0);
}

void WorkspaceModel::reload()
{
    // Every folder shown is listed again; what the listings no longer have goes, what they
    // newly have comes, and the tree keeps its shape.
    for (Node* node : std::as_const(m_nodes))
        if (node->isDirectory && node->populated) requestListing(node);
    startScan();
}

void WorkspaceModel::refresh()
{
    startScan();
}

void WorkspaceModel::startScan()
{
    if (m_upper.isEmpty()) return;
    // One scan at a time; writes seen meanwhile ask for one more, not one each.
    if (m_scanRunning) {
        m_rescanWanted = true;
        return;
    }
    m_scanRunning = true;
    const int generation = m_generation;
    m_scanQueue.run(
        this,
        [upper = localPath(m_upper), project = localPath(m_project), start = m_sessionStartNs] {
            return scanWorkspace(upper, project, start);
        },
        [this, generation](WorkspaceScan scan) {
            if (generation != m_generation) return;
            m_scanRunning = false;
            applyScan(std::move(scan));
            if (m_rescanWanted) {
                m_rescanWanted = false;
                startScan();
            }
        });
}

void WorkspaceModel::applyScan(WorkspaceScan scan)
{
    WorkspaceScan old = std::move(m_scan);
    m_scan = std::move(scan);

    // The folders shown so far gain the entries on the way to new changes and lose those that
    // only the session had, once no change is left there.
    QSet<QString> folders;
    for (auto it = old.children.cbegin(); it != old.children.cend(); ++it)
        folders.insert(it.key());
    for (auto it = m_scan.children.cbegin(); it != m_scan.children.cend(); ++it)
        folders.insert(it.key());
    for (const QString& folder : folders) {
        Node* dir = m_nodes.value(folder);
        if (!dir || !dir->populated) continue;
        const auto now = m_scan.children.value(folder);
        const auto before = old.children.value(folder);
        for (auto it = before.cbegin(); it != before.cend(); ++it) {
            if (now.contains(it.key())) continue;
            Node* gone = m_nodes.value(joinPath(folder, it.key()));
            if (gone && !gone->inReal) removeChild(dir, gone->row);
        }
        std::vector<Incoming> fresh;
        for (auto it = now.cbegin(); it != now.cend(); ++it) {
            const QString path = joinPath(folder, it.key());
            auto change = m_scan.changes.constFind(path);
            const bool inReal =
                change == m_scan.changes.cend() || change->kind != sb::ChangeKind::Added;
            Node* node = m_nodes.value(path);
            if (node && node->isDirectory != it.value()) {
                removeChild(dir, node->row); // a file became a folder, or the other way
                node = nullptr;
            }
            if (node)
                node->inReal = inReal;
            else
                fresh.push_back({it.key(), it.value(), inReal});
        }
        std::sort(fresh.begin(), fresh.end(), [](const Incoming& a, const Incoming& b) {
            return entryLess(a.isDirectory, a.name, b.isDirectory, b.name);
        });
        insertChildren(dir, std::move(fresh));
    }

    // Markers and counts that changed.
    QSet<QString> touched;
    auto collect = [&](const auto& before, const auto& now) {
        for (auto it = before.cbegin(); it != before.cend(); ++it)
            if (!now.contains(it.key()) || now.value(it.key()) != it.value())
                touched.insert(it.key());
        for (auto it = now.cbegin(); it != now.cend(); ++it)
            if (!before.contains(it.key())) touched.insert(it.key());
    };
    collect(old.changes, m_scan.changes);
    collect(old.conflicts, m_scan.conflicts);
    collect(old.runLater, m_scan.runLater);
    collect(old.counts, m_scan.counts);
    for (const QString& path : touched) {
        Node* node = m_nodes.value(path);
        if (!node || node == m_root.get()) continue;
        emitChanged(node);
        // What is inside a deleted folder shows deleted too.
        if (node->isDirectory && !node->children.empty()) {
            std::vector<Node*> stack{node};
            while (!stack.empty()) {
                Node* n = stack.back();
                stack.pop_back();
                for (const auto& child : n->children) {
                    emitChanged(child.get());
                    stack.push_back(child.get());
                }
            }
        }
    }
    emit changesUpdated(changeCount());
}

void WorkspaceModel::noteApplied(const QStringList& paths)
{
    for (const QString& path : paths) {
        Node* node = m_nodes.value(path);
        auto change = m_scan.changes.constFind(path);
        if (!node || change == m_scan.changes.cend()) continue;
        if (change->kind == sb::ChangeKind::Added) node->inReal = true;
        if (change->kind == sb::ChangeKind::Deleted) node->inReal = false;
    }
    // The scan may have moved on meanwhile (the apply's own edits of the layer wake the
    // watcher): the real folders themselves have the last word.
    QSet<QString> folders;
    for (const QString& path : paths) {
        const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
        folders.insert(slash < 0 ? QString() : path.left(slash));
        folders.insert(path);
    }
    for (const QString& folder : folders) {
        Node* dir = m_nodes.value(folder);
        if (dir && dir->isDirectory && dir->populated) requestListing(dir);
    }
}

int WorkspaceModel::changeCount() const
{
    return m_scan.counts.value(QString());
}

QHash<QString, QString> WorkspaceModel::runLaterUnder(const QString& path) const
{
    QHash<QString, QString> out;
    for (auto it = m_scan.runLater.cbegin(); it != m_scan.runLater.cend(); ++it)
        if (path.isEmpty() || it.key() == path || it.key().startsWith(path + QLatin1Char('/')))
            out.insert(it.key(), it.value());
    return out;
}

QStringList WorkspaceModel::conflictsUnder(const QString& path) const
{
    QStringList out;
    for (auto it = m_scan.conflicts.cbegin(); it != m_scan.conflicts.cend(); ++it)
        if (isUnder(it.key(), path)) out.append(it.key());
    out.sort();
    return out;
}

ChangeMarker WorkspaceModel::marker(const QString& path) const
{
    if (Node* node = m_nodes.value(path)) return markerOf(node);
    if (m_scan.conflicts.contains(path)) return ChangeMarker::Conflict;
    auto change = m_scan.changes.constFind(path);
    return change == m_scan.changes.cend() ? ChangeMarker::None : markerOfKind(change->kind);
}

ChangeMarker WorkspaceModel::markerOf(const Node* node) const
{
    if (m_scan.conflicts.contains(node->path)) return ChangeMarker::Conflict;
    auto change = m_scan.changes.constFind(node->path);
    if (change != m_scan.changes.cend()) return markerOfKind(change->kind);
    return inDeletedFolder(node) ? ChangeMarker::Deleted : ChangeMarker::None;
}

bool WorkspaceModel::inDeletedFolder(const Node* node) const
{
    for (const Node* p = node->parent; p && p != m_root.get(); p = p->parent) {
        auto change = m_scan.changes.constFind(p->path);
        if (change != m_scan.changes.cend() && change->kind == sb::ChangeKind::Deleted) return true;
    }
    return false;
}

void WorkspaceModel::fetchNow(const QString& path)
{
    Node* dir = m_nodes.value(path);
    if (!dir || !dir->isDirectory || dir->populated) return;
    dir->fetched = true;
    populate(dir);
}

void WorkspaceModel::populate(Node* dir)
{
    dir->populated = true;
    // The way to every change below is known already; the rest comes with the listing.
    const auto known = m_scan.children.value(dir->path);
    std::vector<Incoming> incoming;
    for (auto it = known.cbegin(); it != known.cend(); ++it) {
        auto change = m_scan.changes.constFind(joinPath(dir->path, it.key()));
        incoming.push_back(
            {it.key(), it.value(),
             change == m_scan.changes.cend() || change->kind != sb::ChangeKind::Added});
    }
    std::sort(incoming.begin(), incoming.end(), [](const Incoming& a, const Incoming& b) {
        return entryLess(a.isDirectory, a.name, b.isDirectory, b.name);
    });
    insertChildren(dir, std::move(incoming));
    if (dir->inReal) requestListing(dir);
}

void WorkspaceModel::requestListing(Node* dir)
{
    dir->listingPending = true;
    const int generation = m_generation;
    m_listingQueue.run(
        this,
        [project = localPath(m_project), path = dir->path] {
            return listProjectDirectory(project, path);
        },
        [this, generation](DirListing listing) {
            if (generation == m_generation) applyListing(listing);
        });
}

void WorkspaceModel::applyListing(const DirListing& listing)
{
    Node* dir = m_nodes.value(listing.path);
    if (!dir || !dir->isDirectory) return;
    dir->listingPending = false;
    // Entries the listing lacks left the real project (an applied deletion, other hands): they
    // stay only while the session has them.
    QSet<QString> listed;
    for (const DirEntry& e : listing.entries)
        listed.insert(e.name);
    const auto onTheWay = m_scan.children.value(dir->path);
    for (int row = static_cast<int>(dir->children.size()) - 1; row >= 0; --row) {
        Node* child = dir->children[static_cast<std::size_t>(row)].get();
        if (!child->inReal || listed.contains(child->name)) continue;
        child->inReal = false;
        if (!onTheWay.contains(child->name)) removeChild(dir, row);
    }
    std::vector<Incoming> incoming;
    incoming.reserve(listing.entries.size());
    for (const DirEntry& e : listing.entries)
        incoming.push_back({e.name, e.isDirectory, true});
    insertChildren(dir, std::move(incoming));
    emit folderListed(listing.path);
}

void WorkspaceModel::insertChildren(Node* dir, std::vector<Incoming> incoming)
{
    std::vector<Incoming> fresh;
    for (auto& e : incoming) {
        if (Node* existing = m_nodes.value(joinPath(dir->path, e.name))) {
            if (e.inReal) existing->inReal = true;
            continue;
        }
        fresh.push_back(std::move(e));
    }
    if (fresh.empty()) return;
    const QModelIndex parentIndex = indexFor(dir);
    auto& kids = dir->children;
    auto less = [](bool aDir, const QString& a, bool bDir, const QString& b) {
        return entryLess(aDir, a, bDir, b);
    };
    std::size_t pos = 0, k = 0;
    while (k < fresh.size()) {
        while (pos < kids.size() &&
               less(kids[pos]->isDirectory, kids[pos]->name, fresh[k].isDirectory, fresh[k].name))
            ++pos;
        // The run of incoming entries that all go before kids[pos].
        std::size_t end = k + 1;
        while (end < fresh.size() &&
               (pos == kids.size() || less(fresh[end].isDirectory, fresh[end].name,
                                           kids[pos]->isDirectory, kids[pos]->name)))
            ++end;
        const int first = static_cast<int>(pos);
        const int count = static_cast<int>(end - k);
        beginInsertRows(parentIndex, first, first + count - 1);
        std::vector<std::unique_ptr<Node>> run;
        run.reserve(end - k);
        for (std::size_t i = k; i < end; ++i) {
            auto node = std::make_unique<Node>();
            node->name = fresh[i].name;
            node->path = joinPath(dir->path, fresh[i].name);
            node->parent = dir;
            node->isDirectory = fresh[i].isDirectory;
            node->inReal = fresh[i].inReal;
            m_nodes.insert(node->path, node.get());
            run.push_back(std::move(node));
        }
        kids.insert(kids.begin() + first, std::make_move_iterator(run.begin()),
                    std::make_move_iterator(run.end()));
        renumber(dir, first);
        endInsertRows();
        pos += end - k;
        k = end;
    }
}

void WorkspaceModel::removeChild(Node* dir, int row)
{
    beginRemoveRows(indexFor(dir), row, row);
    forget(dir->children[static_cast<std::size_t>(row)].get());
    dir->children.erase(dir->children.begin() + row);
    renumber(dir, row);
    endRemoveRows();
}

void WorkspaceModel::forget(Node* node)
{
    m_nodes.remove(node->path);
    for (const auto& child : node->children)
        forget(child.get());
}

void WorkspaceModel::renumber(Node* dir, int from)
{
    for (std::size_t i = static_cast<std::size_t>(from); i < dir->children.size(); ++i)
        dir->children[i]->row = static_cast<int>(i);
}

void WorkspaceModel::emitChanged(Node* node)
{
    emit dataChanged(indexFor(node, NameColumn), indexFor(node, ChangeColumn));
}

WorkspaceModel::Node* WorkspaceModel::nodeFor(const QModelIndex& index) const
{
    if (!index.isValid()) return m_root.get();
    return static_cast<Node*>(index.internalPointer());
}

QModelIndex WorkspaceModel::indexFor(const Node* node, int column) const
{
    if (!node || node == m_root.get()) return {};
    return createIndex(node->row, column, const_cast<Node*>(node));
}

QModelIndex WorkspaceModel::indexForPath(const QString& path, int column) const
{
    return indexFor(m_nodes.value(path), column);
}

QString WorkspaceModel::pathForIndex(const QModelIndex& index) const
{
    const Node* node = nodeFor(index);
    return node ? node->path : QString();
}

QModelIndex WorkspaceModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent)) return {};
    Node* dir = nodeFor(parent);
    return createIndex(row, column, dir->children[static_cast<std::size_t>(row)].get());
}

QModelIndex WorkspaceModel::parent(const QModelIndex& child) const
{
    if (!child.isValid()) return {};
    return indexFor(static_cast<Node*>(child.internalPointer())->parent);
}

int WorkspaceModel::rowCount(const QModelIndex& parent) const
{
    if (parent.column() > 0) return 0;
    const Node* node = nodeFor(parent);
    return node ? static_cast<int>(node->children.size()) : 0;
}

int WorkspaceModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

bool WorkspaceModel::hasChildren(const QModelIndex& parent) const
{
    if (parent.column() > 0) return false;
    const Node* node = nodeFor(parent);
    if (!node || !node->isDirectory) return false;
    return !node->populated || node->listingPending || !node->children.empty();
}

bool WorkspaceModel::canFetchMore(const QModelIndex& parent) const
{
    if (parent.column() > 0) return false;
    const Node* node = nodeFor(parent);
    return node && node->isDirectory && !node->fetched;
}

void WorkspaceModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent)) return;
    Node* dir = nodeFor(parent);
    dir->fetched = true;
    // Views and testers call this while handling another change's signals: inserting rows
    // right away would nest one change in another.
    QMetaObject::invokeMethod(
        this,
        [this, generation = m_generation, path = dir->path] {
            if (generation == m_generation) fetchNow(path);
        },
        Qt::QueuedConnection);
}

QVariant WorkspaceModel::data(const QModelIndex& index, int role) const
{
    const Node* node = index.isValid() ? nodeFor(index) : nullptr;
    if (!node) return {};
    switch (role) {
    case PathRole:
        return node->path;
    case MarkerRole:
        return static_cast<int>(markerOf(node));
    case IsChangeRole:
        return m_scan.changes.contains(node->path);
    case ChangeCountRole:
        return node->isDirectory ? m_scan.counts.value(node->path) : 0;
    case IsDirectoryRole:
        return node->isDirectory;
    case ConflictRole:
        return m_scan.conflicts.value(node->path);
    case RunLaterRole:
        return m_scan.runLater.value(node->path);
    default:
        break;
    }
    if (index.column() == ChangeColumn) return changeColumnData(node, role);
    const ChangeMarker marker = markerOf(node);
    switch (role) {
    case Qt::DisplayRole:
        return node->name;
    case Qt::DecorationRole:
        if (m_scan.runLater.contains(node->path)) return m_runLaterIcon;
        return node->isDirectory ? m_folderIcon : m_fileIcon;
    case Qt::ForegroundRole:
        if (marker == ChangeMarker::None) return {};
        return ReviewStyle::markerColor(marker, QGuiApplication::palette());
    case Qt::FontRole:
        if (marker == ChangeMarker::Deleted) {
            QFont font;
            font.setStrikeOut(true);
            return font;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = node->path;
        if (marker != ChangeMarker::None)
            tip += QStringLiteral(" (%1)").arg(ReviewStyle::markerName(marker));
        if (marker == ChangeMarker::Conflict)
            tip += QLatin1Char('\n') + m_scan.conflicts.value(node->path);
        if (auto reason = m_scan.runLater.constFind(node->path); reason != m_scan.runLater.cend())
            tip += QLatin1Char('\n') + tr("Runs later, outside the sandbox (%1). Apply all holds "
                                          "it back; apply it on its own to confirm it.")
                                           .arg(*reason);
        return tip;
    }
    default:
        return {};
    }
}

QVariant WorkspaceModel::changeColumnData(const Node* node, int role) const
{
    // Only the entry's own change here: what is inside a deleted folder says so by its name.
    ChangeMarker own = ChangeMarker::None;
    if (m_scan.conflicts.contains(node->path))
        own = ChangeMarker::Conflict;
    else if (auto change = m_scan.changes.constFind(node->path); change != m_scan.changes.cend())
        own = markerOfKind(change->kind);
    const int count = node->isDirectory ? m_scan.counts.value(node->path) : 0;
    switch (role) {
    case Qt::DisplayRole:
        if (count > 0) return QString::number(count);
        if (m_scan.runLater.contains(node->path))
            return tr("%1, runs later").arg(ReviewStyle::markerName(own));
        return ReviewStyle::markerName(own);
    case Qt::DecorationRole:
        return m_markerIcons[static_cast<std::size_t>(own)];
    case Qt::ForegroundRole:
        if (own == ChangeMarker::None) return {};
        return ReviewStyle::markerColor(own, QGuiApplication::palette());
    case Qt::ToolTipRole:
        if (own == ChangeMarker::Conflict) return m_scan.conflicts.value(node->path);
        if (m_scan.runLater.contains(node->path))
            return tr("Runs later, outside the sandbox: %1").arg(m_scan.runLater.value(node->path));
        if (count > 0) return tr("%n change(s) inside", nullptr, count);
        return ReviewStyle::markerName(own);
    default:
        return {};
    }
}

QVariant WorkspaceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == NameColumn ? tr("Name") : tr("Change");
}

} // namespace sbui
