// Which rows of the primary screen continue the row above them because the text ran past the
// right margin (ScreenLine::Break), for reflow. libvterm 0.1.4 does not record it (its
// VTermLineInfo has no continuation flag, its sb_pushline no argument for it), so it is inferred
// from the screen's callbacks, with damage reported cell by cell:
//  * a glyph written at column 0 right after one that reached the right margin, the cursor not
//    moved elsewhere in between, is a wrap (after padding when a wide character did not fit);
//  * any other glyph written at column 0 starts a new line;
//  * a row whose end is erased no longer runs into the next one (as in xterm);
//  * scrolling moves the breaks with their rows; a row going into the scrollback takes its own.
#pragma once

#include "recording/ScreenLine.h"

#include <functional>
#include <optional>
#include <vector>

namespace sb {

class ScreenWrapTracker {
  public:
    using Break = ScreenLine::Break;
    // Whether the row is empty from the column to its end (libvterm's vterm_screen_is_eol).
    using EmptyFrom = std::function<bool(int row, int col)>;

    explicit ScreenWrapTracker(EmptyFrom emptyFrom) : m_emptyFrom(std::move(emptyFrom)) {}

    // Every row after a line break.
    void reset(int rows, int cols);
    // The breaks of rows laid out anew (a reflow), and the cursor's place: at column 0 of a
    // continued row, what it writes next continues the line.
    void assign(std::vector<Break> rows, int cols, int cursorRow, int cursorCol);
    Break at(int row) const;
    // While the alternate screen shows, the callbacks are about its rows, not the primary's.
    void setPaused(bool paused);

    // The cursor is just after a glyph in the last column, the wrap still pending (libvterm
    // keeps it on that glyph).
    bool wrapPending(int cursorRow, int cursorCol) const;

    // The screen's callbacks: damage [firstRow, endRow) × [firstCol, endCol); rows moved from
    // one range to another (a scroll); the cursor's new place; the next row going into the
    // scrollback (libvterm pushes rows from the top, then moves the rest).
    void damaged(int firstRow, int endRow, int firstCol, int endCol);
    void moved(int destFirstRow, int destEndRow, int srcFirstRow, int srcEndRow, int firstCol,
               int endCol);
    void cursorMoved(int row, int col);
    Break pushed();

  private:
    struct Cell {
        int row = 0, col = 0;
        bool operator==(const Cell&) const = default;
    };
    // The glyph that reached the margin: its row, where the cursor went after it, and whether
    // the last column was left as padding (a wide character would not have fitted).
    struct Pending {
        int row = 0;
        Cell cursor;
        bool padded = false;
    };

    void glyph(int row, int col, int endCol);
    void set(int row, Break b);

    EmptyFrom m_emptyFrom;
    std::vector<Break> m_rows;
    int m_cols = 0;
    bool m_paused = false;
    std::optional<Pending> m_pending;
    // Where the last glyph went: damage there again is a combining mark joining it.
    std::optional<Cell> m_lastGlyph;
    int m_pushed = 0;
};

} // namespace sb
