// `commands.rules` as an editable, ordered table: action, pattern, comment. Patterns are kept as
// typed, so a wrong one stays visible with the core's message until it is fixed.
#pragma once

#include "RuleRowsModel.h"
#include "policy/Policy.h"

namespace sbui {

struct CommandRuleRow {
    sb::RuleAction action = sb::RuleAction::Ask;
    QString match;
    QString comment;
};

class CommandRulesModel : public RuleRowsModel<CommandRulesModel, CommandRuleRow, sb::CommandRule> {
    Q_OBJECT
  public:
    enum Column { ActionColumn, MatchColumn, CommentColumn, ColumnCount };

    explicit CommandRulesModel(QObject* parent = nullptr);

    // What RuleRowsModel asks of a table.
    static Row toRow(const sb::CommandRule& rule);
    static sb::CommandRule toRule(const Row& row);
    static nlohmann::json entry(const Row& row);
    static Problem check(const Row& row);
    QVariant cellData(const Row& row, int column, int role) const;
    static bool setCell(Row& row, int column, const QVariant& value);

    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace sbui
