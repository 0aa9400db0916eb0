#include "NetworkRulesModel.h"

#include "RuleText.h"

namespace sbui {

NetworkRulesModel::NetworkRulesModel(QObject* parent) : RuleTableModel(parent) {}

NetworkRulesModel::Row NetworkRulesModel::toRow(const sb::NetworkRule& rule)
{
    return {rule.action, QString::fromStdString(rule.host), RuleText::portsText(rule.ports),
            QString::fromStdString(rule.comment)};
}

void NetworkRulesModel::setRules(const std::vector<sb::NetworkRule>& rules)
{
    beginResetModel();
    m_rows.clear();
    for (const sb::NetworkRule& r : rules) {
        Row row = toRow(r);
        m_rows.push_back({row, check(row)});
    }
    endResetModel();
}

sb::NetworkRule NetworkRulesModel::rule(int r) const
{
    const Row& row = this->row(r);
    sb::NetworkRule out;
    out.action = row.action;
    out.host = row.host.toStdString();
    out.ports = RuleText::ports(row.ports);
    out.comment = row.comment.toStdString();
    return out;
}

std::vector<sb::NetworkRule> NetworkRulesModel::rules() const
{
    std::vector<sb::NetworkRule> out;
    for (int r = 0; r < ruleCount(); ++r)
        out.push_back(rule(r));
    return out;
}

nlohmann::json NetworkRulesModel::entry(const Row& row)
{
    nlohmann::json e = {{"action", RuleText::actionKeyword(row.action).toStdString()},
                        {"host", row.host.toStdString()}};
    if (nlohmann::json ports = RuleText::portsJson(row.ports); !ports.is_null()) e["ports"] = ports;
    if (!row.comment.isEmpty()) e["comment"] = row.comment.toStdString();
    return e;
}

nlohmann::json NetworkRulesModel::entries() const
{
    nlohmann::json out = nlohmann::json::array();
    for (const Item& item : m_rows)
        out.push_back(entry(item.row));
    return out;
}

NetworkRulesModel::Problem NetworkRulesModel::check(const Row& row)
{
    QString field;
    Problem p;
    p.text = RuleText::networkRuleProblem(entry(row), &field);
    if (!p.text.isEmpty())
        p.column = field == QLatin1String("ports")     ? PortsColumn
                   : field == QLatin1String("comment") ? CommentColumn
                                                       : HostColumn;
    return p;
}

int NetworkRulesModel::insertRule(int row, const Row& rule)
{
    row = std::clamp(row, 0, ruleCount());
    beginInsertRows({}, row, row);
    m_rows.insert(m_rows.begin() + row, Item{rule, check(rule)});
    endInsertRows();
    Q_EMIT edited();
    return row;
}

int NetworkRulesModel::insertRule(int row, const sb::NetworkRule& rule)
{
    return insertRule(row, toRow(rule));
}

void NetworkRulesModel::setRow(int r, const Row& rule)
{
    if (r < 0 || r >= ruleCount()) return;
    m_rows[static_cast<std::size_t>(r)] = {rule, check(rule)};
    Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
    Q_EMIT edited();
}

int NetworkRulesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NetworkRulesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item& item = m_rows[static_cast<std::size_t>(index.row())];
    const Row& row = item.row;
    switch (role) {
    case ProblemRole:
        return item.problem.text;
    case ActionRole:
        return static_cast<int>(row.action);
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case ActionColumn:
            return role == Qt::EditRole ? QVariant(static_cast<int>(row.action))
                                        : QVariant(RuleText::actionLabel(row.action));
        case HostColumn:
            return row.host;
        case PortsColumn:
            return role == Qt::DisplayRole && row.ports.trimmed().isEmpty() ? tr("any") : row.ports;
        case CommentColumn:
            return row.comment;
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == ActionColumn) return RuleText::actionIcon(row.action);
        return problemData(index, role);
    case Qt::ToolTipRole:
        return problemData(index, role);
    default:
        return {};
    }
}

bool NetworkRulesModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || isReadOnly() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return false;
    Row row = this->row(index.row());
    switch (index.column()) {
    case ActionColumn: {
        const int a = value.toInt();
        if (a < 0 || a > static_cast<int>(sb::RuleAction::Deny)) return false;
        row.action = static_cast<sb::RuleAction>(a);
        break;
    }
    case HostColumn:
        row.host = value.toString().trimmed();
        break;
    case PortsColumn:
        row.ports = value.toString().trimmed();
        break;
    case CommentColumn:
        row.comment = value.toString();
        break;
    default:
        return false;
    }
    setRow(index.row(), row);
    return true;
}

QVariant NetworkRulesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole) {
        switch (section) {
        case ActionColumn:
            return tr("Action");
        case HostColumn:
            return tr("Host");
        case PortsColumn:
            return tr("Ports");
        case CommentColumn:
            return tr("Comment");
        }
    }
    return RuleTableModel::headerData(section, orientation, role);
}

void NetworkRulesModel::moveRuleRows(int first, int count, int destination)
{
    moveBlock(m_rows, first, count, destination);
}

void NetworkRulesModel::eraseRuleRows(int first, int count)
{
    m_rows.erase(m_rows.begin() + first, m_rows.begin() + first + count);
}

const RuleTableModel::Problem& NetworkRulesModel::problemAt(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].problem;
}

} // namespace sbui
