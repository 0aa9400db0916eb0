// What the network and command rule tables have in common: ordered rows that the user reorders
// (drag and drop through mime data, or moveRows() for the up and down buttons), deletes and edits
// in place, each row checked by the core as it changes. A read-only table (learned rules, a
// preset) refuses all of that.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <algorithm>
#include <vector>

namespace sbui {

class RuleTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Role {
        ProblemRole = Qt::UserRole + 1, // QString: what is wrong with the row; empty when fine
        ActionRole,                     // int(sb::RuleAction)
    };
    static constexpr const char* kMimeType = "application/x-sandbench-policy-rules";

    explicit RuleTableModel(QObject* parent = nullptr);

    void setReadOnly(bool readOnly);
    bool isReadOnly() const { return m_readOnly; }

    int rowCount(const QModelIndex& parent = {}) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                         const QModelIndex& parent) const override;
    // Moves the dragged rows (of this model only) before `row`, or before `parent`'s row when
    // dropped on a rule.
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                  const QModelIndex& destinationParent, int destinationChild) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    // One step up (-1) or down (+1); false at either end.
    bool moveRule(int row, int delta);
    // What is wrong with a row, and the column at fault; empty and -1 when it is fine.
    QString problem(int row) const { return problemAt(row).text; }
    int problemColumn(int row) const { return problemAt(row).column; }
    // Rows with a problem, in order.
    std::vector<int> problemRows() const;

  Q_SIGNALS:
    // The user changed the rules: a value, an insertion, a deletion or the order.
    void edited();

  protected:
    struct Problem {
        int column = -1;
        QString text;
    };
    virtual int ruleCount() const = 0;
    virtual void moveRuleRows(int first, int count, int destination) = 0;
    virtual void eraseRuleRows(int first, int count) = 0;
    virtual const Problem& problemAt(int row) const = 0;
    // Decoration and tool tip of a cell at fault; the subclass's data() asks for them.
    QVariant problemData(const QModelIndex& index, int role) const;

    // `destination` as moveRows() counts it: the row before which the block lands, in the order
    // before the move.
    template <class T>
    static void moveBlock(std::vector<T>& rows, int first, int count, int destination)
    {
        auto begin = rows.begin();
        if (destination > first)
            std::rotate(begin + first, begin + first + count, begin + destination);
        else
            std::rotate(begin + destination, begin + first, begin + first + count);
    }

  private:
    bool m_readOnly = false;
};

} // namespace sbui
