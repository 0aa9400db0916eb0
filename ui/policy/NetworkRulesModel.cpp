#include "NetworkRulesModel.h"

namespace sbui {

NetworkRulesModel::NetworkRulesModel(QObject* parent) : RuleRowsModel(parent) {}

NetworkRulesModel::Row NetworkRulesModel::toRow(const sb::NetworkRule& rule)
{
    return {rule.action,
            QString::fromStdString(rule.host),
            RuleText::portsText(rule.ports),
            QString::fromStdString(rule.comment),
            QString::fromStdString(rule.program),
            QString::fromStdString(rule.command)};
}

sb::NetworkRule NetworkRulesModel::toRule(const Row& row)
{
    sb::NetworkRule out;
    out.action = row.action;
    out.host = row.host.toStdString();
    out.ports = RuleText::ports(row.ports);
    out.comment = row.comment.toStdString();
    out.program = row.program.toStdString();
    out.command = row.command.toStdString();
    return out;
}

nlohmann::json NetworkRulesModel::entry(const Row& row)
{
    nlohmann::json e = {{"action", RuleText::actionKeyword(row.action).toStdString()},
                        {"host", row.host.toStdString()}};
    if (nlohmann::json ports = RuleText::portsJson(row.ports); !ports.is_null()) e["ports"] = ports;
    if (!row.program.isEmpty()) e["program"] = row.program.toStdString();
    if (!row.command.isEmpty()) e["command"] = row.command.toStdString();
    if (!row.comment.isEmpty()) e["comment"] = row.comment.toStdString();
    return e;
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

QVariant NetworkRulesModel::cellData(const Row& row, int column, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    switch (column) {
    case HostColumn:
        // Whom the rule is for, beside its host: edited in the file, not in this cell.
        if (role == Qt::EditRole || (row.program.isEmpty() && row.command.isEmpty()))
            return row.host;
        if (row.command.isEmpty()) return tr("%1 (program %2)").arg(row.host, row.program);
        if (row.program.isEmpty()) return tr("%1 (command %2)").arg(row.host, row.command);
        return tr("%1 (program %2, command %3)").arg(row.host, row.program, row.command);
    case PortsColumn:
        return role == Qt::DisplayRole && row.ports.trimmed().isEmpty() ? tr("any") : row.ports;
    case CommentColumn:
        return row.comment;
    default:
        return {};
    }
}

bool NetworkRulesModel::setCell(Row& row, int column, const QVariant& value)
{
    switch (column) {
    case HostColumn:
        row.host = value.toString().trimmed();
        return true;
    case PortsColumn:
        row.ports = value.toString().trimmed();
        return true;
    case CommentColumn:
        row.comment = value.toString();
        return true;
    default:
        return false;
    }
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

} // namespace sbui
