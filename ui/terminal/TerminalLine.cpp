#include "TerminalLine.h"

#include <algorithm>

namespace sbui {

QString cellTextOf(const TerminalLine& line, int col)
{
    const TerminalCell c = line.cell(col);
    if (c.isWideTail()) return {};
    if (c.ch == 0) return QStringLiteral(" ");
    QString s = QString::fromUcs4(&c.ch, 1);
    if (c.has(TerminalCell::Combining)) {
        auto it = std::lower_bound(
            line.marks.begin(), line.marks.end(),
            std::pair<std::uint16_t, char32_t>(static_cast<std::uint16_t>(col), 0));
        for (; it != line.marks.end() && it->first == col; ++it)
            s += QString::fromUcs4(&it->second, 1);
    }
    return s;
}

QString textOf(const TerminalLine& line, int from, int to)
{
    QString s;
    const int end = std::min(to, static_cast<int>(line.cells.size()));
    for (int col = std::max(0, from); col < end; ++col)
        s += cellTextOf(line, col);
    return s;
}

} // namespace sbui
