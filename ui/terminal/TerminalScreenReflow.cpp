// TerminalScreen's resize: reflow of the primary screen and the scrollback, libvterm's screen
// loaded with the result, and the primary screen kept whole while the alternate one shows.
#include "TerminalScreen.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <vterm.h>

namespace sbui {

namespace {

// A DECSET/DECRST of the alternate screen (modes 1047, 1049: CSI ? … h or l) in some output.
struct ScreenSwitch {
    enum class Kind { None, Whole, Unfinished } kind = Kind::None;
    std::size_t begin = 0, end = 0; // the sequence; Unfinished: from `begin` to the end
    bool on = false;                // h: to the alternate screen, l: back
    bool withCursor = false;        // mode 1049, which saves and restores the cursor too
};

// An unfinished sequence longer than this is not one of ours.
constexpr std::size_t kLongestSwitch = 32;

ScreenSwitch findScreenSwitch(const char* bytes, std::size_t length)
{
    const char* const end = bytes + length;
    for (const char* esc = static_cast<const char*>(std::memchr(bytes, '\x1b', length));
         esc != nullptr; esc = static_cast<const char*>(std::memchr(
                             esc + 1, '\x1b', static_cast<std::size_t>(end - esc - 1)))) {
        const char* p = esc + 1;
        const char prefix[] = {'[', '?'};
        bool matches = true;
        for (const char c : prefix) {
            if (p == end) break;
            if (*p++ != c) matches = false;
        }
        if (!matches) continue;
        bool alternate = false, withCursor = false;
        int mode = 0;
        auto take = [&] {
            alternate = alternate || mode == 1047 || mode == 1049;
            withCursor = withCursor || mode == 1049;
            mode = 0;
        };
        for (; p != end && ((*p >= '0' && *p <= '9') || *p == ';'); ++p) {
            if (*p == ';')
                take();
            else
                mode = std::min(mode * 10 + (*p - '0'), 100000);
        }
        const auto begin = static_cast<std::size_t>(esc - bytes);
        if (p == end) {
            if (length - begin <= kLongestSwitch)
                return {ScreenSwitch::Kind::Unfinished, begin, length, false, false};
            continue;
        }
        take();
        if (alternate && (*p == 'h' || *p == 'l'))
            return {ScreenSwitch::Kind::Whole, begin, static_cast<std::size_t>(p + 1 - bytes),
                    *p == 'h', withCursor};
    }
    return {};
}

} // namespace

void TerminalScreen::writeWatchingAltScreen(const char* bytes, std::size_t length)
{
    QByteArray joined;
    if (!m_heldBack.isEmpty()) {
        joined = m_heldBack + QByteArray::fromRawData(bytes, static_cast<qsizetype>(length));
        m_heldBack.clear();
        bytes = joined.constData();
        length = static_cast<std::size_t>(joined.size());
    }
    while (length > 0) {
        const ScreenSwitch next = findScreenSwitch(bytes, length);
        if (next.kind == ScreenSwitch::Kind::None) {
            parse(bytes, length);
            return;
        }
        parse(bytes, next.begin);
        if (next.kind == ScreenSwitch::Kind::Unfinished) {
            m_heldBack =
                QByteArray(bytes + next.begin, static_cast<qsizetype>(length - next.begin));
            return;
        }
        const bool wasAlt = m_altScreen;
        if (next.on && !wasAlt) savePrimary();
        parse(bytes + next.begin, next.end - next.begin);
        if (next.on && !m_altScreen) m_savedPrimary.reset();
        if (!next.on && wasAlt && !m_altScreen) restorePrimary(next.withCursor);
        bytes += next.end;
        length -= next.end;
    }
}

void TerminalScreen::savePrimary()
{
    SavedPrimary saved;
    saved.rows.reserve(static_cast<std::size_t>(m_rows));
    for (int row = 0; row < m_rows; ++row)
        saved.rows.push_back(line(row));
    saved.cursor = cursorSpot();
    m_savedPrimary = std::move(saved);
}

// Back on the primary screen, which libvterm cut to the new size if there was a resize
// meanwhile. Mode 1049 restores the cursor too, to where it was before the resize: the
// reflowed place replaces it. Mode 1047 leaves the cursor where the program put it.
void TerminalScreen::restorePrimary(bool withCursor)
{
    if (!m_savedPrimary) return;
    SavedPrimary saved = std::move(*m_savedPrimary);
    m_savedPrimary.reset();
    if (!saved.resized) return;
    if (!withCursor) {
        saved.cursor = cursorSpot();
        saved.cursor.col = std::min(saved.cursor.col, m_cols - 1);
    }
    loadScreen(std::move(saved.rows), saved.cursor, m_rows, m_cols);
}

void TerminalScreen::resize(int rows, int cols, std::span<TerminalPos> keep)
{
    rows = std::max(1, rows);
    cols = std::max(kMinColumns, cols);
    if (rows == m_rows && cols == m_cols) return;
    const std::int64_t firstLine = firstAbsoluteLine();

    TerminalReflowInput in;
    in.lines = m_scrollback.takeAll();
    in.screenStart = static_cast<int>(in.lines.size());
    in.rows = rows;
    in.cols = cols;
    in.scrollbackLimit = m_scrollback.limit();
    const bool primary = !m_altScreen;
    std::vector<TerminalLine> screenRows;
    TerminalSpot cursor;
    if (primary) {
        for (int row = 0; row < m_rows; ++row)
            screenRows.push_back(line(row));
        cursor = cursorSpot();
    } else if (m_savedPrimary) {
        screenRows = std::move(m_savedPrimary->rows);
        cursor = m_savedPrimary->cursor;
    }
    if (!screenRows.empty()) {
        in.cursor = TerminalSpot{in.screenStart + cursor.line, cursor.col};
        std::move(screenRows.begin(), screenRows.end(), std::back_inserter(in.lines));
    } else {
        in.rows = 0; // on the alternate screen, with no primary screen kept: scrollback only
    }
    if (primary) {
        for (const TerminalPos& p : keep)
            in.positions.push_back({static_cast<int>(std::clamp<std::int64_t>(
                                        p.line - firstLine, -1, static_cast<int>(in.lines.size()))),
                                    p.col});
    }

    TerminalReflowResult out = reflowLines(std::move(in));
    m_scrollback.assign(std::move(out.scrollback));
    const std::int64_t newFirstLine = firstLine + out.discarded;
    m_firstScreenLine = newFirstLine + m_scrollback.size();
    if (primary) {
        for (std::size_t i = 0; i < keep.size(); ++i)
            keep[i] = {newFirstLine + out.positions[i].line, out.positions[i].col};
        loadScreen(std::move(out.screen), out.cursor, rows, cols);
    } else {
        // The alternate screen is the program's to redraw; libvterm cuts the primary one too,
        // which the kept copy replaces when the program switches back.
        if (m_savedPrimary) {
            m_savedPrimary->rows = std::move(out.screen);
            m_savedPrimary->cursor = out.cursor;
            m_savedPrimary->resized = true;
        } else {
            m_wrap.reset(rows, cols);
        }
        VTermPos pos{};
        vterm_state_get_cursorpos(vterm_obtain_state(m_vt), &pos);
        parse(sb::vterm::kWholeScrollRegion.data(), sb::vterm::kWholeScrollRegion.size());
        vterm_set_size(m_vt, rows, cols);
        const std::string back = sb::vterm::cursorTo(pos.row, pos.col);
        parse(back.data(), back.size());
        vterm_screen_flush_damage(m_screen);
    }
    m_rows = rows;
    m_cols = cols;
    m_rowCache.assign(static_cast<std::size_t>(m_rows), TerminalLine{});
    m_rowStale.assign(static_cast<std::size_t>(m_rows), 1);
    m_damage.first = 0;
    m_damage.last = m_rows;
}

// libvterm 0.1.4 has no call that sets a cell, but it takes rows from sb_popline as its screen
// grows. So the screen is erased, grown by as many rows as there are to load (each comes in on
// top, the bottom one first), the cursor placed, and the screen shrunk back: libvterm drops the
// erased rows below as they are blank and the cursor is not on them. Nothing is pushed to the
// scrollback meanwhile, and the program's modes and pen stay as they were; its scroll region
// becomes the whole screen (vterm::kWholeScrollRegion in base/VtermGuard.h).
void TerminalScreen::loadScreen(std::vector<TerminalLine> rows, TerminalSpot cursor, int newRows,
                                int newCols)
{
    std::vector<TerminalLine::Break> breaks;
    breaks.reserve(rows.size());
    for (const TerminalLine& row : rows)
        breaks.push_back(row.joins);
    m_loading = std::move(rows);
    m_isLoading = true;
    m_wrap.setPaused(true);
    static const char kEraseScreen[] = "\x1b[2J";
    parse(kEraseScreen, sizeof kEraseScreen - 1);
    parse(sb::vterm::kWholeScrollRegion.data(), sb::vterm::kWholeScrollRegion.size());
    vterm_set_size(m_vt, m_rows + newRows, newCols);
    const std::string place =
        sb::vterm::cursorTo(cursor.line, std::clamp(cursor.col, 0, newCols - 1));
    parse(place.data(), place.size());
    vterm_set_size(m_vt, newRows, newCols);
    vterm_screen_flush_damage(m_screen);
    m_isLoading = false;
    m_loading.clear();
    m_wrap.setPaused(m_altScreen);
    m_wrap.assign(std::move(breaks), newCols, cursor.line, cursor.col);
}

} // namespace sbui
