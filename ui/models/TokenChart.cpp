#include "TokenChart.h"

#include <QGuiApplication>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <cmath>

namespace sbui {
namespace {

// A round step for about four grid lines up to `maximum`: 1, 2 or 5 times a power of ten.
std::uint64_t niceStep(std::uint64_t maximum)
{
    const double rough = std::max(1.0, static_cast<double>(maximum) / 4.0);
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * power >= rough) return static_cast<std::uint64_t>(m * power);
    return static_cast<std::uint64_t>(10 * power);
}

// The smallest 1, 2 or 5 times a power of ten at or above `value`.
std::uint64_t niceAtLeast(std::uint64_t value)
{
    std::uint64_t power = 1;
    while (true) {
        for (std::uint64_t m : {1, 2, 5})
            if (m * power >= value) return m * power;
        power *= 10;
    }
}

QString clockText(qint64 ms)
{
    const qint64 s = ms / 1000;
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
            .arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QColor inputColour(bool dark)
{
    return dark ? QColor(0x58a6ff) : QColor(0x0969da);
}

QColor outputColour(bool dark)
{
    return dark ? QColor(0xf0883e) : QColor(0xbc4c00);
}

} // namespace

QString shortCount(std::uint64_t n)
{
    const QLocale locale;
    if (n < 1000) return locale.toString(static_cast<qulonglong>(n));
    if (n < 1000000) return locale.toString(static_cast<double>(n) / 1e3, 'g', 3) + u'k';
    if (n < 1000000000) return locale.toString(static_cast<double>(n) / 1e6, 'g', 3) + u'M';
    return locale.toString(static_cast<double>(n) / 1e9, 'g', 3) + u'G';
}

TokenChart::TokenChart(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("TokenChart"));
    setAccessibleName(tr("Tokens over time"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void TokenChart::setPoints(std::vector<ModelUsageTotals::Point> points, qint64 startUnixMs)
{
    m_points = std::move(points);
    m_startMs = startUnixMs;
    if (!m_points.empty() && (m_startMs <= 0 || m_startMs > m_points.front().timeUnixMs))
        m_startMs = m_points.front().timeUnixMs;
    setAccessibleDescription(m_points.empty() ? tr("No model requests yet")
                                              : tr("%1 tokens in and %2 out so far")
                                                    .arg(shortCount(m_points.back().input),
                                                         shortCount(m_points.back().output)));
    update();
}

std::uint64_t TokenChart::axisMaximum() const
{
    if (m_points.empty()) return 0;
    const std::uint64_t top = std::max<std::uint64_t>(1, m_points.back().input);
    const std::uint64_t step = niceStep(top);
    return (top + step - 1) / step * step;
}

std::uint64_t TokenChart::outputAxisMaximum() const
{
    if (m_points.empty()) return 0;
    // As many steps as the input's axis, so that one grid serves both.
    const std::uint64_t steps = axisMaximum() / niceStep(axisMaximum());
    const std::uint64_t top = std::max<std::uint64_t>(1, m_points.back().output);
    return niceAtLeast((top + steps - 1) / steps) * steps;
}

void TokenChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm(font());
    if (m_points.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No model requests yet"));
        return;
    }
    // Two axes: cached input outgrows output a hundredfold in an agent's session, and output on
    // the input's scale would be a flat line.
    const std::uint64_t top = axisMaximum(), topOut = outputAxisMaximum();
    const std::uint64_t step = niceStep(top), steps = top / step, stepOut = topOut / steps;
    int labelWidth = 0, outWidth = 0;
    for (std::uint64_t i = 0; i <= steps; ++i) {
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(shortCount(i * step)));
        outWidth = std::max(outWidth, fm.horizontalAdvance(shortCount(i * stepOut)));
    }
    const QRect plot =
        rect().adjusted(labelWidth + 12, fm.height() * 2, -outWidth - 12, -fm.height() - 10);
    if (plot.width() < 20 || plot.height() < 20) return;

    const qint64 span = std::max<qint64>(1000, m_points.back().timeUnixMs - m_startMs);
    auto x = [&](qint64 t) {
        return plot.left() +
               static_cast<double>(t - m_startMs) / static_cast<double>(span) * plot.width();
    };
    auto y = [&](std::uint64_t v, std::uint64_t axis) {
        return plot.bottom() - static_cast<double>(v) / static_cast<double>(axis) * plot.height();
    };

    // Grid and the axes' labels.
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(40);
    for (std::uint64_t i = 0; i <= steps; ++i) {
        const double at = y(i, steps);
        p.setPen(grid);
        p.drawLine(QPointF(plot.left(), at), QPointF(plot.right(), at));
        p.setPen(inputColour(dark));
        p.drawText(QRectF(0, at - fm.height() / 2.0, labelWidth + 6, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, shortCount(i * step));
        p.setPen(outputColour(dark));
        p.drawText(QRectF(plot.right() + 6, at - fm.height() / 2.0, outWidth + 6, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, shortCount(i * stepOut));
    }
    p.setPen(pal.color(QPalette::Text));
    for (int i = 0; i <= 4; ++i) {
        const qint64 t = m_startMs + span * i / 4;
        const QString label = clockText(t - m_startMs);
        const double at = x(t);
        const int w = fm.horizontalAdvance(label);
        const double left = std::clamp(at - w / 2.0, 0.0, static_cast<double>(width() - w));
        p.drawText(QPointF(left, plot.bottom() + fm.ascent() + 6), label);
    }

    // Each line rises in steps: the tokens count from the request's end.
    auto line = [&](auto value, std::uint64_t axis, const QColor& colour) {
        QPainterPath path(QPointF(plot.left(), y(0, axis)));
        for (const auto& point : m_points) {
            path.lineTo(x(point.timeUnixMs), path.currentPosition().y());
            path.lineTo(x(point.timeUnixMs), y(value(point), axis));
        }
        path.lineTo(plot.right(), path.currentPosition().y());
        p.setPen(QPen(colour, 2));
        p.drawPath(path);
    };
    line([](const ModelUsageTotals::Point& pt) { return pt.input; }, top, inputColour(dark));
    line([](const ModelUsageTotals::Point& pt) { return pt.output; }, topOut, outputColour(dark));

    // The legend, above the plot.
    int at = plot.left();
    const int baseline = fm.ascent() + 2;
    for (const auto& [label, colour] : {std::pair{tr("input, cached included"), inputColour(dark)},
                                        std::pair{tr("output"), outputColour(dark)}}) {
        p.fillRect(QRect(at, baseline - fm.ascent() / 2 - 5, 10, 10), colour);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(at + 14, baseline, label);
        at += 14 + fm.horizontalAdvance(label) + 18;
    }
}

} // namespace sbui
