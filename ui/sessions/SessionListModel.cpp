#include "SessionListModel.h"

#include "hosts/HostList.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QFont>
#include <QIcon>
#include <QLocale>
#include <QPalette>
#include <QRegularExpression>
#include <algorithm>

namespace sbui {

QString formatDuration(qint64 ms)
{
    qint64 s = std::max<qint64>(ms, 0) / 1000;
    if (s >= 3600)
        return QCoreApplication::translate("sbui", "%1 h %2 min")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return QCoreApplication::translate("sbui", "%1 min %2 s")
            .arg(s / 60)
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QCoreApplication::translate("sbui", "%1 s").arg(s);
}

SessionListModel::SessionListModel(QObject* parent) : QAbstractTableModel(parent)
{
    m_ticker.setInterval(1000);
    connect(&m_ticker, &QTimer::timeout, this, &SessionListModel::tick);
}

void SessionListModel::setNow(qint64 unixMs)
{
    m_nowMs = unixMs;
    updateTicking();
}

void SessionListModel::tick()
{
    for (int row = 0; row < rowCount(); ++row)
        if (m_entries[static_cast<size_t>(row)].state == SessionEntry::State::Live)
            Q_EMIT dataChanged(index(row, DurationColumn), index(row, DurationColumn),
                               {Qt::DisplayRole});
}

// The ticker runs only while some session is live and the clock is not frozen by a test.
void SessionListModel::updateTicking()
{
    bool live = std::any_of(m_entries.begin(), m_entries.end(), [](const SessionEntry& e) {
        return e.state == SessionEntry::State::Live;
    });
    if (live && m_nowMs == 0)
        m_ticker.start();
    else
        m_ticker.stop();
}

bool SessionListModel::isNamed(const QString& id)
{
    static const QRegularExpression generated(QStringLiteral("^\\d{8}-\\d{6}-[0-9a-f]{4,6}$"));
    return !generated.match(id).hasMatch();
}

QString SessionListModel::sessionText(const SessionEntry& e) const
{
    const QString command = e.command.join(QLatin1Char(' '));
    const QString name = isNamed(e.id)   ? e.id
                         : m_folderShown ? QString()
                                         : QFileInfo(e.workspace).fileName();
    const QString text = name.isEmpty()      ? command
                         : command.isEmpty() ? name
                                             : tr("%1 · %2").arg(name, command);
    return e.host.isEmpty() ? text : tr("%1: %2").arg(HostList::displayName(e.host), text);
}

void SessionListModel::setFolderColumnShown(bool shown)
{
    if (m_folderShown == shown) return;
    m_folderShown = shown;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, SessionColumn), index(rowCount() - 1, SessionColumn),
                           {Qt::DisplayRole});
}

int SessionListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int SessionListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

qint64 SessionListModel::nowMs() const
{
    return m_nowMs ? m_nowMs : QDateTime::currentMSecsSinceEpoch();
}

QString SessionListModel::stateText(const SessionEntry& e) const
{
    switch (e.state) {
    case SessionEntry::State::Live:
        return e.pending > 0 ? tr("running, %n approval(s) waiting", nullptr, e.pending)
                             : tr("running");
    case SessionEntry::State::Interrupted:
        return tr("interrupted (its supervisor died)");
    case SessionEntry::State::Ended:
        break;
    }
    if (!e.recorded)
        return e.forkedFrom.isEmpty()
                   ? tr("stopped, not recorded, with changes: Resume goes on with them")
                   : tr("fork of %1, not run yet: Resume goes on with its changes")
                         .arg(e.forkedFrom);
    return e.exitStatus >= 0 ? tr("ended, exit %1").arg(e.exitStatus) : tr("ended");
}

QVariant SessionListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const SessionEntry& e = m_entries[static_cast<size_t>(index.row())];
    switch (role) {
    case IdRole:
        return e.key();
    case HostRole:
        return e.host;
    case StateRole:
        return static_cast<int>(e.state);
    case PendingRole:
        return e.pending;
    case WorkspaceRole:
        return e.workspace;
    default:
        break;
    }
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case SessionColumn: {
            const QString text = sessionText(e);
            return e.pending > 0 ? QStringLiteral("(%1) %2").arg(e.pending).arg(text) : text;
        }
        case WorkspaceColumn: // the folder's name; the whole path is in the tooltip
            return QFileInfo(e.workspace).fileName();
        case StartedColumn: {
            QDateTime started = QDateTime::fromMSecsSinceEpoch(e.startedMs);
            return started.date() == QDate::currentDate()
                       ? QLocale().toString(started.time(), QLocale::ShortFormat)
                       : QLocale().toString(started, QLocale::ShortFormat);
        }
        case DurationColumn:
            return formatDuration((e.endedMs ? e.endedMs : nowMs()) - e.startedMs);
        }
    }
    if (role == Qt::DecorationRole && column == SessionColumn) {
        switch (e.state) {
        case SessionEntry::State::Live:
            return QIcon(e.pending > 0 ? QStringLiteral(":/icons/approval.svg")
                                       : QStringLiteral(":/icons/live.svg"));
        case SessionEntry::State::Interrupted:
            return QIcon(QStringLiteral(":/icons/interrupted.svg"));
        case SessionEntry::State::Ended:
            return QIcon(QStringLiteral(":/icons/recorded.svg"));
        }
    }
    if (role == Qt::ToolTipRole) {
        const QString text = tr("Session %1\n%2\nin %3\n%4")
                                 .arg(e.id, e.command.join(QLatin1Char(' ')),
                                      QDir::toNativeSeparators(e.workspace), stateText(e));
        return e.host.isEmpty() ? text : tr("On %1\n%2").arg(e.host, text);
    }
    if (role == Qt::FontRole && column == SessionColumn && e.pending > 0) {
        QFont bold = QApplication::font();
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ForegroundRole && e.state != SessionEntry::State::Live)
        return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
    return {};
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SessionColumn:
        return tr("Session");
    case WorkspaceColumn:
        return tr("Folder"); // the workspace's: short, the column is narrow
    case StartedColumn:
        return tr("Started");
    case DurationColumn:
        return tr("Duration");
    }
    return {};
}

int SessionListModel::rowOf(const QString& key) const
{
    auto it = std::find_if(m_entries.begin(), m_entries.end(),
                           [&](const SessionEntry& e) { return e.key() == key; });
    return it == m_entries.end() ? -1 : static_cast<int>(it - m_entries.begin());
}

const SessionEntry* SessionListModel::entry(const QString& key) const
{
    int row = rowOf(key);
    return row < 0 ? nullptr : &m_entries[static_cast<size_t>(row)];
}

void SessionListModel::update(std::vector<SessionEntry> entries)
{
    auto newer = [](const SessionEntry& a, const SessionEntry& b) {
        return a.startedMs != b.startedMs ? a.startedMs > b.startedMs : a.key() > b.key();
    };
    std::sort(entries.begin(), entries.end(), newer);
    for (auto& e : entries)
        if (const SessionEntry* old = entry(e.key()); old && e.state == SessionEntry::State::Live)
            e.pending = old->pending;

    // Rows that are gone, from the bottom up.
    for (int row = rowCount() - 1; row >= 0; --row) {
        const QString key = m_entries[static_cast<size_t>(row)].key();
        bool kept = std::any_of(entries.begin(), entries.end(),
                                [&](const SessionEntry& e) { return e.key() == key; });
        if (kept) continue;
        beginRemoveRows({}, row, row);
        m_entries.erase(m_entries.begin() + row);
        endRemoveRows();
    }
    // Both lists are now in the same order: walk them together, inserting and updating.
    for (size_t i = 0; i < entries.size(); ++i) {
        const int row = static_cast<int>(i);
        if (i < m_entries.size() && m_entries[i].key() == entries[i].key()) {
            if (!(m_entries[i] == entries[i])) {
                m_entries[i] = entries[i];
                Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
            }
            continue;
        }
        beginInsertRows({}, row, row);
        m_entries.insert(m_entries.begin() + row, entries[i]);
        endInsertRows();
    }
    updateTicking();
}

void SessionListModel::setPending(const QString& key, int count)
{
    int row = rowOf(key);
    if (row < 0 || m_entries[static_cast<size_t>(row)].pending == count) return;
    m_entries[static_cast<size_t>(row)].pending = count;
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int SessionListModel::totalPending() const
{
    int total = 0;
    for (const auto& e : m_entries)
        if (e.state == SessionEntry::State::Live) total += e.pending;
    return total;
}

} // namespace sbui
