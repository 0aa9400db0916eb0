#include "recording/ScreenWrapTracker.h"

#include <algorithm>

namespace sb {

void ScreenWrapTracker::reset(int rows, int cols)
{
    m_rows.assign(static_cast<std::size_t>(std::max(0, rows)), Break::Hard);
    m_cols = cols;
    m_pending.reset();
    m_lastGlyph.reset();
    m_pushed = 0;
}

void ScreenWrapTracker::assign(std::vector<Break> rows, int cols, int cursorRow, int cursorCol)
{
    m_rows = std::move(rows);
    m_cols = cols;
    m_pending.reset();
    m_lastGlyph.reset();
    m_pushed = 0;
    if (cursorCol == 0 && at(cursorRow) != Break::Hard)
        m_pending =
            Pending{cursorRow - 1, {cursorRow, 0}, at(cursorRow) == Break::SoftAfterPadding};
}

ScreenWrapTracker::Break ScreenWrapTracker::at(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_rows.size())) return Break::Hard;
    return m_rows[static_cast<std::size_t>(row)];
}

void ScreenWrapTracker::set(int row, Break b)
{
    if (row >= 0 && row < static_cast<int>(m_rows.size()))
        m_rows[static_cast<std::size_t>(row)] = b;
}

void ScreenWrapTracker::setPaused(bool paused)
{
    m_paused = paused;
    m_pending.reset();
    m_lastGlyph.reset();
}

bool ScreenWrapTracker::wrapPending(int cursorRow, int cursorCol) const
{
    return m_pending && !m_pending->padded && m_pending->row == cursorRow &&
           m_pending->cursor == Cell{cursorRow, cursorCol};
}

void ScreenWrapTracker::damaged(int firstRow, int endRow, int firstCol, int endCol)
{
    if (m_paused) return;
    // libvterm damages one glyph at a time (one or two cells), anything else is an erase or a
    // repaint.
    if (endRow == firstRow + 1 && endCol > firstCol && endCol - firstCol <= 2) {
        glyph(firstRow, firstCol, endCol);
        return;
    }
    m_lastGlyph.reset();
    if (endCol < m_cols) return;
    for (int row = std::max(0, firstRow); row < endRow && row < static_cast<int>(m_rows.size());
         ++row) {
        const bool endEmptied = [&] {
            const bool matters = at(row + 1) != Break::Hard || (m_pending && m_pending->row == row);
            return matters && m_emptyFrom(row, firstCol);
        }();
        if (endEmptied) {
            set(row + 1, Break::Hard);
            if (m_pending && m_pending->row == row) m_pending.reset();
        }
        if (firstCol == 0 && at(row) != Break::Hard && m_emptyFrom(row, 0)) set(row, Break::Hard);
    }
}

void ScreenWrapTracker::glyph(int row, int col, int endCol)
{
    const Cell here{row, col};
    if (m_lastGlyph == here) return;
    m_lastGlyph = here;
    if (col == 0) {
        const bool wrapped = m_pending && m_pending->row + 1 == row;
        set(row, !wrapped            ? Break::Hard
                 : m_pending->padded ? Break::SoftAfterPadding
                                     : Break::Soft);
    }
    m_pending.reset();
    // At the margin libvterm leaves the cursor on the glyph; one column short of it, after.
    if (endCol == m_cols)
        m_pending = Pending{row, {row, col}, false};
    else if (endCol == m_cols - 1)
        m_pending = Pending{row, {row, endCol}, true};
}

void ScreenWrapTracker::cursorMoved(int row, int col)
{
    if (m_pending && !(m_pending->cursor == Cell{row, col})) m_pending.reset();
}

void ScreenWrapTracker::moved(int destFirstRow, int destEndRow, int srcFirstRow, int srcEndRow,
                              int firstCol, int endCol)
{
    m_lastGlyph.reset();
    m_pushed = 0;
    if (m_paused || firstCol != 0 || endCol != m_cols) return;
    const int down = destFirstRow - srcFirstRow;
    if (down == 0) return;
    // Rows scrolled off the top of the screen went into the scrollback.
    const bool intoScrollback = down < 0 && destFirstRow == 0;
    if (m_pending) {
        const int row = m_pending->row;
        if ((row >= srcFirstRow && row < srcEndRow) || (intoScrollback && row < srcFirstRow)) {
            m_pending->row += down;
            m_pending->cursor.row += down;
        } else {
            m_pending.reset();
        }
    }
    const int rows = static_cast<int>(m_rows.size());
    auto& f = m_rows;
    if (down < 0) {
        for (int d = std::max(0, destFirstRow); d < destEndRow && d - down < rows; ++d)
            f[static_cast<std::size_t>(d)] = f[static_cast<std::size_t>(d - down)];
    } else {
        for (int d = std::min(destEndRow, rows) - 1; d >= destFirstRow && d - down >= 0; --d)
            f[static_cast<std::size_t>(d)] = f[static_cast<std::size_t>(d - down)];
    }
    // The rows scrolled in are new; the first moved row now follows another row, unless the one
    // before it went into the scrollback; so does the row after the scrolled region.
    const int regionFirst = std::min(destFirstRow, srcFirstRow);
    const int regionEnd = std::max(destEndRow, srcEndRow);
    for (int row = regionFirst; row < regionEnd; ++row)
        if (row < destFirstRow || row >= destEndRow) set(row, Break::Hard);
    if (!intoScrollback) set(destFirstRow, Break::Hard);
    set(regionEnd, Break::Hard);
}

ScreenWrapTracker::Break ScreenWrapTracker::pushed()
{
    return at(m_pushed++);
}

} // namespace sb
