// Which activity rows the timeline shows: by kind (commands, network, approvals, files, limits,
// lifecycle and errors), only refusals, and a case-insensitive text search over each row's summary
// and fields. Order stays chronological: the proxy filters, it does not sort.
#pragma once

#include "ActivityModel.h"

#include <QSortFilterProxyModel>
#include <string>

namespace sbui {

class ActivityFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit ActivityFilterModel(QObject* parent = nullptr);

    void setCategoryShown(ActivityModel::Category category, bool shown);
    bool isCategoryShown(ActivityModel::Category category) const;
    // Only what was refused: denied, or timed out and then denied.
    void setDeniedOnly(bool only);
    bool deniedOnly() const { return m_deniedOnly; }
    // Case-insensitive; empty shows everything.
    void setSearchText(const QString& text);
    QString searchText() const { return m_search; }

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

  private:
    unsigned m_hidden = 0; // bit per Category
    bool m_deniedOnly = false;
    QString m_search;
    std::string m_needle; // lower-cased UTF-8, as the model's search text
};

} // namespace sbui
