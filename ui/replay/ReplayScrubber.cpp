#include "ReplayScrubber.h"

#include "ReplayTime.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

namespace sbui {
namespace {

// Geometry in pixels: two rows of markers above a track (denials on top, so that the many
// commands never hide one), the handle's radius as side padding.
constexpr int kPad = 8;
constexpr int kDenialTop = 1;
constexpr int kDenialHeight = 9;
constexpr int kActivityTop = kDenialTop + kDenialHeight + 2;
constexpr int kActivityHeight = 9;
constexpr int kTrackTop = kActivityTop + kActivityHeight + 3;
constexpr int kTrackHeight = 6;
constexpr int kHandleRadius = 7;
constexpr int kHeight = kTrackTop + kTrackHeight / 2 + kHandleRadius + 2;
// Markers this close to the mouse are in its tooltip.
constexpr int kHoverPx = 4;
constexpr int kMaxTooltipLines = 8;

qint64 msToNs(int ms)
{
    return static_cast<qint64>(ms) * 1'000'000;
}

int nsToMs(qint64 ns)
{
    return static_cast<int>(std::min<qint64>(ns / 1'000'000, std::numeric_limits<int>::max()));
}

} // namespace

ReplayScrubber::ReplayScrubber(QWidget* parent) : QAbstractSlider(parent)
{
    setOrientation(Qt::Horizontal);
    setFocusPolicy(Qt::StrongFocus);
    setSingleStep(1000);
    setPageStep(10000);
    setMouseTracking(true);
    setAttribute(Qt::WA_Hover);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setAccessibleName(tr("Replay position"));
}

QSize ReplayScrubber::sizeHint() const
{
    return {400, kHeight};
}

QSize ReplayScrubber::minimumSizeHint() const
{
    return {4 * kPad, kHeight};
}

void ReplayScrubber::setDurationNs(qint64 ns)
{
    m_durationNs = std::max<qint64>(0, ns);
    m_settingPosition = true;
    // The slider's unit is the millisecond, rounded up so that the end is reachable.
    setRange(0, nsToMs(m_durationNs + 999'999));
    m_settingPosition = false;
    m_positionNs = std::min(m_positionNs, m_durationNs);
    m_markerXsWidth = -1;
    update();
}

void ReplayScrubber::setPositionNs(qint64 ns)
{
    ns = std::clamp<qint64>(ns, 0, m_durationNs);
    const int oldX = xForTime(m_positionNs);
    m_positionNs = ns;
    m_settingPosition = true;
    setValue(nsToMs(ns));
    m_settingPosition = false;
    if (xForTime(ns) != oldX) update();
}

void ReplayScrubber::setMarkers(std::vector<Marker> markers)
{
    m_markers = std::move(markers);
    m_markerXsWidth = -1;
    update();
}

std::optional<qint64> ReplayScrubber::nextMarker(qint64 ns) const
{
    auto it = std::upper_bound(m_markers.begin(), m_markers.end(), ns,
                               [](qint64 t, const Marker& m) { return t < m.tNs; });
    if (it == m_markers.end()) return std::nullopt;
    return it->tNs;
}

std::optional<qint64> ReplayScrubber::previousMarker(qint64 ns) const
{
    auto it = std::lower_bound(m_markers.begin(), m_markers.end(), ns,
                               [](const Marker& m, qint64 t) { return m.tNs < t; });
    if (it == m_markers.begin()) return std::nullopt;
    return std::prev(it)->tNs;
}

int ReplayScrubber::xForTime(qint64 ns) const
{
    const int span = std::max(1, width() - 2 * kPad);
    if (m_durationNs <= 0) return kPad;
    const double f = static_cast<double>(std::clamp<qint64>(ns, 0, m_durationNs)) /
                     static_cast<double>(m_durationNs);
    return kPad + static_cast<int>(std::lround(f * span));
}

qint64 ReplayScrubber::timeAtX(int x) const
{
    const int span = std::max(1, width() - 2 * kPad);
    const double f = std::clamp(static_cast<double>(x - kPad) / span, 0.0, 1.0);
    return static_cast<qint64>(std::llround(f * static_cast<double>(m_durationNs)));
}

QString ReplayScrubber::markerKindName(MarkerKind kind)
{
    switch (kind) {
    case MarkerKind::Command:
        return tr("command");
    case MarkerKind::Connection:
        return tr("connection");
    case MarkerKind::Approval:
        return tr("approval");
    case MarkerKind::Denial:
        return tr("denied");
    case MarkerKind::Other:
        return tr("event");
    }
    return {};
}

QColor ReplayScrubber::markerColor(MarkerKind kind, const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    switch (kind) {
    case MarkerKind::Command:
        return QColor(dark ? 0x58a6ff : 0x0969da);
    case MarkerKind::Connection:
        return QColor(dark ? 0x39c5cf : 0x0e7c86);
    case MarkerKind::Approval:
        return QColor(dark ? 0xe3b341 : 0x9a6700);
    case MarkerKind::Denial:
        return QColor(dark ? 0xff7b72 : 0xc62828);
    case MarkerKind::Other:
        break;
    }
    return palette.color(QPalette::PlaceholderText);
}

QString ReplayScrubber::toolTipAt(const QPoint& pos) const
{
    const qint64 from = timeAtX(pos.x() - kHoverPx);
    const qint64 to = timeAtX(pos.x() + kHoverPx);
    auto first = std::lower_bound(m_markers.begin(), m_markers.end(), from,
                                  [](const Marker& m, qint64 t) { return m.tNs < t; });
    QStringList lines;
    int more = 0;
    for (auto it = first; it != m_markers.end() && it->tNs <= to; ++it) {
        if (lines.size() == kMaxTooltipLines) {
            ++more;
            continue;
        }
        lines
            << tr("%1  %2: %3").arg(formatReplayTime(it->tNs), markerKindName(it->kind), it->text);
    }
    if (more > 0) lines << tr("… and %n more", nullptr, more);
    if (lines.isEmpty()) return formatReplayTime(timeAtX(pos.x()));
    return lines.join(u'\n');
}

bool ReplayScrubber::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QToolTip::showText(help->globalPos(), toolTipAt(help->pos()), this);
        return true;
    }
    return QAbstractSlider::event(event);
}

QRect ReplayScrubber::trackRect() const
{
    return {kPad, kTrackTop, std::max(1, width() - 2 * kPad), kTrackHeight};
}

void ReplayScrubber::paintMarker(QPainter& painter, MarkerKind kind, int x) const
{
    const QColor color = markerColor(kind, palette());
    const qreal cx = x + 0.5;
    const bool denial = kind == MarkerKind::Denial;
    const qreal top = denial ? kDenialTop : kActivityTop;
    const qreal bottom = top + (denial ? kDenialHeight : kActivityHeight);
    const qreal mid = (top + bottom) / 2;
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    switch (kind) {
    case MarkerKind::Command:
        painter.drawRect(QRectF(cx - 1, top, 2, bottom - top));
        break;
    case MarkerKind::Connection:
        painter.drawEllipse(QPointF(cx, mid), 3.5, 3.5);
        break;
    case MarkerKind::Approval: {
        QPainterPath diamond;
        diamond.moveTo(cx, top);
        diamond.lineTo(cx + 4.5, mid);
        diamond.lineTo(cx, bottom);
        diamond.lineTo(cx - 4.5, mid);
        diamond.closeSubpath();
        painter.drawPath(diamond);
        break;
    }
    case MarkerKind::Denial: {
        QPainterPath triangle; // pointing down at the track
        triangle.moveTo(cx - 5, top);
        triangle.lineTo(cx + 5, top);
        triangle.lineTo(cx, bottom);
        triangle.closeSubpath();
        painter.drawPath(triangle);
        break;
    }
    case MarkerKind::Other:
        painter.drawRect(QRectF(cx - 0.5, bottom - 5, 1, 5));
        break;
    }
}

void ReplayScrubber::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = palette();
    const QRect track = trackRect();
    const qreal radius = kTrackHeight / 2.0;

    painter.setPen(Qt::NoPen);
    painter.setBrush(pal.color(QPalette::Mid));
    painter.drawRoundedRect(track, radius, radius);
    const int x = xForTime(m_positionNs);
    if (x > track.left()) {
        painter.setBrush(pal.color(QPalette::Highlight));
        painter.drawRoundedRect(QRect(track.left(), track.top(), x - track.left(), track.height()),
                                radius, radius);
    }

    if (m_markerXsWidth != width()) {
        // Sorted markers give ascending x per kind: a thousand commands in one pixel cost one.
        m_markerXs.clear();
        for (MarkerKind kind : {MarkerKind::Other, MarkerKind::Command, MarkerKind::Connection,
                                MarkerKind::Approval, MarkerKind::Denial}) {
            int lastX = -1; // approvals come after commands, so that they stay visible
            for (const Marker& marker : m_markers) {
                if (marker.kind != kind) continue;
                const int mx = xForTime(marker.tNs);
                if (mx != lastX) m_markerXs.emplace_back(mx, kind);
                lastX = mx;
            }
        }
        m_markerXsWidth = width();
    }
    for (const auto& [mx, kind] : m_markerXs)
        paintMarker(painter, kind, mx);

    const QPointF centre(x + 0.5, track.center().y() + 0.5);
    painter.setPen(QPen(pal.color(QPalette::Base), hasFocus() ? 3 : 2));
    painter.setBrush(pal.color(QPalette::Highlight));
    painter.drawEllipse(centre, kHandleRadius - 1, kHandleRadius - 1);
    if (hasFocus()) {
        painter.setPen(QPen(pal.color(QPalette::Highlight), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(centre, kHandleRadius + 0.5, kHandleRadius + 0.5);
    }
}

void ReplayScrubber::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || m_durationNs <= 0) {
        QAbstractSlider::mousePressEvent(event);
        return;
    }
    setSliderDown(true);
    setSliderPosition(nsToMs(timeAtX(event->position().toPoint().x())));
    event->accept();
}

void ReplayScrubber::mouseMoveEvent(QMouseEvent* event)
{
    if (!isSliderDown()) {
        QAbstractSlider::mouseMoveEvent(event);
        return;
    }
    setSliderPosition(nsToMs(timeAtX(event->position().toPoint().x())));
    event->accept();
}

void ReplayScrubber::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && isSliderDown()) {
        setSliderDown(false);
        event->accept();
        return;
    }
    QAbstractSlider::mouseReleaseEvent(event);
}

void ReplayScrubber::sliderChange(SliderChange change)
{
    QAbstractSlider::sliderChange(change);
    if (change == SliderValueChange && !m_settingPosition) {
        m_positionNs = std::min(msToNs(value()), m_durationNs);
        Q_EMIT seekRequested(m_positionNs);
    }
    if (!m_settingPosition) update(); // setPositionNs() repaints when the handle moves a pixel
}

} // namespace sbui
