// One line of terminal cells as the widget keeps it: the core's ScreenLine (reflow is shared with
// the recordings' screen model), and its text for painting, selection and search.
#pragma once

#include "recording/ScreenLine.h"

#include <QString>

namespace sbui {

using TerminalColor = sb::ScreenColor;
using TerminalCell = sb::ScreenCell;
using TerminalLine = sb::ScreenLine;

// The cell's text: base character and its combining marks; empty for a wide tail, a space for an
// erased cell.
QString cellTextOf(const TerminalLine& line, int col);
// Cells from `from` to `to` (exclusive) as text, wide tails skipped, trailing spaces kept.
QString textOf(const TerminalLine& line, int from, int to);

} // namespace sbui
