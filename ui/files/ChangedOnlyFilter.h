// The "changed only" view of the workspace tree: changes, and the folders that hold them.
#pragma once

#include <QSortFilterProxyModel>

namespace sbui {

class ChangedOnlyFilter : public QSortFilterProxyModel {
    Q_OBJECT

  public:
    explicit ChangedOnlyFilter(QObject* parent = nullptr);

    void setChangedOnly(bool on);
    bool changedOnly() const { return m_changedOnly; }

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

  private:
    bool m_changedOnly = false;
};

} // namespace sbui
