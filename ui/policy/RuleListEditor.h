// An ordered rule table with its controls: add, delete, move up and down (buttons, Ctrl+Up and
// Ctrl+Down), drag and drop to reorder, in-place editing (the action from a list), and the
// selected rule's problem, worded by the core, under the table.
#pragma once

#include <QTableView>
#include <QWidget>
#include <functional>

class QPushButton;
class QToolButton;

namespace sbui {

class MessageBar;
class RuleTableModel;

// Drags carry the rows as mime data and the model moves them on the drop; the view must not
// then delete the "moved" source rows as QAbstractItemView's own drag would.
class RuleTableView : public QTableView {
    Q_OBJECT
  public:
    using QTableView::QTableView;
    // Takes what is typed in an open cell editor into the model (before a save).
    void commitOpenEditor();

  protected:
    void startDrag(Qt::DropActions supportedActions) override;
};

class RuleListEditor : public QWidget {
    Q_OBJECT
  public:
    // `insert(row)` adds a fresh rule before `row` and returns where it went; `editColumn` is
    // the column the user types first (host or pattern).
    RuleListEditor(RuleTableModel* model, std::function<int(int)> insert, int editColumn,
                   QWidget* parent = nullptr);

    RuleTableView* view() const { return m_view; }
    QPushButton* addButton() const { return m_add; }
    QPushButton* deleteButton() const { return m_delete; }
    QToolButton* upButton() const { return m_up; }
    QToolButton* downButton() const { return m_down; }
    // The selected rule's problem as shown; empty when it has none.
    QString problemText() const;
    int currentRow() const;
    void selectRow(int row);

    void commitEdits() { m_view->commitOpenEditor(); }
    void addRule();
    void deleteRule();
    void moveUp();
    void moveDown();

  private:
    void updateButtons();

    RuleTableModel* m_model;
    std::function<int(int)> m_insert;
    int m_editColumn;
    RuleTableView* m_view;
    QPushButton *m_add, *m_delete;
    QToolButton *m_up, *m_down;
    MessageBar* m_problem;
};

} // namespace sbui
