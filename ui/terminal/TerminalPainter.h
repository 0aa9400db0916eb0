// Draws rows of a TerminalScreen with QPainter: colours (16, 256, true colour, the palette's
// defaults), bold, italic, underlines, strike-through, reverse, wide characters and combining
// marks, the cursor, and the selection and find highlights. Knows nothing of input or
// scrolling; TerminalWidget says what each paint shows.
#pragma once

#include "TerminalScreen.h"

#include <QFont>
#include <QHash>
#include <QRawFont>
#include <QRect>
#include <QRgb>
#include <optional>

class QPainter;

namespace sbui {

class TerminalPainter {
  public:
    // What one paint shows, decided by the widget.
    struct Frame {
        QRgb fg = 0, bg = 0;                   // the palette's text and base colours
        QRgb selectionFg = 0, selectionBg = 0; // the palette's highlight colours
        TerminalCursor cursor;
        bool drawCursor = false;  // visible and in the "on" phase of its blink
        bool focused = false;     // a hollow box when not
        std::int64_t viewTop = 0; // absolute line at the top of the view
        bool hasSelection = false;
        TerminalPos selectionStart, selectionEnd;
        std::optional<TerminalMatch> match;
    };

    // xterm's 256 colours; the first 16 are GNOME Terminal's, readable on light and dark.
    static QRgb indexedColor(int index);

    void setFont(const QFont& font);
    const QFont& font() const { return m_fonts[0]; }
    qreal cellWidth() const { return m_cellWidth; }
    int cellHeight() const { return m_cellHeight; }
    // The pixels of a cell: whole pixels, adjacent cells neither overlap nor leave gaps.
    QRect cellRect(int viewRow, int col) const;

    // Paints one row of the view (background included) at its place.
    void paintRow(QPainter& painter, const TerminalScreen& screen, int viewRow,
                  const Frame& frame) const;

  private:
    struct Look;
    const QFont& fontFor(const TerminalCell& cell) const;
    int fontIndex(const TerminalCell& cell) const;
    bool inPrimaryFont(char32_t ch) const;
    void drawRun(QPainter& painter, const QString& text, int fontIndex, int firstCol,
                 qreal baseline, QRgb color) const;

    QFont m_fonts[4];       // regular, bold, italic, bold italic
    QRawFont m_rawFonts[4]; // the same, for drawing runs without text shaping
    qreal m_cellWidth = 8;
    int m_cellHeight = 16;
    qreal m_ascent = 12;
    qreal m_underlinePos = 1, m_strikePos = 4, m_lineWidth = 1;
    mutable QHash<char32_t, bool> m_primaryGlyphs;
};

} // namespace sbui
