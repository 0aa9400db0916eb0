// The Models tab (issue 38): the shown session's model requests through the proxy's gateway
// (requests, tokens in, out and through the prompt cache, a cost labelled an estimate), a chart
// of its tokens over time, a row per model, and its attempted secret leaks in red at the top.
// Fed the same activity events as the timeline: live, or from the recording of an ended session.
#pragma once

#include "ModelUsageTotals.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace sbui {

class TokenChart;

class ModelUsageView : public QWidget {
    Q_OBJECT

  public:
    explicit ModelUsageView(QWidget* parent = nullptr);

    // The session's start (its clock starts the chart); before its events.
    void setSessionStart(qint64 unixMs);
    void addEvent(const nlohmann::json& event);
    void clear();

    const ModelUsageTotals& totals() const { return m_totals; }
    QLabel* summary() const { return m_summary; }
    QLabel* leaksLabel() const { return m_leaks; }
    QTreeWidget* table() const { return m_table; }
    TokenChart* chart() const { return m_chart; }

    enum Column {
        ModelColumn,
        RequestsColumn,
        InputColumn,
        CacheReadColumn,
        CacheWriteColumn,
        OutputColumn,
        CostColumn,
        ColumnCount
    };

  Q_SIGNALS:
    // Requests and leaks so far, for the tab's title and the window's banner.
    void countsChanged(int requests, int leaks);

  private:
    void refresh();

    ModelUsageTotals m_totals;
    qint64 m_startMs = 0;
    QLabel* m_leaks;
    QLabel* m_summary;
    TokenChart* m_chart;
    QTreeWidget* m_table;
    QLabel* m_note;
};

// "$1.23", "$0.0042": an estimated cost.
QString dollars(double usd);

} // namespace sbui
