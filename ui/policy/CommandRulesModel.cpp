#include "CommandRulesModel.h"

#include "terminal/MonospaceFont.h"

#include <QFont>

namespace sbui {

CommandRulesModel::CommandRulesModel(QObject* parent) : RuleRowsModel(parent) {}

CommandRulesModel::Row CommandRulesModel::toRow(const sb::CommandRule& rule)
{
    return {rule.action, QString::fromStdString(rule.match), QString::fromStdString(rule.comment)};
}

sb::CommandRule CommandRulesModel::toRule(const Row& row)
{
    return {row.action, row.match.toStdString(), row.comment.toStdString()};
}

nlohmann::json CommandRulesModel::entry(const Row& row)
{
    nlohmann::json e = {{"action", RuleText::actionKeyword(row.action).toStdString()},
                        {"match", row.match.toStdString()}};
    if (!row.comment.isEmpty()) e["comment"] = row.comment.toStdString();
    return e;
}

CommandRulesModel::Problem CommandRulesModel::check(const Row& row)
{
    QString field;
    Problem p;
    p.text = RuleText::commandRuleProblem(entry(row), &field);
    if (!p.text.isEmpty())
        p.column = field == QLatin1String("comment") ? CommentColumn : MatchColumn;
    return p;
}

QVariant CommandRulesModel::cellData(const Row& row, int column, int role) const
{
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        if (column == MatchColumn) return row.match;
        if (column == CommentColumn) return row.comment;
    } else if (role == Qt::FontRole && column == MatchColumn) {
        // Patterns are command lines: shown as a terminal would.
        return monospaceFont();
    }
    return {};
}

bool CommandRulesModel::setCell(Row& row, int column, const QVariant& value)
{
    switch (column) {
    case MatchColumn:
        row.match = value.toString().trimmed();
        return true;
    case CommentColumn:
        row.comment = value.toString();
        return true;
    default:
        return false;
    }
}

QVariant CommandRulesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole) {
        switch (section) {
        case ActionColumn:
            return tr("Action");
        case MatchColumn:
            return tr("Command pattern");
        case CommentColumn:
            return tr("Comment");
        }
    }
    return RuleTableModel::headerData(section, orientation, role);
}

} // namespace sbui
