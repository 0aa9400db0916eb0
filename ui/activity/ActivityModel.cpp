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

QString str(const json& event, const char* key)
{
    auto it = event.find(key);
    if (it == event.end() || it->is_null()) return {};
    if (it->is_string()) return QString::fromStdString(it->get<std::string>());
    return QString::fromStdString(it->dump());
}

// Field readers that never throw: a field of an unexpected type reads as absent.
std::string text(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_boolean() && it->get<bool>();
}

std::int64_t number(const json& e, const char* key, std::int64_t otherwise = 0)
{
    auto it = e.find(key);
    return it != e.end() && it->is_number() ? it->get<std::int64_t>() : otherwise;
}

QString hostPort(const json& e)
{
    QString host = str(e, "host");
    if (host.contains(u':')) host = u'[' + host + u']';
    return host + u':' + str(e, "port");
}

QString words(const json& argv)
{
    QStringList out;
    for (const json& a : argv)
        out << QString::fromStdString(
            sb::quoteCommandWord(a.is_string() ? a.get<std::string>() : a.dump()));
    return out.join(u' ');
}

QString bytes(std::int64_t n)
{
    return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat);
}

QString humanWords(QString s)
{
    return s.replace(u'_', u' ');
}

} // namespace

// A file event (docs/protocol.md, "File events").
QString ActivityModel::fileSummary(const json& e)
{
    const std::string change = text(e, "change");
    const QString path = str(e, "path");
    const bool folder = text(e, "type") == "directory";
    if (change == "added")
        return folder ? tr("added folder %1").arg(path) : tr("added %1").arg(path);
    if (change == "modified") return tr("modified %1").arg(path);
    if (change == "deleted")
        return folder ? tr("deleted folder %1").arg(path) : tr("deleted %1").arg(path);
    if (change == "renamed") return tr("renamed %1 to %2").arg(str(e, "from"), path);
    if (change == "more") {
        const int count = static_cast<int>(number(e, "count"));
        QString summary = path.isEmpty()
                              ? tr("%n more file change(s)", nullptr, count)
                              : tr("%n more file change(s) in %1", nullptr, count).arg(path);
        QStringList parts;
        if (int n = static_cast<int>(number(e, "added")); n > 0)
            parts << tr("%n added", nullptr, n);
        if (int n = static_cast<int>(number(e, "modified")); n > 0)
            parts << tr("%n modified", nullptr, n);
        if (int n = static_cast<int>(number(e, "deleted")); n > 0)
            parts << tr("%n deleted", nullptr, n);
        if (int n = static_cast<int>(number(e, "renamed")); n > 0)
            parts << tr("%n renamed", nullptr, n);
        if (!parts.isEmpty())
            summary += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
        return summary;
    }
    return change.empty() ? path : tr("%1 %2").arg(QString::fromStdString(change), path);
}

// A limit event (docs/protocol.md, "Limit events").
QString ActivityModel::limitSummary(const json& e)
{
    const std::string limit = text(e, "limit");
    const std::string action = text(e, "action");
    const std::string unit = text(e, "unit");
    const QString value = str(e, "value");
    const int count = static_cast<int>(number(e, "count", 1));
    QString amount = value;
    if (unit == "MiB")
        amount = tr("%1 MiB").arg(value);
    else if (unit == "s")
        amount = tr("%1 s").arg(value);
    if (limit == "memory" && action == "throttled")
        return tr("memory limit (%1) reached: the kernel reclaimed memory (%n time(s))", nullptr,
                  count)
            .arg(amount);
    if (limit == "memory" && action == "killed")
        return tr("memory limit (%1) reached: %n process(es) killed", nullptr, count).arg(amount);
    if (limit == "pids" && action == "refused")
        return tr("process limit (%1) reached: %n new process(es) refused", nullptr, count)
            .arg(amount);
    if (limit == "wall" && action == "stopped")
        return tr("time limit (%1) reached: the session was stopped").arg(amount);
    if (limit == "cpu_time" && action == "killed")
        return tr("CPU time limit (%1) reached: the command was killed (SIGXCPU)").arg(amount);
    if (limit == "file_size" && action == "killed")
        return tr("file size limit (%1) reached: the command was killed (SIGXFSZ)").arg(amount);
    QString summary = tr("limit: %1").arg(humanWords(QString::fromStdString(limit)));
    QStringList more;
    if (e.contains("value")) more << value;
    if (e.contains("action")) more << QString::fromStdString(action);
    if (!more.isEmpty()) summary += QStringLiteral(" (%1)").arg(more.join(QStringLiteral(", ")));
    return summary;
}

ActivityModel::ActivityModel(QObject* parent) : QAbstractTableModel(parent)
{
    for (int c = 0; c <= static_cast<int>(Category::Lifecycle); ++c)
        m_icons.push_back(categoryIcon(static_cast<Category>(c)));
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kFlushMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &ActivityModel::flush);
}

ActivityModel::Row ActivityModel::makeRow(const json& e)
{
    Row row;
    if (!e.is_object()) {
        row.kind = QStringLiteral("?");
        row.summary = QString::fromStdString(e.dump());
        row.json = e.dump();
        row.search = row.summary.toLower().toStdString();
        return row;
    }
    row.timeUnixMs = number(e, "time_unix_ms");
    const std::string kind = text(e, "kind");
    const std::string type = text(e, "type");
    const std::string decision = text(e, "decision");
    row.kind = QString::fromStdString(kind);
    auto verdict = [&](const std::string& d) {
        if (d == "allow") return Decision::Allowed;
        if (d == "deny") return Decision::Denied;
        if (d == "ask") return Decision::Asked;
        return Decision::None;
    };

    if (kind == sb::activity::kCommand) {
        row.category = Category::Command;
        row.decision = verdict(decision);
        row.commandId = number(e, "id", -1);
        auto argv = e.find("argv");
        row.summary = argv != e.end() && argv->is_array() && !argv->empty() ? words(*argv)
                                                                            : str(e, "program");
    } else if (kind == sb::activity::kNetwork) {
        row.category = Category::Network;
        if (type == "decided") {
            row.decision = verdict(decision);
            QString how = row.decision == Decision::Allowed ? tr("allowed") : tr("denied");
            QString rule = str(e, "rule");
            row.summary = rule.isEmpty() ? tr("%1 %2").arg(hostPort(e), how)
                                         : tr("%1 %2 by %3").arg(hostPort(e), how, rule);
        } else if (type == "failed") {
            row.summary = tr("%1 failed: %2").arg(hostPort(e), str(e, "detail"));
        } else if (type == "malformed") {
            row.summary = tr("malformed proxy request: %1").arg(str(e, "detail"));
        } else if (type == "closed") {
            row.summary =
                tr("%1 closed (%2 up, %3 down)")
                    .arg(hostPort(e), bytes(number(e, "bytes_up")), bytes(number(e, "bytes_down")));
        } else if (type == "lookup") {
            // A name the sandbox's resolver answered: its addresses, or why none.
            QStringList addresses;
            if (auto list = e.find("addresses"); list != e.end() && list->is_array())
                for (const auto& a : *list)
                    if (a.is_string()) addresses << QString::fromStdString(a.get<std::string>());
            row.summary = tr("looked up %1 (%2): %3")
                              .arg(str(e, "host"), str(e, "query_type"),
                                   addresses.isEmpty() ? str(e, "rcode")
                                                       : addresses.join(QStringLiteral(", ")));
        } else {
            row.summary = hostPort(e);
        }
    } else if (kind == sb::activity::kApproval) {
        row.category = Category::Approval;
        const QString id = str(e, "request_id");
        row.requestId = number(e, "request_id", -1);
        row.commandId = number(e, "command_id", -1);
        row.outcome = type != "request";
        if (type == "request") {
            row.decision = Decision::Asked;
            row.summary = tr("approval #%1 asked: %2").arg(id, str(e, "what"));
        } else {
            const bool allow = decision == "allow";
            const QString how = allow ? tr("allowed") : tr("denied");
            if (flag(e, "timed_out")) {
                row.decision = Decision::TimedOut;
                row.summary = tr("approval #%1 timed out: %2").arg(id, how);
            } else if (flag(e, "cancelled")) {
                row.decision = allow ? Decision::Allowed : Decision::Denied;
                row.summary = tr("approval #%1 cancelled: %2").arg(id, how);
            } else {
                row.decision = allow ? Decision::Allowed : Decision::Denied;
                row.summary = tr("approval #%1 %2 (%3, by %4)")
                                  .arg(id, how, str(e, "duration"), str(e, "answered_by"));
            }
        }
    } else if (kind == sb::activity::kFile) {
        row.category = Category::File;
        row.summary = fileSummary(e);
    } else if (kind == sb::activity::kLimit) {
        row.category = Category::Limit;
        row.summary = limitSummary(e);
    } else if (kind == sb::activity::kLifecycle) {
        row.category = Category::Lifecycle;
        if (type == "exit") {
            const std::int64_t status = number(e, "status", -1);
            row.summary = status > 128 ? tr("exit %1 (signal %2)").arg(status).arg(status - 128)
                                       : tr("exit %1").arg(status);
        } else {
            QString what = str(e, "phase");
            if (what.isEmpty()) what = str(e, "type");
            row.summary = humanWords(what);
            QString detail = str(e, "detail");
            if (detail.isEmpty()) detail = str(e, "message");
            if (!detail.isEmpty()) row.summary += QStringLiteral(": ") + detail;
        }
    } else if (kind == sb::activity::kPolicy && type == "update") {
        // The running session took a new policy (policy_update; the recording's policy_change).
        row.category = Category::Lifecycle;
        auto sections = [&](const char* key) {
            QStringList out;
            if (auto it = e.find(key); it != e.end() && it->is_array())
                for (const json& s : *it)
                    if (s.is_string()) out << QString::fromStdString(s.get<std::string>());
            return out.join(QStringLiteral(", "));
        };
        row.summary = tr("policy changed by %1: %2 command rules, %3 network rules")
                          .arg(str(e, "by"))
                          .arg(number(e, "commands_rules"))
                          .arg(number(e, "network_rules"));
        if (const QString applied = sections("applied"); !applied.isEmpty())
            row.summary += tr("; applied: %1").arg(applied);
        if (const QString deferred = sections("deferred"); !deferred.isEmpty())
            row.summary += tr("; for new sessions only: %1").arg(deferred);
    } else if (kind == sb::activity::kPolicy) {
        // A rule learned from an "always" answer (the recording's policy_change).
        row.category = Category::Approval;
        row.summary =
            tr("policy: %1 rule %2 (%3)").arg(str(e, "section"), str(e, "rule"), str(e, "source"));
    } else if (kind == sb::activity::kError) {
        row.category = Category::Lifecycle;
        row.summary = tr("error: %1").arg(str(e, "message"));
    } else if (kind == sb::activity::kPort) {
        row.category = Category::Lifecycle;
        row.summary =
            text(e, "action") == "exposed"
                ? tr("port %1 exposed at 127.0.0.1:%2 by %3")
                      .arg(number(e, "port"))
                      .arg(number(e, "host_port"))
                      .arg(str(e, "by"))
                : tr("port %1 no longer exposed (%2)").arg(number(e, "port")).arg(str(e, "by"));
    } else if (kind == sb::activity::kSnapshot) {
        row.category = Category::Lifecycle;
        row.summary = tr("snapshot %1 taken by %2 (the sandbox frozen %3 ms)")
                          .arg(str(e, "name"), str(e, "by"))
                          .arg(QLocale().toString(e.value("frozen_ms", 0.0), 'f', 1));
    } else if (kind == sb::activity::kRecording) {
        // The recording stopped (a full disk, a database locked by another program) or went on.
        row.category = Category::Lifecycle;
        row.summary = str(e, "message");
    } else {
        row.category = Category::Lifecycle;
        json rest = e;
        rest.erase("kind");
        rest.erase("time_unix_ms");
        row.summary = tr("%1: %2").arg(row.kind, QString::fromStdString(rest.dump()));
    }
    // A timed-out request took the policy's on_timeout action; it counts as refused when denied.
    row.refused = row.decision == Decision::Denied ||
                  (row.decision == Decision::TimedOut && decision == "deny");
    row.json = e.dump();

    QString search = row.summary + u'\n' + decisionName(row.decision);
    for (const auto& [key, value] : e.items())
        search += u'\n' + QString::fromStdString(key) + u' ' + fieldText(key, value);
    row.search = search.toLower().toStdString();
    return row;
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
        if (row.category == Category::Command && row.decision == Decision::Asked &&
            row.commandId >= 0)
            m_askedCommands[row.commandId] = at;
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
        lowest = std::min(lowest, command->second);
        m_askedCommands.erase(command);
    }
    m_openRequests.erase(request);
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
            return tr("The program started. What it does then (the files it reads, the calls it "
                      "makes) is confined by the sandbox, which lists no activity for it: a "
                      "read of a hidden file simply fails.");
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

QString ActivityModel::fieldText(const std::string& key, const json& value)
{
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    if (key == "argv" && value.is_array()) return words(value);
    return QString::fromStdString(value.dump());
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
