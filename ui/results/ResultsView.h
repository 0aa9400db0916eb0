// The Results tab (issue 36, item 5): what a code interpreter's code produced in the shown
// session (E2B's runCode through `serve`), execution by execution in order: the code, what it
// printed, then each result in its richest form this window can show (charts as pictures, a
// DataFrame's data and HTML tables as tables, Markdown and text as text) and an error in red
// with its traceback. Fed the activity events "execution": live, or from the recording of an
// ended session. While that session is replayed the view follows the replay (setReached): the
// executions that had run at its position as they were, those still ahead collapsed and marked
// as not run yet; a click on one asks to go there (executionActivated).
#pragma once

#include <QWidget>
#include <nlohmann/json.hpp>
#include <optional>

class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace sbui {

class ResultsView : public QWidget {
    Q_OBJECT

  public:
    explicit ResultsView(QWidget* parent = nullptr);

    // Events of other kinds are ignored.
    void addEvent(const nlohmann::json& event);
    void clear();
    int count() const { return m_count; }
    // Scrolls the execution at `index` (from 0) into view.
    void scrollToExecution(int index);

    // Following a replay at the time `at` (as the replay writes it), when the first `reached`
    // executions had run; nullopt: not following, all are shown as run. The last one reached is
    // scrolled into view when that number changes.
    void setReached(std::optional<int> reached, const QString& at = {});
    std::optional<int> reached() const { return m_reached; }

    QLabel* summary() const { return m_summary; }
    // The blocks, one a execution, in order (tests).
    QList<QWidget*> executions() const;

  Q_SIGNALS:
    void countChanged(int executions);
    // Execution `index` (from 0) was clicked while following a replay.
    void executionActivated(int index);

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    void refresh();
    void markReached();
    void scrollToReached();

    int m_count = 0;
    std::optional<int> m_reached;
    QString m_at;
    bool m_scrollPending = false; // to the last execution reached, once laid out and shown
    QLabel* m_summary;
    QScrollArea* m_scroll;
    QWidget* m_list;
    QVBoxLayout* m_rows;
};

} // namespace sbui
