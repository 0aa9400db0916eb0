// The tokens a session's model requests used over time: two rising lines (input with the
// cached tokens on the left axis, output on the right) against the session's clock, painted
// with QPainter (the window has no charting library to pull in for one small chart).
#pragma once

#include "ModelUsageTotals.h"

#include <QWidget>

namespace sbui {

class TokenChart : public QWidget {
    Q_OBJECT

  public:
    explicit TokenChart(QWidget* parent = nullptr);

    void setPoints(std::vector<ModelUsageTotals::Point> points, qint64 startUnixMs);
    const std::vector<ModelUsageTotals::Point>& points() const { return m_points; }
    // The top of the input's axis (left) and of the output's (right), as drawn; 0 with no
    // points. Both have the same number of steps, so one grid serves both.
    std::uint64_t axisMaximum() const;
    std::uint64_t outputAxisMaximum() const;

    QSize sizeHint() const override { return {480, 200}; }
    QSize minimumSizeHint() const override { return {240, 120}; }

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    std::vector<ModelUsageTotals::Point> m_points;
    qint64 m_startMs = 0;
};

// "1.2k", "34k", "1.5M": a token count for an axis, in the window's language.
QString shortCount(std::uint64_t n);

} // namespace sbui
