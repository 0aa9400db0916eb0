#include "RuleListEditor.h"

#include "MessageBar.h"
#include "RuleTableModel.h"
#include "RuleText.h"

#include <QAction>
#include <QComboBox>
#include <QDrag>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QToolButton>
#include <QVBoxLayout>

namespace sbui {
namespace {

// The action column edits with a list of the three actions.
class ActionDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                          const QModelIndex&) const override
    {
        auto* box = new QComboBox(parent);
        for (auto a : {sb::RuleAction::Allow, sb::RuleAction::Ask, sb::RuleAction::Deny})
            box->addItem(RuleText::actionIcon(a), RuleText::actionLabel(a), static_cast<int>(a));
        // A choice is a complete edit: commit it at once. The list stays open for the next arrow
        // key (each one chooses again) and closes as any editor does, when the focus moves on;
        // closing it here had the next key commit through an editor already gone.
        connect(box, &QComboBox::activated, this,
                [this, box] { Q_EMIT const_cast<ActionDelegate*>(this)->commitData(box); });
        return box;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        auto* box = static_cast<QComboBox*>(editor);
        box->setCurrentIndex(box->findData(index.data(Qt::EditRole)));
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override
    {
        model->setData(index, static_cast<QComboBox*>(editor)->currentData(), Qt::EditRole);
    }
};

} // namespace

void RuleTableView::commitOpenEditor()
{
    if (state() != EditingState || model() == nullptr) return;
    // The open editor is in the current row, not always in the current cell ("Add rule" edits
    // the new rule's host while its first cell is current).
    const int row = currentIndex().row();
    for (int column = 0; column < model()->columnCount(); ++column) {
        if (QWidget* editor = indexWidget(model()->index(row, column))) {
            commitData(editor);
            closeEditor(editor, QAbstractItemDelegate::NoHint);
            return;
        }
    }
}

void RuleTableView::startDrag(Qt::DropActions)
{
    const QModelIndexList rows = selectionModel()->selectedRows();
    if (rows.isEmpty() || !model()) return;
    QMimeData* mime = model()->mimeData(rows);
    if (!mime) return;
    auto* drag = new QDrag(this);
    drag->setMimeData(mime);
    drag->exec(Qt::MoveAction); // the model has moved the rows by the time this returns
}

RuleListEditor::RuleListEditor(RuleTableModel* model, std::function<int(int)> insert,
                               int editColumn, QWidget* parent)
    : QWidget(parent), m_model(model), m_insert(std::move(insert)), m_editColumn(editColumn),
      m_view(new RuleTableView(this)), m_add(new QPushButton(tr("&Add rule"), this)),
      m_delete(new QPushButton(tr("&Delete"), this)), m_up(new QToolButton(this)),
      m_down(new QToolButton(this)), m_problem(new MessageBar(this))
{
    m_view->setModel(model);
    m_view->setItemDelegateForColumn(0, new ActionDelegate(m_view));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                            QAbstractItemView::AnyKeyPressed);
    m_view->setDragEnabled(true);
    m_view->setAcceptDrops(true);
    m_view->setDropIndicatorShown(true);
    m_view->setDragDropOverwriteMode(false);
    m_view->setDragDropMode(QAbstractItemView::InternalMove);
    m_view->setDefaultDropAction(Qt::MoveAction);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->verticalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);

    m_add->setToolTip(tr("Add a rule after the selected one"));
    m_delete->setToolTip(tr("Delete the selected rule (Del)"));
    m_up->setIcon(style()->standardIcon(QStyle::SP_ArrowUp));
    m_up->setToolTip(tr("Move the rule up: it is checked earlier (Ctrl+Up)"));
    m_up->setAccessibleName(tr("Move up"));
    m_down->setIcon(style()->standardIcon(QStyle::SP_ArrowDown));
    m_down->setToolTip(tr("Move the rule down: it is checked later (Ctrl+Down)"));
    m_down->setAccessibleName(tr("Move down"));

    connect(m_add, &QPushButton::clicked, this, &RuleListEditor::addRule);
    connect(m_delete, &QPushButton::clicked, this, &RuleListEditor::deleteRule);
    connect(m_up, &QToolButton::clicked, this, &RuleListEditor::moveUp);
    connect(m_down, &QToolButton::clicked, this, &RuleListEditor::moveDown);
    auto shortcut = [this](const QKeySequence& keys, void (RuleListEditor::*slot)()) {
        auto* a = new QAction(this);
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(a, &QAction::triggered, this, slot);
        m_view->addAction(a);
    };
    shortcut(QKeySequence::Delete, &RuleListEditor::deleteRule);
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_Up), &RuleListEditor::moveUp);
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_Down), &RuleListEditor::moveDown);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &RuleListEditor::updateButtons);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, &RuleListEditor::updateButtons);
    connect(model, &QAbstractItemModel::rowsMoved, this, &RuleListEditor::updateButtons);
    connect(model, &QAbstractItemModel::modelReset, this, &RuleListEditor::updateButtons);
    connect(model, &QAbstractItemModel::dataChanged, this, &RuleListEditor::updateButtons);

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_add);
    buttons->addWidget(m_delete);
    buttons->addWidget(m_up);
    buttons->addWidget(m_down);
    buttons->addStretch(1);
    // The buttons above the table: when the window is short, the table gives up rows, and the
    // buttons stay in sight (below it, a squeezed splitter hid them).
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_problem);
    updateButtons();
}

int RuleListEditor::currentRow() const
{
    const QModelIndex i = m_view->currentIndex();
    return i.isValid() ? i.row() : -1;
}

void RuleListEditor::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_view->clearSelection();
        return;
    }
    m_view->setCurrentIndex(m_model->index(row, m_editColumn));
    m_view->selectRow(row);
    m_view->scrollTo(m_model->index(row, 0));
}

QString RuleListEditor::problemText() const
{
    return m_problem->text();
}

void RuleListEditor::addRule()
{
    if (m_model->isReadOnly() || !m_insert) return;
    const int current = currentRow();
    const int row = m_insert(current < 0 ? m_model->rowCount() : current + 1);
    selectRow(row);
    m_view->setFocus();
    m_view->edit(m_model->index(row, m_editColumn));
}

void RuleListEditor::deleteRule()
{
    const int row = currentRow();
    if (m_model->isReadOnly() || row < 0) return;
    m_model->removeRows(row, 1);
    selectRow(std::min(row, m_model->rowCount() - 1));
}

void RuleListEditor::moveUp()
{
    const int row = currentRow();
    if (m_model->moveRule(row, -1)) selectRow(row - 1);
}

void RuleListEditor::moveDown()
{
    const int row = currentRow();
    if (m_model->moveRule(row, +1)) selectRow(row + 1);
}

void RuleListEditor::updateButtons()
{
    const int row = currentRow();
    const bool editable = !m_model->isReadOnly();
    m_add->setEnabled(editable);
    m_delete->setEnabled(editable && row >= 0);
    m_up->setEnabled(editable && row > 0);
    m_down->setEnabled(editable && row >= 0 && row + 1 < m_model->rowCount());
    const QString problem = row >= 0 ? m_model->problem(row) : QString();
    if (problem.isEmpty())
        m_problem->clearMessage();
    else
        m_problem->showMessage(MessageBar::Kind::Error,
                               tr("Rule %1: %2").arg(row + 1).arg(problem));
}

} // namespace sbui
