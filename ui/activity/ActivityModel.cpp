#include "ActivityModel.h"

#include "base/ActivityKinds.h"
#include "policy/CommandRules.h"

#include <QDateTime>
#include <QGuiApplication>
#include <QLocale>
#include <QPalette>

using json = nlohmann::json;

namespace sbui {
namespace {

// Events arriving within this time become one row insertion.
constexpr int kFlushMs = 50;

} // namespace

ActivityModel::ActivityModel(QObject* parent) : QAbstractTableModel(parent)
{
    for (int c = 0; c <= static_cast<int>(Category::Lifecycle); ++c)
        m_icons.push_back(categoryIcon(static_cast<Category>(c)));
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kFlushMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &ActivityModel::flush);
}

void ActivityModel::addEvent(const json& event)
{
    m_queued.push_back(makeRow(event));
    if (!m_flushTimer.isActive()) m_flushTimer.start();
}

void ActivityModel::flush()
{
    m_flushTimer.stop();
    if (m_queued.empty()) return;
    const int first = static_cast<int>(m_rows.size());
    int lowest = first; // the first row shown before this batch that an outcome changed
    for (std::size_t i = 0; i < m_queued.size(); ++i) {
        const Row& row = m_queued[i];
        const int at = first + static_cast<int>(i);
        if (row.refusal)
            applyRefusal(row, first, lowest);
        else if (row.category == Category::Command && row.decision == Decision::Asked &&
                 row.commandId >= 0)
            m_askedCommands[row.commandId] = at;
        else if (row.category == Category::Command && row.commandId >= 0)
            rememberCommand(row.commandId, at);
        else if (row.category == Category::Approval && row.requestId >= 0 && !row.outcome)
            m_openRequests[row.requestId] = at;
        else if (row.outcome)
            applyOutcome(row, first, lowest);
    }
    beginInsertRows({}, first, first + static_cast<int>(m_queued.size()) - 1);
    m_rows.insert(m_rows.end(), std::make_move_iterator(m_queued.begin()),
                  std::make_move_iterator(m_queued.end()));
    m_queued.clear();
    endInsertRows();
    if (lowest < first) Q_EMIT dataChanged(index(lowest, 0), index(first - 1, ColumnCount - 1));
}

ActivityModel::Row& ActivityModel::rowAt(int at, int first)
{
    return at < first ? m_rows[static_cast<std::size_t>(at)]
                      : m_queued[static_cast<std::size_t>(at - first)];
}

void ActivityModel::applyOutcome(const Row& outcome, int first, int& lowest)
{
    auto request = m_openRequests.find(outcome.requestId);
    if (request == m_openRequests.end()) return;
    Row& asked = rowAt(request->second, first);
    asked.decision = outcome.decision;
    asked.refused = outcome.refused;
    lowest = std::min(lowest, request->second);
    if (auto command = m_askedCommands.find(asked.commandId); command != m_askedCommands.end()) {
        Row& held = rowAt(command->second, first);
        // Allowed: the program started; denied (or timed out into a denial): it never ran.
        held.decision = outcome.refused ? Decision::Denied : Decision::Allowed;
        held.refused = outcome.refused;
        if (!outcome.refused) rememberCommand(asked.commandId, command->second);
        lowest = std::min(lowest, command->second);
        m_askedCommands.erase(command);
    }
    m_openRequests.erase(request);
}

void ActivityModel::rememberCommand(std::int64_t commandId, int at)
{
    // The latest few thousand: a refusal follows its command within moments.
    if (m_commandRows.size() >= 4096) m_commandRows.clear();
    m_commandRows[commandId] = at;
}

void ActivityModel::applyRefusal(const Row& refusal, int first, int& lowest)
{
    auto command = m_commandRows.find(refusal.commandId);
    if (command == m_commandRows.end()) return;
    Row& tried = rowAt(command->second, first);
    // It started, and then the sandbox refused what it tried: shown as refused.
    tried.decision = Decision::Denied;
    tried.refused = true;
    lowest = std::min(lowest, command->second);
}

void ActivityModel::setSessionStart(std::int64_t unixMs)
{
    m_startUnixMs = unixMs;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, TimeColumn), index(rowCount() - 1, TimeColumn),
                           {Qt::DisplayRole});
}

void ActivityModel::clear()
{
    m_flushTimer.stop();
    m_queued.clear();
    m_askedCommands.clear();
    m_openRequests.clear();
    m_commandRows.clear();
    if (m_rows.empty()) return;
    beginResetModel();
    m_rows.clear();
    m_rows.shrink_to_fit();
    endResetModel();
}

int ActivityModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ActivityModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ActivityModel::timeText(std::int64_t unixMs) const
{
    if (m_startUnixMs <= 0)
        return QDateTime::fromMSecsSinceEpoch(unixMs).toString(QStringLiteral("HH:mm:ss"));
    std::int64_t s = std::max<std::int64_t>(0, unixMs - m_startUnixMs) / 1000;
    if (s < 3600) return QStringLiteral("+%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("+%1:%2:%3")
        .arg(s / 3600)
        .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
}

QVariant ActivityModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return timeText(row.timeUnixMs);
        case KindColumn:
            return kindLabel(row.kind);
        case SummaryColumn:
            return row.summary;
        case DecisionColumn:
            return decisionName(row.decision, row.category);
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == DecisionColumn && row.category == Category::Command &&
            row.decision == Decision::Allowed)
            return tr("The program started. What it does then is confined by the sandbox: "
                      "what the sandbox refuses it (a mount, a debugger's call, a connection) "
                      "is listed, and the command is then shown as refused; a read of a hidden "
                      "file or a write to the read-only system simply fails, unlisted.");
        if (index.column() == TimeColumn)
            return QDateTime::fromMSecsSinceEpoch(row.timeUnixMs)
                .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
        if (index.column() == SummaryColumn) return row.summary;
        break;
    case Qt::DecorationRole:
        if (index.column() == KindColumn) return m_icons[static_cast<std::size_t>(row.category)];
        break;
    case Qt::ForegroundRole: {
        if (index.column() != DecisionColumn || row.decision == Decision::None) break;
        // Readable on the palette's base colour, light or dark.
        const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
        switch (row.decision) {
        case Decision::Allowed:
            return QColor(dark ? 0x7ee787 : 0x1a7f37);
        case Decision::Denied:
            return QColor(dark ? 0xff7b72 : 0xc62828);
        case Decision::Asked:
            return QColor(dark ? 0xe3b341 : 0x9a6700);
        case Decision::TimedOut:
            return row.refused ? QColor(dark ? 0xff7b72 : 0xc62828)
                               : QColor(dark ? 0xe3b341 : 0x9a6700);
        case Decision::None:
            break;
        }
        break;
    }
    case CategoryRole:
        return static_cast<int>(row.category);
    case DecisionRole:
        return static_cast<int>(row.decision);
    case RefusedRole:
        return row.refused;
    case KindNameRole:
        return row.kind;
    case TimeRole:
        return QVariant::fromValue<qint64>(row.timeUnixMs);
    case JsonRole:
        return QString::fromStdString(json::parse(row.json, nullptr, false).dump(2));
    case SearchTextRole:
        return QString::fromStdString(row.search);
    }
    return {};
}

QVariant ActivityModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case KindColumn:
        return tr("Kind");
    case SummaryColumn:
        return tr("What");
    case DecisionColumn:
        return tr("Decision");
    }
    return {};
}

json ActivityModel::event(int row) const
{
    if (row < 0 || row >= rowCount()) return json::object();
    return json::parse(m_rows[static_cast<std::size_t>(row)].json, nullptr, false);
}

QString ActivityModel::summary(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].summary : QString();
}

QString ActivityModel::detailsText(int row) const
{
    QStringList lines;
    const json e = event(row);
    if (!e.is_object()) return {};
    for (const auto& [key, value] : e.items())
        lines << QString::fromStdString(key) + QStringLiteral(": ") + fieldText(key, value);
    return lines.join(u'\n');
}

const std::string& ActivityModel::searchText(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].search;
}

ActivityModel::Category ActivityModel::category(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].category;
}

ActivityModel::Decision ActivityModel::decision(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].decision;
}

bool ActivityModel::refused(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].refused;
}

QString ActivityModel::categoryName(Category category)
{
    switch (category) {
    case Category::Command:
        return tr("Commands");
    case Category::Network:
        return tr("Network");
    case Category::Approval:
        return tr("Approvals");
    case Category::File:
        return tr("Files");
    case Category::Limit:
        return tr("Limits");
    case Category::Lifecycle:
        return tr("Lifecycle and errors");
    }
    return {};
}

QString ActivityModel::kindLabel(const QString& kind)
{
    if (kind == QLatin1String(sb::activity::kCommand)) return tr("command");
    if (kind == QLatin1String(sb::activity::kNetwork)) return tr("network");
    if (kind == QLatin1String(sb::activity::kApproval)) return tr("approval");
    if (kind == QLatin1String(sb::activity::kFile)) return tr("file");
    if (kind == QLatin1String(sb::activity::kLimit)) return tr("limit");
    if (kind == QLatin1String(sb::activity::kLifecycle)) return tr("lifecycle");
    if (kind == QLatin1String(sb::activity::kError)) return tr("error");
    if (kind == QLatin1String(sb::activity::kRecording)) return tr("recording");
    if (kind == QLatin1String(sb::activity::kPort)) return tr("port");
    if (kind == QLatin1String(sb::activity::kSnapshot)) return tr("snapshot");
    if (kind == QLatin1String(sb::activity::kRefusal)) return tr("refusal");
    if (kind == QLatin1String(sb::activity::kModel)) return tr("model");
    if (kind == QLatin1String(sb::activity::kLeak)) return tr("leak");
    if (kind == QLatin1String(sb::activity::kExecution)) return tr("code");
    if (kind == QLatin1String(sb::activity::kExec)) return tr("process");
    if (kind == QLatin1String(sb::activity::kFiles)) return tr("file request");
    return kind;
}

QString ActivityModel::decisionName(Decision decision)
{
    switch (decision) {
    case Decision::Allowed:
        return tr("allowed");
    case Decision::Denied:
        return tr("denied");
    case Decision::Asked:
        return tr("asked");
    case Decision::TimedOut:
        return tr("timed out");
    case Decision::None:
        break;
    }
    return {};
}

QString ActivityModel::decisionName(Decision decision, Category category)
{
    if (category == Category::Command && decision == Decision::Allowed) return tr("started");
    return decisionName(decision);
}

QIcon ActivityModel::categoryIcon(Category category)
{
    static const char* const names[] = {"command", "network", "approval",
                                        "file",    "limit",   "lifecycle"};
    return QIcon(
        QStringLiteral(":/icons/%1.svg").arg(QLatin1String(names[static_cast<int>(category)])));
}

} // namespace sbui
