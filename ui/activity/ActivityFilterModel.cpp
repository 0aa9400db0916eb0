#include "ActivityFilterModel.h"

namespace sbui {

namespace {
unsigned bit(ActivityModel::Category category)
{
    return 1u << static_cast<unsigned>(category);
}
} // namespace

ActivityFilterModel::ActivityFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {}

void ActivityFilterModel::setCategoryShown(ActivityModel::Category category, bool shown)
{
    const unsigned hidden = shown ? m_hidden & ~bit(category) : m_hidden | bit(category);
    if (hidden == m_hidden) return;
    m_hidden = hidden;
    invalidateRowsFilter();
}

bool ActivityFilterModel::isCategoryShown(ActivityModel::Category category) const
{
    return (m_hidden & bit(category)) == 0;
}

void ActivityFilterModel::setDeniedOnly(bool only)
{
    if (only == m_deniedOnly) return;
    m_deniedOnly = only;
    invalidateRowsFilter();
}

void ActivityFilterModel::setSearchText(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_search) return;
    m_search = trimmed;
    m_needle = trimmed.toLower().toStdString();
    invalidateRowsFilter();
}

bool ActivityFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    // Read the rows directly when the source is an ActivityModel: with 100,000 rows a search
    // that went through QVariant for every row would be felt on every keystroke.
    if (const auto* model = qobject_cast<const ActivityModel*>(sourceModel())) {
        if (sourceParent.isValid()) return false;
        if (m_hidden & bit(model->category(sourceRow))) return false;
        if (m_deniedOnly && !model->refused(sourceRow)) return false;
        return m_needle.empty() || model->searchText(sourceRow).find(m_needle) != std::string::npos;
    }
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    const auto category =
        static_cast<ActivityModel::Category>(index.data(ActivityModel::CategoryRole).toInt());
    if (m_hidden & bit(category)) return false;
    if (m_deniedOnly && !index.data(ActivityModel::RefusedRole).toBool()) return false;
    return m_search.isEmpty() || index.data(ActivityModel::SearchTextRole)
                                     .toString()
                                     .contains(m_search, Qt::CaseInsensitive);
}

} // namespace sbui
