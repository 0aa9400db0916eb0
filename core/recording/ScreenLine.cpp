#include "recording/ScreenLine.h"

namespace sb {

ScreenCell ScreenLine::cell(int col) const
{
    if (col < 0 || col >= static_cast<int>(cells.size())) return {};
    return cells[static_cast<std::size_t>(col)];
}

void ScreenLine::clear()
{
    cells.clear();
    marks.clear();
    columns = 0;
    joins = Break::Hard;
}

} // namespace sb
