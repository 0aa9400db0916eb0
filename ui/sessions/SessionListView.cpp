#include "SessionListView.h"

#include "SessionListModel.h"

#include <QHeaderView>
#include <QResizeEvent>
#include <algorithm>

namespace sbui {

SessionListView::SessionListView(SessionListModel* model, QWidget* parent) : QTreeView(parent)
{
    setModel(model);
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setMinimumWidth(240); // command, start and duration readable at 1024 px
    QHeaderView* top = header();
    top->setStretchLastSection(false);
    top->setSectionResizeMode(SessionListModel::SessionColumn, QHeaderView::Stretch);
    for (int c : {SessionListModel::StartedColumn, SessionListModel::DurationColumn})
        top->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // The folder gives way (elided, its tooltip whole); the command keeps the rest.
    top->setSectionResizeMode(SessionListModel::WorkspaceColumn, QHeaderView::Interactive);
    const QString title =
        model->headerData(SessionListModel::WorkspaceColumn, Qt::Horizontal).toString();
    setColumnWidth(SessionListModel::WorkspaceColumn,
                   std::max(fontMetrics().averageCharWidth() * 9,
                            top->fontMetrics().horizontalAdvance(title) + 14));
}

void SessionListView::resizeEvent(QResizeEvent* event)
{
    QTreeView::resizeEvent(event);
    const bool narrow = event->size().width() < kFolderMinWidth;
    setColumnHidden(SessionListModel::WorkspaceColumn, narrow);
    if (auto* sessions = qobject_cast<SessionListModel*>(model()))
        sessions->setFolderColumnShown(!narrow);
}

} // namespace sbui
