// The replay's time line: a slider painted by hand, with the played part filled, a handle at the
// position and a marker for every notable event above the track, each kind in its own colour and
// shape: denials (triangles) in a row of their own above commands (ticks), connections (dots),
// approvals (diamonds) and the rest (small grey ticks); tooltips name them. Click or drag to seek;
// arrows move 1 s, Page Up/Down 10 s, Home/End to either end.
#pragma once

#include <QAbstractSlider>
#include <QString>
#include <optional>
#include <utility>
#include <vector>

namespace sbui {

class ReplayScrubber : public QAbstractSlider {
    Q_OBJECT
  public:
    enum class MarkerKind { Command, Connection, Approval, Denial, Other };
    struct Marker {
        qint64 tNs = 0;
        MarkerKind kind = MarkerKind::Other;
        QString text; // what the tooltip says about it
    };

    explicit ReplayScrubber(QWidget* parent = nullptr);

    void setDurationNs(qint64 ns);
    qint64 durationNs() const { return m_durationNs; }
    // Moves the handle without emitting seekRequested().
    void setPositionNs(qint64 ns);
    qint64 positionNs() const { return m_positionNs; }
    // Sorted by time.
    void setMarkers(std::vector<Marker> markers);
    const std::vector<Marker>& markers() const { return m_markers; }
    // The first marker after `ns`, the last one before it.
    std::optional<qint64> nextMarker(qint64 ns) const;
    std::optional<qint64> previousMarker(qint64 ns) const;

    // Widget x of a time, and the time under an x (tests click there).
    int xForTime(qint64 ns) const;
    qint64 timeAtX(int x) const;
    // The tooltip shown at `pos`: the markers near it, or the time under it.
    QString toolTipAt(const QPoint& pos) const;

    static QString markerKindName(MarkerKind kind);
    // Readable on the palette's base colour, light or dark.
    static QColor markerColor(MarkerKind kind, const QPalette& palette);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  Q_SIGNALS:
    // The user moved the handle (mouse, keys or wheel).
    void seekRequested(qint64 ns);

  protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void sliderChange(SliderChange change) override;

  private:
    QRect trackRect() const;
    void paintMarker(QPainter& painter, MarkerKind kind, int x) const;

    qint64 m_durationNs = 0;
    qint64 m_positionNs = 0;
    std::vector<Marker> m_markers;
    bool m_settingPosition = false;
    // Where the markers are drawn, for this width (-1: to compute again).
    std::vector<std::pair<int, MarkerKind>> m_markerXs;
    int m_markerXsWidth = -1;
};

} // namespace sbui
