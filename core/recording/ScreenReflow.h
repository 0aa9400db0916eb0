// Reflow: the primary screen's lines laid out again at a new width, as terminals do when their
// window is resized. Rows the terminal soft-wrapped at the right margin (ScreenLine::Break)
// join the row before them into one logical line, which is wrapped again at the new width;
// line breaks stay. Wide characters move whole to the next row, combining marks stay with their
// cell, colours and attributes with their characters. The bottom of the screen stays where it
// was: rows the screen no longer holds go into the scrollback, rows it has room for come back
// from it. Plain data in and out; the window's TerminalScreen and the recordings' ScreenModel take
// the lines out of libvterm and put them back.
#pragma once

#include "recording/ScreenLine.h"

#include <optional>
#include <vector>

namespace sb {

// A cell in a list of lines: the line's index in the list, a column.
struct ScreenSpot {
    int line = 0;
    int col = 0;
    bool operator==(const ScreenSpot&) const = default;
};

struct ScreenReflowInput {
    // The scrollback, oldest first, then the screen's rows (one cell per column).
    std::vector<ScreenLine> lines;
    int screenStart = 0;
    // On the screen; the column may be one past the last (a wrap is pending: the cursor is after
    // the character in the last column). Without a cursor, only scrollback is reflowed.
    std::optional<ScreenSpot> cursor;
    // Carried to the same character (selection ends, the view's top); a column past a row's end
    // goes on into the rows its line continues in, up to the end of the line.
    std::vector<ScreenSpot> positions;
    int rows = 0, cols = 0;
    int scrollbackLimit = 0;
};

struct ScreenReflowResult {
    std::vector<ScreenLine> scrollback; // oldest first, at most the limit
    std::vector<ScreenLine> screen;     // exactly `rows`
    ScreenSpot cursor;                  // a row of the screen
    // As indices into the scrollback followed by the screen.
    std::vector<ScreenSpot> positions;
    // Rows lost to the scrollback limit, counted in old lines or new rows, whichever went.
    int discarded = 0;
};

ScreenReflowResult reflowLines(ScreenReflowInput input);

} // namespace sb
