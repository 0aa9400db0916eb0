#include "TerminalPainter.h"

#include <QFontMetricsF>
#include <QGlyphRun>
#include <QPainter>
#include <cmath>
#include <vector>

namespace sbui {

QRgb TerminalPainter::indexedColor(int index)
{
    static constexpr QRgb base[16] = {0x171421, 0xc01c28, 0x26a269, 0xa2734c, 0x12488b, 0xa347ba,
                                      0x2aa1b3, 0xd0cfcc, 0x5e5c64, 0xf66151, 0x33d17a, 0xe9ad0c,
                                      0x2a7bde, 0xc061cb, 0x33c7de, 0xffffff};
    if (index < 16) return base[index] | 0xff000000u;
    if (index < 232) {
        static constexpr int ramp[6] = {0, 0x5f, 0x87, 0xaf, 0xd7, 0xff};
        const int i = index - 16;
        return qRgb(ramp[i / 36], ramp[(i / 6) % 6], ramp[i % 6]);
    }
    const int grey = 8 + (index - 232) * 10;
    return qRgb(grey, grey, grey);
}

namespace {

QRgb rgbOf(const TerminalColor& c, QRgb defaultColor)
{
    switch (c.kind) {
    case TerminalColor::Kind::Indexed:
        return TerminalPainter::indexedColor(c.index());
    case TerminalColor::Kind::Rgb:
        return qRgb(c.r, c.g, c.b);
    case TerminalColor::Kind::Default:
        break;
    }
    return defaultColor;
}

constexpr QRgb kMatchFg = 0xff000000u;
constexpr QRgb kMatchBg = 0xfff5c211u;

} // namespace

void TerminalPainter::setFont(const QFont& font)
{
    for (int i = 0; i < 4; ++i) {
        m_fonts[i] = font;
        m_fonts[i].setBold((i & 1) != 0);
        m_fonts[i].setItalic((i & 2) != 0);
        m_rawFonts[i] = QRawFont::fromFont(m_fonts[i]);
        // A face the system has to synthesise (no real bold or italic) is drawn as text, which
        // synthesises it; a raw font would draw it plain.
        const bool boldOk = !(i & 1) || m_rawFonts[i].weight() >= QFont::DemiBold;
        const bool italicOk = !(i & 2) || m_rawFonts[i].style() != QFont::StyleNormal;
        if (!boldOk || !italicOk) m_rawFonts[i] = QRawFont();
    }
    m_primaryGlyphs.clear();
    const QFontMetricsF metrics(m_fonts[0]);
    m_cellWidth = std::max<qreal>(1, metrics.horizontalAdvance(QLatin1Char('M')));
    m_cellHeight = std::max(1, static_cast<int>(std::ceil(metrics.height())));
    m_ascent = std::round(metrics.ascent());
    m_underlinePos = metrics.underlinePos();
    m_strikePos = metrics.strikeOutPos();
    m_lineWidth = std::max<qreal>(1, metrics.lineWidth());
}

QRect TerminalPainter::cellRect(int viewRow, int col) const
{
    const int x0 = static_cast<int>(std::round(col * m_cellWidth));
    const int x1 = static_cast<int>(std::round((col + 1) * m_cellWidth));
    return {x0, viewRow * m_cellHeight, x1 - x0, m_cellHeight};
}

int TerminalPainter::fontIndex(const TerminalCell& cell) const
{
    return (cell.has(TerminalCell::Bold) ? 1 : 0) | (cell.has(TerminalCell::Italic) ? 2 : 0);
}

const QFont& TerminalPainter::fontFor(const TerminalCell& cell) const
{
    return m_fonts[fontIndex(cell)];
}

// Characters every face of the terminal font has are drawn in runs, glyph by glyph on the grid;
// the rest (wide characters, fallback glyphs, combining marks) cell by cell as text, so a glyph
// of another width never shifts its neighbours.
bool TerminalPainter::inPrimaryFont(char32_t ch) const
{
    if (ch >= 0x21 && ch < 0x7f) return true;
    auto it = m_primaryGlyphs.constFind(ch);
    if (it != m_primaryGlyphs.constEnd()) return *it;
    bool in = ch >= 0xa0 && ch < 0x10000;
    for (int i = 0; i < 4 && in; ++i)
        in = m_rawFonts[i].isValid()
                 ? m_rawFonts[i].supportsCharacter(QChar(static_cast<char16_t>(ch)))
                 : QFontMetrics(m_fonts[i]).inFontUcs4(ch);
    m_primaryGlyphs.insert(ch, in);
    return in;
}

void TerminalPainter::drawRun(QPainter& painter, const QString& text, int fontIndex, int firstCol,
                              qreal baseline, QRgb color) const
{
    painter.setPen(QColor::fromRgba(color));
    const QRawFont& raw = m_rawFonts[fontIndex];
    if (raw.isValid()) {
        const QList<quint32> glyphs = raw.glyphIndexesForString(text);
        if (glyphs.size() == text.size()) {
            QList<QPointF> positions;
            positions.reserve(glyphs.size());
            for (qsizetype i = 0; i < glyphs.size(); ++i)
                positions.append(QPointF((firstCol + static_cast<int>(i)) * m_cellWidth, baseline));
            QGlyphRun run;
            run.setRawFont(raw);
            run.setGlyphIndexes(glyphs);
            run.setPositions(positions);
            painter.drawGlyphRun(QPointF(0, 0), run);
            return;
        }
    }
    painter.setFont(m_fonts[fontIndex]);
    painter.drawText(QPointF(firstCol * m_cellWidth, baseline), text);
}

struct TerminalPainter::Look {
    QRgb fg, bg;
    int font;
    int underline;
    bool strike;
    bool sameText(const Look& o) const { return fg == o.fg && font == o.font; }
};

void TerminalPainter::paintRow(QPainter& painter, const TerminalScreen& screen, int viewRow,
                               const Frame& f) const
{
    const std::int64_t absolute = f.viewTop + viewRow;
    const int index = static_cast<int>(absolute - screen.firstScreenLine());
    const TerminalLine& line = screen.line(index);
    const int cols = screen.columns();
    const qreal top = viewRow * m_cellHeight;
    const qreal baseline = top + m_ascent;
    const bool cursorHere = f.drawCursor && index == f.cursor.row;
    const int cursorWidth = cursorHere && line.cell(f.cursor.col).width == 2 ? 2 : 1;
    const bool blockCursor =
        cursorHere && f.focused && f.cursor.shape == TerminalCursor::Shape::Block;
    const TerminalPos selStart = f.selectionStart, selEnd = f.selectionEnd;

    std::vector<Look> looks(static_cast<std::size_t>(cols));
    for (int col = 0; col < cols; ++col) {
        TerminalCell cell = line.cell(col);
        if (cell.isWideTail() && col > 0) cell = line.cell(col - 1); // a tail looks like its head
        QRgb fg = rgbOf(cell.fg, f.fg);
        QRgb bg = rgbOf(cell.bg, f.bg);
        if (cell.has(TerminalCell::Reverse)) std::swap(fg, bg);
        const TerminalPos here{absolute, col};
        if (f.match && f.match->line == absolute && col >= f.match->col &&
            col < f.match->col + f.match->length) {
            fg = kMatchFg;
            bg = kMatchBg;
        } else if (f.hasSelection && !(here < selStart) && here < selEnd) {
            fg = f.selectionFg;
            bg = f.selectionBg;
        }
        if (blockCursor && col >= f.cursor.col && col < f.cursor.col + cursorWidth)
            std::swap(fg, bg);
        looks[static_cast<std::size_t>(col)] = {fg, bg, fontIndex(cell), cell.underline(),
                                                cell.has(TerminalCell::Strike)};
    }

    // Backgrounds, in runs of one colour; the default one is already there.
    for (int start = 0, col = 1; col <= cols; ++col) {
        const QRgb bg = looks[static_cast<std::size_t>(start)].bg;
        if (col < cols && looks[static_cast<std::size_t>(col)].bg == bg) continue;
        if (bg != f.bg) {
            const QRect r = cellRect(viewRow, start);
            painter.fillRect(
                QRect(r.left(), r.top(), cellRect(viewRow, col).left() - r.left(), m_cellHeight),
                QColor::fromRgba(bg));
        }
        start = col;
    }

    // Text: runs of cells in the terminal font with one colour and face, the rest one by one.
    QString run;
    int runStart = 0, runEnd = 0;
    const Look* runLook = nullptr;
    auto flush = [&] {
        if (runLook != nullptr && !run.isEmpty())
            drawRun(painter, run, runLook->font, runStart, baseline, runLook->fg);
        run.clear();
        runLook = nullptr;
    };
    for (int col = 0; col < cols; ++col) {
        const TerminalCell cell = line.cell(col);
        if (cell.isWideTail()) continue;
        const Look& look = looks[static_cast<std::size_t>(col)];
        const bool blank = cell.ch == 0 || cell.ch == U' ';
        const bool simple = !blank && cell.width == 1 && !cell.has(TerminalCell::Combining) &&
                            inPrimaryFont(cell.ch);
        if ((blank || simple) && runLook != nullptr && runEnd == col && look.sameText(*runLook)) {
            run += blank ? QChar(u' ') : QChar(static_cast<char16_t>(cell.ch));
            runEnd = col + 1;
            continue;
        }
        flush();
        if (blank) continue;
        if (simple) {
            run = QChar(static_cast<char16_t>(cell.ch));
            runStart = col;
            runEnd = col + 1;
            runLook = &look;
            continue;
        }
        painter.setFont(m_fonts[look.font]);
        painter.setPen(QColor::fromRgba(look.fg));
        painter.drawText(QPointF(col * m_cellWidth, baseline), cellTextOf(line, col));
    }
    flush();

    // Underlines (single, double, curly) and strike-through.
    const qreal underY = std::min(baseline + m_underlinePos, top + m_cellHeight - m_lineWidth);
    for (int col = 0; col < cols; ++col) {
        const Look& look = looks[static_cast<std::size_t>(col)];
        if (look.underline == 0 && !look.strike) continue;
        const qreal x0 = col * m_cellWidth, x1 = (col + 1) * m_cellWidth;
        painter.setPen(QPen(QColor::fromRgba(look.fg), m_lineWidth));
        if (look.underline == 1 || look.underline == 2)
            painter.drawLine(QPointF(x0, underY), QPointF(x1, underY));
        if (look.underline == 2) {
            const qreal y = underY - 2 * m_lineWidth;
            painter.drawLine(QPointF(x0, y), QPointF(x1, y));
        }
        if (look.underline == 3) {
            const qreal mid = (x0 + x1) / 2, up = underY - 2 * m_lineWidth;
            painter.drawLine(QPointF(x0, underY), QPointF(mid, up));
            painter.drawLine(QPointF(mid, up), QPointF(x1, underY));
        }
        if (look.strike) {
            const qreal y = baseline - m_strikePos;
            painter.drawLine(QPointF(x0, y), QPointF(x1, y));
        }
    }

    // The block cursor is drawn above as reversed cells; the other shapes here.
    if (cursorHere && !blockCursor) {
        QRect r = cellRect(viewRow, f.cursor.col);
        r.setRight(cellRect(viewRow, f.cursor.col + cursorWidth - 1).right());
        const QColor color = QColor::fromRgba(f.fg);
        if (!f.focused) {
            painter.setPen(color);
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(r.adjusted(0, 0, -1, -1));
        } else if (f.cursor.shape == TerminalCursor::Shape::Underline) {
            painter.fillRect(QRect(r.left(), r.bottom() - 1, r.width(), 2), color);
        } else {
            painter.fillRect(QRect(r.left(), r.top(), 2, r.height()), color);
        }
    }
}

} // namespace sbui
