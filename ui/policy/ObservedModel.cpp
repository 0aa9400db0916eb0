#include "ObservedModel.h"

namespace sbui {
namespace {

using json = nlohmann::json;

std::string text(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

ObservedModel::ObservedModel(Kind kind, QObject* parent)
    : QAbstractTableModel(parent), m_kind(kind), m_allowIcon(QStringLiteral(":/icons/allow.svg")),
      m_denyIcon(QStringLiteral(":/icons/deny.svg")),
      m_askIcon(QStringLiteral(":/icons/approval.svg"))
{
}

void ObservedModel::setSource(ActivityModel* activity)
{
    if (m_source) disconnect(m_source, nullptr, this, nullptr);
    m_source = activity;
    if (activity) {
        connect(activity, &QAbstractItemModel::rowsInserted, this,
                [this](const QModelIndex&, int first, int last) { take(first, last); });
        connect(activity, &QAbstractItemModel::modelReset, this, &ObservedModel::rebuild);
        connect(activity, &QAbstractItemModel::rowsRemoved, this, &ObservedModel::rebuild);
    }
    rebuild();
}

void ObservedModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    m_index.clear();
    endResetModel();
    if (ActivityModel* source = m_source; source && source->rowCount() > 0)
        take(0, source->rowCount() - 1);
}

void ObservedModel::take(int first, int last)
{
    ActivityModel* source = m_source;
    if (!source) return;
    const auto wanted = m_kind == Kind::Network ? ActivityModel::Category::Network
                                                : ActivityModel::Category::Command;
    for (int r = first; r <= last; ++r) {
        if (source->category(r) != wanted) continue;
        const json e = source->event(r);
        Row row;
        std::string key;
        if (m_kind == Kind::Network) {
            // Only decided connections: "closed" and "failed" follow one that was decided.
            if (text(e, "type") != "decided") continue;
            row.request.kind = sb::ApprovalKind::Network;
            row.request.host = text(e, "host");
            row.request.port = static_cast<std::uint16_t>(e.value("port", 0));
            row.request.protocol = text(e, "protocol");
            row.asked = e.value("asked", false);
            const QString host = QString::fromStdString(row.request.host);
            row.subject = (host.contains(u':') ? u'[' + host + u']' : host) + u':' +
                          QString::number(row.request.port);
            key = row.request.host + '\n' + std::to_string(row.request.port);
        } else {
            row.request.kind = sb::ApprovalKind::Command;
            row.request.program = text(e, "program");
            if (auto argv = e.find("argv"); argv != e.end() && argv->is_array())
                for (const json& a : *argv)
                    if (a.is_string()) row.request.argv.push_back(a.get<std::string>());
            row.request.cwd = text(e, "cwd");
            row.asked = text(e, "decision") == "ask";
            row.subject = row.request.argv.empty()
                              ? QString::fromStdString(row.request.program)
                              : ActivityModel::fieldText("argv", e.value("argv", json::array()));
            // argv[0] is the agent's choice; the program and the arguments are what rules see.
            key = row.request.program;
            for (std::size_t i = 1; i < row.request.argv.size(); ++i)
                key += '\0' + row.request.argv[i];
        }
        row.decision = source->decision(r);
        row.rule = QString::fromStdString(text(e, "rule"));

        auto found = m_index.find(key);
        if (found == m_index.end()) {
            const int at = static_cast<int>(m_rows.size());
            row.count = 1;
            beginInsertRows({}, at, at);
            m_rows.push_back(std::move(row));
            m_index.emplace(std::move(key), at);
            endInsertRows();
        } else {
            Row& seen = m_rows[static_cast<std::size_t>(found->second)];
            seen.count += 1;
            seen.decision = row.decision;
            seen.asked = row.asked;
            seen.rule = row.rule;
            Q_EMIT dataChanged(index(found->second, 0), index(found->second, ColumnCount - 1));
        }
    }
}

sb::ApprovalRequest ObservedModel::request(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].request;
}

ActivityModel::Decision ObservedModel::decision(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].decision;
}

QString ObservedModel::subject(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].subject;
}

int ObservedModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ObservedModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ObservedModel::decisionText(const Row& row) const
{
    using D = ActivityModel::Decision;
    if (row.asked && row.decision == D::Allowed) return tr("allowed when asked");
    if (row.asked && row.decision == D::Denied) return tr("denied when asked");
    return ActivityModel::decisionName(row.decision);
}

QVariant ObservedModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SubjectColumn:
            return row.subject;
        case DecisionColumn:
            return decisionText(row);
        case CountColumn:
            return row.count;
        case RuleColumn:
            return row.rule;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == SubjectColumn && m_kind == Kind::Command)
            return QString::fromStdString(row.request.program);
        if (index.column() == RuleColumn) return row.rule;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == CountColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DecorationRole:
        if (index.column() == DecisionColumn) {
            using D = ActivityModel::Decision;
            if (row.decision == D::Allowed) return m_allowIcon;
            if (row.decision == D::Denied) return m_denyIcon;
            if (row.decision == D::Asked) return m_askIcon;
        }
        return {};
    default:
        return {};
    }
}

QVariant ObservedModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case SubjectColumn:
        return m_kind == Kind::Network ? tr("Destination") : tr("Command");
    case DecisionColumn:
        return tr("Decision");
    case CountColumn:
        return tr("Times");
    case RuleColumn:
        return tr("Decided by");
    }
    return {};
}

} // namespace sbui
