// The Results tab (issue 36, item 5): what a code interpreter's code produced in the shown
// session (E2B's runCode through `serve`), execution by execution in order: the code, what it
// printed, then each result in its richest form this window can show (charts as pictures, a
// DataFrame's data and HTML tables as tables, Markdown and text as text) and an error in red
// with its traceback. Fed the activity events "execution": live, or from the recording of an
// ended session.
#pragma once

#include <QWidget>
#include <nlohmann/json.hpp>

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

    QLabel* summary() const { return m_summary; }
    // The blocks, one a execution, in order (tests).
    QList<QWidget*> executions() const;

  Q_SIGNALS:
    void countChanged(int executions);

  private:
    void refresh();

    int m_count = 0;
    QLabel* m_summary;
    QScrollArea* m_scroll;
    QWidget* m_list;
    QVBoxLayout* m_rows;
};

} // namespace sbui
