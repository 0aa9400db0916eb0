// The activity timeline: a row of kind toggles, "denied only" and a search field (Ctrl+F), a
// table of events that follows the newest unless the user scrolled up, and a details pane with the
// selected event's fields. Built for long sessions: one table with uniform rows and no widgets per
// row, fed in batches by ActivityModel.
#pragma once

#include "ActivityFilterModel.h"
#include "ActivityModel.h"

#include <QTimer>
#include <QWidget>
#include <map>
#include <nlohmann/json.hpp>

class QLabel;
class QLineEdit;
class QTextBrowser;
class QToolButton;
class QTreeView;

namespace sbui {

class ActivityView : public QWidget {
    Q_OBJECT
  public:
    explicit ActivityView(QWidget* parent = nullptr);

    void addEvent(const nlohmann::json& event) { m_model->addEvent(event); }
    // Another session: rows, selection and details go; the filters stay as the user set them.
    void clear();

    ActivityModel* model() const { return m_model; }
    ActivityFilterModel* filterModel() const { return m_filter; }
    QTreeView* table() const { return m_table; }
    QLineEdit* searchEdit() const { return m_search; }
    QTextBrowser* detailsPane() const { return m_details; }
    // Over the empty table: that nothing happened yet, or that the filter hides every event.
    QLabel* emptyNote() const { return m_emptyNote; }
    QToolButton* categoryButton(ActivityModel::Category category) const;
    QToolButton* deniedOnlyButton() const { return m_deniedOnly; }

    // True while the table keeps the newest event in view (the user has not scrolled up).
    bool isFollowingNewest() const { return m_follow; }
    // Applies the search field's text now instead of after the typing pause.
    void applySearch();
    // Selects the event of a model row (when the filters hide it, the nearest shown row before
    // it), scrolls it into view and shows its details; -1 clears the selection. For a replay,
    // whose position moves through the events.
    void selectEvent(int modelRow);

  private:
    void showDetails(const QModelIndex& proxyIndex);
    void afterFilterChange();
    void updateEmptyNote();

    ActivityModel* m_model = nullptr;
    ActivityFilterModel* m_filter = nullptr;
    QTreeView* m_table = nullptr;
    QLineEdit* m_search = nullptr;
    QTextBrowser* m_details = nullptr;
    QLabel* m_emptyNote = nullptr;
    QToolButton* m_deniedOnly = nullptr;
    std::map<ActivityModel::Category, QToolButton*> m_categoryButtons;
    QTimer m_searchDelay;
    bool m_follow = true;
};

} // namespace sbui
