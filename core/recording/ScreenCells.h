// libvterm's screen cells to ScreenLine cells and back: how the recordings' screen model and the
// window's terminal take rows out of libvterm for a reflow and put them back (through
// sb_popline). Only libvterm's header is used (its colour helpers are inline), so the window,
// which links libvterm, and the core, which opens it when first needed, share these.
#pragma once

#include "recording/ScreenLine.h"

#include <vterm.h>

namespace sb {

// libvterm's cell at `col` into `line` (whose cells are already sized); combining marks go into
// the line's marks.
void screenCellFromVterm(const VTermScreenCell& in, ScreenLine& line, int col);
// The line's cell at `col` as libvterm's, for a row of `cols` columns loaded back: a wide
// character cut by a narrower row, or a tail without its head, is blank. Default colours are
// the terminal's.
VTermScreenCell vtermCellFromScreen(const ScreenLine& line, int col, int cols,
                                    const VTermColor& defaultFg, const VTermColor& defaultBg);

} // namespace sb
