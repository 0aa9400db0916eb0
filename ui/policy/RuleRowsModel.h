// What the network and command rule tables store alike: each row as the user typed it, with the
// core's verdict on it, loaded from and turned back into the policy's rules. `Model` (the table
// itself) supplies the conversions, the check and its own columns; the action column, the
// problem roles and the row bookkeeping are here.
#pragma once

#include "RuleTableModel.h"
#include "RuleText.h"

#include <nlohmann/json.hpp>

namespace sbui {

// Model needs: enum columns with ActionColumn and ColumnCount; static Row toRow(const Rule&),
// Rule toRule(const Row&), nlohmann::json entry(const Row&), Problem check(const Row&); and
// QVariant cellData(const Row&, int column, int role) const, static bool setCell(Row&, int column,
// const QVariant&) for its other columns.
template <class Model, class RowT, class Rule> class RuleRowsModel : public RuleTableModel {
  public:
    using Row = RowT;
    using RuleTableModel::RuleTableModel;

    // Replaces every rule (a load, not an edit: no edited()).
    void setRules(const std::vector<Rule>& rules)
    {
        beginResetModel();
        m_rows.clear();
        for (const Rule& r : rules) {
            Row row = Model::toRow(r);
            m_rows.push_back({row, Model::check(row)});
        }
        endResetModel();
    }

    // The rules as a policy holds them; a row with a problem goes as far as it can.
    std::vector<Rule> rules() const
    {
        std::vector<Rule> out;
        for (const Item& item : m_rows)
            out.push_back(Model::toRule(item.row));
        return out;
    }
    Rule rule(int r) const { return Model::toRule(row(r)); }

    // The rows as the policy's entries, values as typed (what the core checks).
    nlohmann::json entries() const
    {
        nlohmann::json out = nlohmann::json::array();
        for (const Item& item : m_rows)
            out.push_back(Model::entry(item.row));
        return out;
    }
    const Row& row(int r) const { return m_rows[static_cast<std::size_t>(r)].row; }

    // Inserts before `row` (clamped to the end); returns where it went.
    int insertRule(int at, const Row& rule)
    {
        at = std::clamp(at, 0, ruleCount());
        beginInsertRows({}, at, at);
        m_rows.insert(m_rows.begin() + at, Item{rule, Model::check(rule)});
        endInsertRows();
        Q_EMIT edited();
        return at;
    }
    int insertRule(int at, const Rule& rule) { return insertRule(at, Model::toRow(rule)); }

    void setRow(int r, const Row& rule)
    {
        if (r < 0 || r >= ruleCount()) return;
        m_rows[static_cast<std::size_t>(r)] = {rule, Model::check(rule)};
        Q_EMIT dataChanged(index(r, 0), index(r, Model::ColumnCount - 1));
        Q_EMIT edited();
    }

    int columnCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() ? 0 : Model::ColumnCount;
    }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override
    {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
        const Item& item = m_rows[static_cast<std::size_t>(index.row())];
        const bool actionColumn = index.column() == Model::ActionColumn;
        switch (role) {
        case ProblemRole:
            return item.problem.text;
        case ActionRole:
            return static_cast<int>(item.row.action);
        case Qt::DecorationRole:
            if (actionColumn) return RuleText::actionIcon(item.row.action);
            return problemData(index, role);
        case Qt::ToolTipRole:
            return problemData(index, role);
        case Qt::DisplayRole:
        case Qt::EditRole:
            if (actionColumn)
                return role == Qt::EditRole ? QVariant(static_cast<int>(item.row.action))
                                            : QVariant(RuleText::actionLabel(item.row.action));
            break;
        default:
            break;
        }
        return static_cast<const Model*>(this)->cellData(item.row, index.column(), role);
    }

    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override
    {
        if (role != Qt::EditRole || isReadOnly() ||
            !checkIndex(index, CheckIndexOption::IndexIsValid))
            return false;
        Row edited = row(index.row());
        if (index.column() == Model::ActionColumn) {
            const int a = value.toInt();
            if (a < 0 || a > static_cast<int>(sb::RuleAction::Deny)) return false;
            edited.action = static_cast<sb::RuleAction>(a);
        } else if (!Model::setCell(edited, index.column(), value)) {
            return false;
        }
        setRow(index.row(), edited);
        return true;
    }

  protected:
    int ruleCount() const override { return static_cast<int>(m_rows.size()); }
    void moveRuleRows(int first, int count, int destination) override
    {
        moveBlock(m_rows, first, count, destination);
    }
    void eraseRuleRows(int first, int count) override
    {
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + first + count);
    }
    const Problem& problemAt(int r) const override
    {
        return m_rows[static_cast<std::size_t>(r)].problem;
    }

  private:
    struct Item {
        Row row;
        Problem problem;
    };
    std::vector<Item> m_rows;
};

} // namespace sbui
