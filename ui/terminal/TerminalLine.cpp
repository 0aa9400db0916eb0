#include "TerminalLine.h"

#include <algorithm>

namespace sbui {

TerminalCell TerminalLine::cell(int col) const
{
    if (col < 0 || col >= static_cast<int>(cells.size())) return {};
    return cells[static_cast<std::size_t>(col)];
}

QString TerminalLine::cellText(int col) const
{
    const TerminalCell c = cell(col);
    if (c.isWideTail()) return {};
    if (c.ch == 0) return QStringLiteral(" ");
    QString s = QString::fromUcs4(&c.ch, 1);
    if (c.has(TerminalCell::Combining)) {
        auto it = std::lower_bound(
            marks.begin(), marks.end(),
            std::pair<std::uint16_t, char32_t>(static_cast<std::uint16_t>(col), 0));
        for (; it != marks.end() && it->first == col; ++it)
            s += QString::fromUcs4(&it->second, 1);
    }
    return s;
}

QString TerminalLine::text(int from, int to) const
{
    QString s;
    const int end = std::min(to, static_cast<int>(cells.size()));
    for (int col = std::max(0, from); col < end; ++col)
        s += cellText(col);
    return s;
}

void TerminalLine::clear()
{
    cells.clear();
    marks.clear();
    columns = 0;
    joins = Break::Hard;
}

} // namespace sbui
