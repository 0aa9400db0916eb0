// `commands.rules` as an editable, ordered table: action, pattern, comment. Patterns are kept as
// typed, so a wrong one stays visible with the core's message until it is fixed.
#pragma once

#include "Policy.h"
#include "RuleTableModel.h"

#include <nlohmann/json.hpp>

namespace sbui {

class CommandRulesModel : public RuleTableModel {
    Q_OBJECT
  public:
    enum Column { ActionColumn, MatchColumn, CommentColumn, ColumnCount };

    struct Row {
        sb::RuleAction action = sb::RuleAction::Ask;
        QString match;
        QString comment;
    };

    explicit CommandRulesModel(QObject* parent = nullptr);

    // Replaces every rule (a load, not an edit: no edited()).
    void setRules(const std::vector<sb::CommandRule>& rules);
    std::vector<sb::CommandRule> rules() const;
    sb::CommandRule rule(int row) const;
    // The rows as `commands.rules` entries (what the core checks).
    nlohmann::json entries() const;
    const Row& row(int r) const { return m_rows[static_cast<std::size_t>(r)].row; }

    int insertRule(int row, const Row& rule);
    int insertRule(int row, const sb::CommandRule& rule);
    void setRow(int row, const Row& rule);
    static Row toRow(const sb::CommandRule& rule);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  protected:
    int ruleCount() const override { return static_cast<int>(m_rows.size()); }
    void moveRuleRows(int first, int count, int destination) override;
    void eraseRuleRows(int first, int count) override;
    const Problem& problemAt(int row) const override;

  private:
    struct Item {
        Row row;
        Problem problem;
    };
    static nlohmann::json entry(const Row& row);
    static Problem check(const Row& row);

    std::vector<Item> m_rows;
};

} // namespace sbui
