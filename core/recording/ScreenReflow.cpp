#include "recording/ScreenReflow.h"

#include <algorithm>
#include <numeric>

namespace sb {
namespace {

using Break = ScreenLine::Break;

bool isPlainBlank(const ScreenCell& c)
{
    return (c.ch == 0 || c.ch == U' ') && c.attrs == 0 && c.fg.isDefault() && c.bg.isDefault();
}

// Nothing written in any cell, as libvterm sees it (erased cells, whatever their colour).
bool isBlankRow(const ScreenLine& line)
{
    return std::all_of(line.cells.begin(), line.cells.end(),
                       [](const ScreenCell& c) { return c.ch == 0 || isPlainBlank(c); });
}

// Where a logical line's text ends: without trailing plain blanks (`text`), and also without the
// erased, coloured cells before them (`content`), which are kept only while the last row has
// room, so a line filled to the margin with a background colour never wraps into a row of it.
struct Ends {
    std::size_t text = 0, content = 0;
};

Ends endsOf(const std::vector<ScreenCell>& cells, std::size_t size)
{
    Ends e;
    e.text = std::min(size, cells.size());
    while (e.text > 0 && isPlainBlank(cells[e.text - 1]))
        --e.text;
    e.content = e.text;
    while (e.content > 0 && cells[e.content - 1].ch == 0)
        --e.content;
    return e;
}

// A position on its way: where it was, then where it went, as a row counted from the newest
// (negative: a blank row below the last one laid out) and a column.
struct Carried {
    ScreenSpot from;
    bool isCursor = false;
    bool placed = false;
    int fromNewest = 0;
    int col = 0;
};

class Layout {
  public:
    Layout(std::vector<ScreenLine>& lines, int width) : m_lines(lines), m_width(width) {}

    // Lays out the logical line of rows [start, end), appending its rows newest first to
    // `newestFirst` and placing the spots on those rows.
    void lineOut(int start, int end, const std::vector<Carried*>& spots,
                 std::vector<ScreenLine>& newestFirst);

  private:
    // The cells a row gives its logical line: all its columns when the next row continues it
    // (but the padding before a wide character that did not fit), else the cells it has.
    int contributed(int row, int end) const;
    void join(int start, int end);
    void wrap(std::size_t need, std::size_t keep);
    bool moveWhole(int row, const std::vector<Carried*>& spots,
                   std::vector<ScreenLine>& newestFirst);
    bool moveRows(int start, int end, const std::vector<Carried*>& spots,
                  std::vector<ScreenLine>& newestFirst);

    std::vector<ScreenLine>& m_lines;
    const int m_width;
    // The logical line being laid out, reused from line to line.
    std::vector<ScreenCell> m_cells;
    std::vector<std::pair<std::size_t, char32_t>> m_marks; // by cell index, in order
    std::vector<std::size_t> m_rowOffset;                  // where each old row's cells begin
    std::size_t m_lineEnd = 0;           // how far into the line positions go: its last row's width
    std::vector<std::size_t> m_rowStart; // where each new row's cells begin
    std::vector<ScreenLine> m_rows;      // the new rows, oldest first
    // Rows already joined, whose storage the new rows take over.
    std::vector<ScreenLine> m_spare;
};

int Layout::contributed(int row, int end) const
{
    const ScreenLine& line = m_lines[static_cast<std::size_t>(row)];
    if (row + 1 >= end) return static_cast<int>(line.cells.size());
    int width = std::max<int>(line.columns, static_cast<int>(line.cells.size()));
    if (m_lines[static_cast<std::size_t>(row) + 1].joins == Break::SoftAfterPadding)
        width = std::max(0, width - 1);
    return width;
}

void Layout::join(int start, int end)
{
    m_cells.clear();
    m_marks.clear();
    m_rowOffset.clear();
    for (int row = start; row < end; ++row) {
        const ScreenLine& line = m_lines[static_cast<std::size_t>(row)];
        const auto width = static_cast<std::size_t>(contributed(row, end));
        const std::size_t offset = m_cells.size();
        m_rowOffset.push_back(offset);
        const std::size_t have = std::min(line.cells.size(), width);
        m_cells.insert(m_cells.end(), line.cells.begin(),
                       line.cells.begin() + static_cast<std::ptrdiff_t>(have));
        m_cells.resize(offset + width); // blanks the row did not store
        for (const auto& [col, mark] : line.marks)
            if (col < width) m_marks.emplace_back(offset + col, mark);
    }
    const ScreenLine& last = m_lines[static_cast<std::size_t>(end) - 1];
    m_lineEnd = m_rowOffset.back() + std::max<std::size_t>(last.cells.size(), last.columns);
    for (int row = start; row < end; ++row) {
        ScreenLine& line = m_spare.emplace_back(std::move(m_lines[static_cast<std::size_t>(row)]));
        line.clear();
    }
}

// Cells [0, need) go into rows of m_width columns; cells from there up to `keep` only while the
// last row has room.
void Layout::wrap(std::size_t need, std::size_t keep)
{
    m_rows.clear();
    m_rowStart.clear();
    const std::size_t end = std::max(need, keep);
    auto newRow = [&](Break joins, std::size_t first) -> ScreenLine& {
        if (m_spare.empty()) m_spare.emplace_back();
        ScreenLine& row = m_rows.emplace_back(std::move(m_spare.back()));
        m_spare.pop_back();
        row.cells.reserve(std::min(static_cast<std::size_t>(m_width), end - first));
        row.columns = static_cast<std::uint16_t>(m_width);
        row.joins = joins;
        m_rowStart.push_back(first);
        return row;
    };
    ScreenLine* row = &newRow(Break::Hard, 0);
    int col = 0;
    std::size_t mark = 0;
    for (std::size_t i = 0; i < end;) {
        ScreenCell cell = i < m_cells.size() ? m_cells[i] : ScreenCell{};
        const bool wide = cell.width == 2 && i + 1 < m_cells.size() && m_cells[i + 1].isWideTail();
        if (cell.isWideTail()) cell = ScreenCell{}; // a right half without its left one
        if (!wide) cell.width = 1;
        const int w = wide ? 2 : 1;
        if (col + w > m_width && col > 0) {
            if (i >= need) break;
            // A wide character that does not fit leaves the last column empty.
            row = &newRow(col < m_width ? Break::SoftAfterPadding : Break::Soft, i);
            col = 0;
        }
        row->cells.push_back(cell);
        if (wide) row->cells.push_back(m_cells[i + 1]);
        if (cell.has(ScreenCell::Combining)) {
            while (mark < m_marks.size() && m_marks[mark].first < i)
                ++mark;
            for (; mark < m_marks.size() && m_marks[mark].first == i; ++mark)
                row->marks.emplace_back(static_cast<std::uint16_t>(col), m_marks[mark].second);
        }
        col += w;
        i += static_cast<std::size_t>(w);
    }
    for (ScreenLine& r : m_rows)
        while (!r.cells.empty() && isPlainBlank(r.cells.back()))
            r.cells.pop_back();
}

// The common case: a line that fits as it is moves without being copied.
bool Layout::moveWhole(int row, const std::vector<Carried*>& spots,
                       std::vector<ScreenLine>& newestFirst)
{
    ScreenLine& line = m_lines[static_cast<std::size_t>(row)];
    const Ends ends = endsOf(line.cells, line.cells.size());
    std::size_t need = ends.content;
    const int limit = std::max<int>(line.columns, static_cast<int>(line.cells.size()));
    for (const Carried* spot : spots)
        if (spot->isCursor)
            need =
                std::max(need, static_cast<std::size_t>(std::clamp(spot->from.col, 0, limit)) + 1);
    if (need > static_cast<std::size_t>(m_width)) return false;
    line.cells.resize(std::min(ends.text, static_cast<std::size_t>(m_width)));
    std::erase_if(line.marks, [&](const auto& m) { return m.first >= line.cells.size(); });
    line.columns = static_cast<std::uint16_t>(m_width);
    line.joins = Break::Hard;
    for (Carried* spot : spots) {
        spot->placed = true;
        spot->fromNewest = static_cast<int>(newestFirst.size());
        spot->col = std::min(std::clamp(spot->from.col, 0, limit), m_width);
    }
    newestFirst.push_back(std::move(line));
    return true;
}

// Rows laid out at this width already (only the row count changed) move as they are.
bool Layout::moveRows(int start, int end, const std::vector<Carried*>& spots,
                      std::vector<ScreenLine>& newestFirst)
{
    for (int row = start; row < end; ++row) {
        const ScreenLine& line = m_lines[static_cast<std::size_t>(row)];
        if (line.columns != m_width || line.cells.size() > static_cast<std::size_t>(m_width))
            return false;
    }
    for (const Carried* spot : spots)
        if (spot->isCursor && spot->from.col >= m_width) return false;
    const int newest = static_cast<int>(newestFirst.size()) + end - 1;
    for (Carried* spot : spots) {
        spot->placed = true;
        spot->fromNewest = newest - spot->from.line;
        spot->col = std::clamp(spot->from.col, 0, m_width);
    }
    for (int row = end - 1; row >= start; --row) {
        ScreenLine& line = m_lines[static_cast<std::size_t>(row)];
        const std::size_t text = endsOf(line.cells, line.cells.size()).text;
        line.cells.resize(text);
        std::erase_if(line.marks, [&](const auto& m) { return m.first >= text; });
        if (row == start) line.joins = Break::Hard;
        newestFirst.push_back(std::move(line));
    }
    return true;
}

void Layout::lineOut(int start, int end, const std::vector<Carried*>& spots,
                     std::vector<ScreenLine>& newestFirst)
{
    if (moveRows(start, end, spots, newestFirst)) return;
    if (end == start + 1 && moveWhole(start, spots, newestFirst)) return;
    join(start, end);
    // Each spot as an offset into the logical line (a column past a row's end goes on into the
    // rows after it); the cursor needs its cell to exist.
    std::vector<std::size_t> offsets;
    const Ends ends = endsOf(m_cells, m_cells.size());
    std::size_t need = ends.content;
    for (const Carried* spot : spots) {
        const std::size_t offset =
            std::min(m_rowOffset[static_cast<std::size_t>(spot->from.line - start)] +
                         static_cast<std::size_t>(std::max(0, spot->from.col)),
                     m_lineEnd);
        offsets.push_back(offset);
        if (spot->isCursor) need = std::max(need, offset + 1);
    }
    wrap(need, ends.text);
    const int rows = static_cast<int>(m_rows.size());
    for (std::size_t s = 0; s < spots.size(); ++s) {
        const auto it = std::upper_bound(m_rowStart.begin(), m_rowStart.end(), offsets[s]);
        const int row = static_cast<int>(it - m_rowStart.begin()) - 1;
        Carried& spot = *spots[s];
        spot.placed = true;
        spot.fromNewest = static_cast<int>(newestFirst.size()) + rows - 1 - row;
        spot.col = static_cast<int>(
            std::min<std::size_t>(offsets[s] - m_rowStart[static_cast<std::size_t>(row)],
                                  static_cast<std::size_t>(m_width)));
    }
    for (auto it = m_rows.rbegin(); it != m_rows.rend(); ++it)
        newestFirst.push_back(std::move(*it));
}

} // namespace

ScreenReflowResult reflowLines(ScreenReflowInput in)
{
    std::vector<ScreenLine>& lines = in.lines;
    const int total = static_cast<int>(lines.size());
    const int width = std::max(1, in.cols);
    const int rows = std::max(0, in.rows);
    const int limit = std::max(0, in.scrollbackLimit);
    const int screenStart = std::clamp(in.screenStart, 0, total);

    // The text ends on the last row of the screen that is not blank, or the cursor's, and the rows
    // continuing it; the blank rows below stay as many as the screen still has room for.
    int last = screenStart - 1;
    for (int i = total - 1; i >= screenStart; --i) {
        if (!isBlankRow(lines[static_cast<std::size_t>(i)])) {
            last = i;
            break;
        }
    }
    if (screenStart >= total) in.cursor.reset(); // no screen rows: no cursor either
    if (in.cursor) {
        in.cursor->line = std::clamp(in.cursor->line, screenStart, total - 1);
        last = std::max(last, in.cursor->line);
    }
    while (last + 1 < total && lines[static_cast<std::size_t>(last) + 1].joins != Break::Hard)
        ++last;
    const int blankBelow = total - 1 - last;

    // The screen's first row, the cursor, then the caller's positions; visited newest first.
    std::vector<Carried> spots;
    spots.push_back({ScreenSpot{screenStart, 0}});
    if (in.cursor) spots.push_back({*in.cursor, true});
    const std::size_t firstPosition = spots.size();
    for (const ScreenSpot& p : in.positions)
        spots.push_back({p});
    for (Carried& spot : spots) {
        if (spot.from.line < 0) spot.from = {0, 0};
        spot.from.line = std::min(spot.from.line, std::max(0, total - 1));
        if (spot.from.line > last) {
            spot.placed = true;
            spot.fromNewest = last - spot.from.line;
            spot.col = std::clamp(spot.from.col, 0, width);
        }
    }
    std::vector<std::size_t> order(spots.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return spots[a].from.line > spots[b].from.line;
    });
    auto nextSpot = order.begin();
    while (nextSpot != order.end() && spots[*nextSpot].placed)
        ++nextSpot;

    // How many rows from the newest down the screen shows: the same first row when the text
    // still fits below it, else as many as keep the blank rows below; always the cursor's row.
    auto shownRows = [&] {
        int shown = std::min(rows, std::max(spots[0].fromNewest + 1, rows - blankBelow));
        if (in.cursor) shown = std::max(shown, spots[1].fromNewest + 1);
        return std::max(0, shown);
    };

    // Newest first, so that laying out stops once the scrollback is full.
    std::vector<ScreenLine> newestFirst;
    newestFirst.reserve(static_cast<std::size_t>(std::min(total, limit + rows)) + 16);
    Layout layout(lines, width);
    std::vector<Carried*> here;
    int end = last + 1;
    int shown = -1;
    while (end > 0) {
        int start = end - 1;
        while (start > 0 && lines[static_cast<std::size_t>(start)].joins != Break::Hard)
            --start;
        here.clear();
        for (; nextSpot != order.end() && spots[*nextSpot].from.line >= start; ++nextSpot)
            here.push_back(&spots[*nextSpot]);
        layout.lineOut(start, end, here, newestFirst);
        end = start;
        if (shown < 0 && spots[0].placed) shown = shownRows();
        if (shown >= 0 && static_cast<int>(newestFirst.size()) - shown >= limit) break;
    }
    const int laidOut = static_cast<int>(newestFirst.size());
    shown = std::min(shown < 0 ? shownRows() : shown, laidOut);

    ScreenReflowResult result;
    const int older = laidOut - shown;
    const int kept = std::min(older, limit);
    result.discarded = (older - kept) + end;
    result.scrollback.reserve(static_cast<std::size_t>(kept));
    for (int r = shown + kept - 1; r >= shown; --r)
        result.scrollback.push_back(std::move(newestFirst[static_cast<std::size_t>(r)]));
    // The newest rows that no longer fit below the cursor are lost.
    const int lowest = std::max(0, shown - rows);
    result.screen.reserve(static_cast<std::size_t>(rows));
    for (int r = shown - 1; r >= lowest; --r)
        result.screen.push_back(std::move(newestFirst[static_cast<std::size_t>(r)]));
    while (static_cast<int>(result.screen.size()) < rows) {
        ScreenLine& blank = result.screen.emplace_back();
        blank.columns = static_cast<std::uint16_t>(width);
    }

    // A row counted from the newest, as an index into the scrollback and the screen.
    auto placeOf = [&](const Carried& spot) -> ScreenSpot {
        if (!spot.placed) return {0, 0}; // went with the oldest lines
        if (spot.fromNewest >= shown) {
            const int fromScreen = spot.fromNewest - shown;
            if (fromScreen >= kept) return {0, 0};
            return {kept - 1 - fromScreen, spot.col};
        }
        const int row = shown - 1 - spot.fromNewest;
        if (row >= rows) return {kept + std::max(0, rows - 1), width};
        return {kept + row, spot.col};
    };
    if (in.cursor) {
        const ScreenSpot at = placeOf(spots[1]);
        result.cursor = {at.line - kept, std::min(at.col, width - 1)};
    }
    for (std::size_t s = firstPosition; s < spots.size(); ++s)
        result.positions.push_back(placeOf(spots[s]));
    return result;
}

} // namespace sb
