#include "ChangedOnlyFilter.h"

#include "WorkspaceModel.h"

namespace sbui {

ChangedOnlyFilter::ChangedOnlyFilter(QObject* parent) : QSortFilterProxyModel(parent)
{
    // Markers and counts change while the agent works: rows come and go with them.
    setDynamicSortFilter(true);
}

void ChangedOnlyFilter::setChangedOnly(bool on)
{
    if (on == m_changedOnly) return;
    m_changedOnly = on;
    invalidateRowsFilter();
}

bool ChangedOnlyFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (!m_changedOnly) return true;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    // Counts come from the change list, so a folder is known to hold changes before it has
    // been listed; no recursive filtering needed.
    return index.data(WorkspaceModel::IsChangeRole).toBool() ||
           index.data(WorkspaceModel::ChangeCountRole).toInt() > 0;
}

} // namespace sbui
