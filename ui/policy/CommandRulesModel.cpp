#include "CommandRulesModel.h"

#include "RuleText.h"

#include <QFont>

namespace sbui {

CommandRulesModel::CommandRulesModel(QObject* parent) : RuleTableModel(parent) {}

CommandRulesModel::Row CommandRulesModel::toRow(const sb::CommandRule& rule)
{
    return {rule.action, QString::fromStdString(rule.match), QString::fromStdString(rule.comment)};
}

void CommandRulesModel::setRules(const std::vector<sb::CommandRule>& rules)
{
    beginResetModel();
    m_rows.clear();
    for (const sb::CommandRule& r : rules) {
        Row row = toRow(r);
        m_rows.push_back({row, check(row)});
    }
    endResetModel();
}

sb::CommandRule CommandRulesModel::rule(int r) const
{
    const Row& row = this->row(r);
    return {row.action, row.match.toStdString(), row.comment.toStdString()};
}

std::vector<sb::CommandRule> CommandRulesModel::rules() const
{
    std::vector<sb::CommandRule> out;
    for (int r = 0; r < ruleCount(); ++r)
        out.push_back(rule(r));
    return out;
}

nlohmann::json CommandRulesModel::entry(const Row& row)
{
    nlohmann::json e = {{"action", RuleText::actionKeyword(row.action).toStdString()},
                        {"match", row.match.toStdString()}};
    if (!row.comment.isEmpty()) e["comment"] = row.comment.toStdString();
    return e;
}

nlohmann::json CommandRulesModel::entries() const
{
    nlohmann::json out = nlohmann::json::array();
    for (const Item& item : m_rows)
        out.push_back(entry(item.row));
    return out;
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

int CommandRulesModel::insertRule(int row, const Row& rule)
{
    row = std::clamp(row, 0, ruleCount());
    beginInsertRows({}, row, row);
    m_rows.insert(m_rows.begin() + row, Item{rule, check(rule)});
    endInsertRows();
    Q_EMIT edited();
    return row;
}

int CommandRulesModel::insertRule(int row, const sb::CommandRule& rule)
{
    return insertRule(row, toRow(rule));
}

void CommandRulesModel::setRow(int r, const Row& rule)
{
    if (r < 0 || r >= ruleCount()) return;
    m_rows[static_cast<std::size_t>(r)] = {rule, check(rule)};
    Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
    Q_EMIT edited();
}

int CommandRulesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CommandRulesModel::data(const QModelIndex& index, int role) const
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
        case MatchColumn:
            return row.match;
        case CommentColumn:
            return row.comment;
        }
        return {};
    case Qt::FontRole:
        // Patterns are command lines: shown as a terminal would.
        if (index.column() == MatchColumn) {
            QFont mono(QStringLiteral("monospace"));
            mono.setStyleHint(QFont::TypeWriter);
            return mono;
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

bool CommandRulesModel::setData(const QModelIndex& index, const QVariant& value, int role)
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
    case MatchColumn:
        row.match = value.toString().trimmed();
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

void CommandRulesModel::moveRuleRows(int first, int count, int destination)
{
    moveBlock(m_rows, first, count, destination);
}

void CommandRulesModel::eraseRuleRows(int first, int count)
{
    m_rows.erase(m_rows.begin() + first, m_rows.begin() + first + count);
}

const RuleTableModel::Problem& CommandRulesModel::problemAt(int row) const
{
    return m_rows[static_cast<std::size_t>(row)].problem;
}

} // namespace sbui
