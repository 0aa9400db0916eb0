#include "recording/ScreenModel.h"

#include "base/LazyLibrary.h"
#include "base/VtermLibrary.h"
#include "recording/ScreenCells.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace sb {
namespace {

// libvterm marks the right half of a double-width character with this in chars[0].
constexpr uint32_t kWideContinuation = 0xffffffff;
using Break = ScreenLine::Break;

// libvterm's functions: only called with a model's terminal, which exists once it was loaded.
const VtermLibrary& vt()
{
    static const VtermLibrary* const lib = loadedOrNull(loadVterm);
    return *lib;
}

void appendUtf8(std::string& out, uint32_t c)
{
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else {
        out.push_back(static_cast<char>(0xf0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    }
}

// The attributes a snapshot carries, comparable as a whole.
struct Pen {
    unsigned bold = 0, underline = 0, italic = 0, blink = 0, reverse = 0, strike = 0;
    VTermColor fg{}, bg{};
    bool operator==(const Pen& o) const
    {
        return bold == o.bold && underline == o.underline && italic == o.italic &&
               blink == o.blink && reverse == o.reverse && strike == o.strike &&
               sameColor(fg, o.fg) && sameColor(bg, o.bg);
    }
    static bool sameColor(const VTermColor& a, const VTermColor& b)
    {
        if ((a.type & VTERM_COLOR_DEFAULT_MASK) != (b.type & VTERM_COLOR_DEFAULT_MASK))
            return false;
        if (a.type & VTERM_COLOR_DEFAULT_MASK) return true;
        return vt().vterm_color_is_equal(&a, &b) != 0;
    }
};

Pen defaultPen()
{
    Pen p;
    p.fg.type = VTERM_COLOR_DEFAULT_FG;
    p.bg.type = VTERM_COLOR_DEFAULT_BG;
    return p;
}

Pen penOf(const VTermScreenCell& cell)
{
    Pen p;
    p.bold = cell.attrs.bold;
    p.underline = cell.attrs.underline;
    p.italic = cell.attrs.italic;
    p.blink = cell.attrs.blink;
    p.reverse = cell.attrs.reverse;
    p.strike = cell.attrs.strike;
    p.fg = cell.fg;
    p.bg = cell.bg;
    return p;
}

void appendColor(std::string& sgr, const VTermColor& c, bool foreground)
{
    if (c.type & (foreground ? VTERM_COLOR_DEFAULT_FG : VTERM_COLOR_DEFAULT_BG)) {
        sgr += foreground ? ";39" : ";49";
    } else if (VTERM_COLOR_IS_INDEXED(&c)) {
        sgr += (foreground ? ";38;5;" : ";48;5;") + std::to_string(c.indexed.idx);
    } else {
        sgr += (foreground ? ";38;2;" : ";48;2;") + std::to_string(c.rgb.red) + ";" +
               std::to_string(c.rgb.green) + ";" + std::to_string(c.rgb.blue);
    }
}

// SGR that sets exactly `p` (reset first: simpler than diffing and still compact).
std::string sgrFor(const Pen& p)
{
    std::string sgr = "\x1b[0";
    if (p.bold) sgr += ";1";
    if (p.italic) sgr += ";3";
    if (p.underline == 1)
        sgr += ";4";
    else if (p.underline > 1)
        sgr += ";21";
    if (p.blink) sgr += ";5";
    if (p.reverse) sgr += ";7";
    if (p.strike) sgr += ";9";
    appendColor(sgr, p.fg, true);
    appendColor(sgr, p.bg, false);
    return sgr + "m";
}

} // namespace

Status ScreenModel::available()
{
    auto loaded = loadVterm();
    if (!loaded) return loaded.error();
    return {};
}

ScreenModel::ScreenModel(unsigned rows, unsigned cols)
    : m_rows(rows), m_cols(cols), m_wrap([this](int row, int col) {
          return vt().vterm_screen_is_eol(m_screen, VTermPos{row, col}) != 0;
      })
{
    reset();
}

ScreenModel::~ScreenModel()
{
    if (m_vt != nullptr) vt().vterm_free(m_vt);
}

// libvterm's screen callbacks. Damage comes cell by cell (VTERM_DAMAGE_CELL) and scrolls as
// moves: how the wrap tracker tells the soft wraps apart.
struct ScreenModelCallbacks {
    static ScreenModel& self(void* user) { return *static_cast<ScreenModel*>(user); }

    static int damage(VTermRect rect, void* user)
    {
        self(user).m_wrap.damaged(rect.start_row, rect.end_row, rect.start_col, rect.end_col);
        return 1;
    }
    static int moveRect(VTermRect dest, VTermRect src, void* user)
    {
        self(user).m_wrap.moved(dest.start_row, dest.end_row, src.start_row, src.end_row,
                                dest.start_col, dest.end_col);
        return 1;
    }
    static int moveCursor(VTermPos pos, VTermPos, int, void* user)
    {
        self(user).m_wrap.cursorMoved(pos.row, pos.col);
        return 1;
    }
    static int setTermProp(VTermProp prop, VTermValue* value, void* user)
    {
        ScreenModel& s = self(user);
        if (prop == VTERM_PROP_ALTSCREEN) {
            s.m_altScreen = value->boolean != 0;
            s.m_wrap.setPaused(s.m_altScreen);
        } else if (prop == VTERM_PROP_CURSORVISIBLE) {
            s.m_cursorVisible = value->boolean != 0;
        }
        return 1;
    }
    // A row leaves the top: the model keeps no scrollback, the tracker forgets its break.
    static int pushLine(int, const VTermScreenCell*, void* user)
    {
        ScreenModel& s = self(user);
        if (!s.m_isLoading) s.m_wrap.pushed();
        return 1;
    }
    // The screen grew taller while loadScreen() fills it: the next row from the bottom up goes
    // on top of it.
    static int popLine(int cols, VTermScreenCell* cells, void* user)
    {
        ScreenModel& s = self(user);
        if (!s.m_isLoading || s.m_loading.empty()) return 0;
        const ScreenLine line = std::move(s.m_loading.back());
        s.m_loading.pop_back();
        VTermColor fg, bg;
        vt().vterm_state_get_default_colors(vt().vterm_obtain_state(s.m_vt), &fg, &bg);
        fg.type |= VTERM_COLOR_DEFAULT_FG;
        bg.type |= VTERM_COLOR_DEFAULT_BG;
        for (int col = 0; col < cols; ++col)
            cells[col] = vtermCellFromScreen(line, col, cols, fg, bg);
        return 1;
    }

    static const VTermScreenCallbacks& table()
    {
        static const VTermScreenCallbacks callbacks = [] {
            VTermScreenCallbacks c{};
            c.damage = &damage;
            c.moverect = &moveRect;
            c.movecursor = &moveCursor;
            c.settermprop = &setTermProp;
            c.sb_pushline = &pushLine;
            c.sb_popline = &popLine;
            return c;
        }();
        return callbacks;
    }
};

void ScreenModel::reset()
{
    if (m_vt != nullptr) vt().vterm_free(m_vt);
    m_vt = nullptr;
    m_screen = nullptr;
    m_rows = std::clamp(m_rows, 1u, kMaxSide);
    m_cols = std::clamp(m_cols, kMinColumns, kMaxSide);
    m_altScreen = false;
    m_cursorVisible = true;
    if (available()) return; // no terminal: a blank screen
    m_vt = vt().vterm_new(static_cast<int>(m_rows), static_cast<int>(m_cols));
    m_guard.reset();
    vt().vterm_set_utf8(m_vt, 1);
    m_screen = vt().vterm_obtain_screen(m_vt);
    vt().vterm_screen_set_callbacks(m_screen, &ScreenModelCallbacks::table(), this);
    vt().vterm_screen_enable_altscreen(m_screen, 1);
    // Damage cell by cell: the wrap tracker's input (readers pull cells themselves).
    vt().vterm_screen_set_damage_merge(m_screen, VTERM_DAMAGE_CELL);
    m_wrap.reset(static_cast<int>(m_rows), static_cast<int>(m_cols));
    m_wrap.setPaused(false);
    m_loading.clear();
    m_isLoading = false;
    vt().vterm_screen_reset(m_screen, 1);
}

void ScreenModel::feed(std::string_view bytes)
{
    if (m_vt == nullptr || bytes.empty()) return;
    // Recorded bytes are not trusted to be safe for libvterm (VtermGuard.h).
    m_guard.pass(bytes, m_guarded);
    if (!m_guarded.empty()) vt().vterm_input_write(m_vt, m_guarded.data(), m_guarded.size());
}

void ScreenModel::write(std::string_view bytes)
{
    vt().vterm_input_write(m_vt, bytes.data(), bytes.size());
}

ScreenLine ScreenModel::line(int row) const
{
    ScreenLine out;
    out.cells.resize(m_cols);
    VTermScreenCell cell;
    for (int col = 0; col < static_cast<int>(m_cols); ++col) {
        vt().vterm_screen_get_cell(m_screen, VTermPos{row, col}, &cell);
        screenCellFromVterm(cell, out, col);
    }
    out.columns = static_cast<std::uint16_t>(m_cols);
    out.joins = m_altScreen ? Break::Hard : m_wrap.at(row);
    return out;
}

// The primary screen's lines are laid out again at the new width (the window's terminal does the
// same); the alternate screen is the program's to redraw, and libvterm cuts it.
void ScreenModel::resize(unsigned rows, unsigned cols)
{
    rows = std::clamp(rows, 1u, kMaxSide);
    cols = std::clamp(cols, kMinColumns, kMaxSide);
    if (m_vt == nullptr || m_altScreen) {
        m_rows = rows;
        m_cols = cols;
        if (m_vt == nullptr) return;
        m_wrap.reset(static_cast<int>(rows), static_cast<int>(cols));
        m_wrap.setPaused(true);
        VTermPos pos{};
        vt().vterm_state_get_cursorpos(vt().vterm_obtain_state(m_vt), &pos);
        write(vterm::kWholeScrollRegion);
        vt().vterm_set_size(m_vt, static_cast<int>(rows), static_cast<int>(cols));
        write(vterm::cursorTo(pos.row, pos.col));
        return;
    }
    if (rows == m_rows && cols == m_cols) return;
    ScreenReflowInput in;
    in.lines.reserve(m_rows);
    for (int row = 0; row < static_cast<int>(m_rows); ++row)
        in.lines.push_back(line(row));
    VTermPos pos{};
    vt().vterm_state_get_cursorpos(vt().vterm_obtain_state(m_vt), &pos);
    in.cursor = ScreenSpot{pos.row, m_wrap.wrapPending(pos.row, pos.col) ? static_cast<int>(m_cols)
                                                                         : pos.col};
    in.rows = static_cast<int>(rows);
    in.cols = static_cast<int>(cols);
    ScreenReflowResult out = reflowLines(std::move(in));
    loadScreen(std::move(out.screen), out.cursor, rows, cols);
}

// libvterm 0.1.4 has no call that sets a cell, but it takes rows from sb_popline as its screen
// grows. So the screen is erased, grown by as many rows as there are to load (each comes in on
// top, the bottom one first), the cursor placed, and the screen shrunk back: libvterm drops the
// erased rows below as they are blank and the cursor is not on them (TerminalScreen does the
// same in the window). The scroll region becomes the whole screen, as xterm makes it on a
// resize (vterm::kWholeScrollRegion).
void ScreenModel::loadScreen(std::vector<ScreenLine> rows, ScreenSpot cursor, unsigned newRows,
                             unsigned newCols)
{
    std::vector<Break> breaks;
    breaks.reserve(rows.size());
    for (const ScreenLine& row : rows)
        breaks.push_back(row.joins);
    m_loading = std::move(rows);
    m_isLoading = true;
    m_wrap.setPaused(true);
    write("\x1b[2J");
    write(vterm::kWholeScrollRegion);
    vt().vterm_set_size(m_vt, static_cast<int>(m_rows + newRows), static_cast<int>(newCols));
    const int col = std::clamp(cursor.col, 0, static_cast<int>(newCols) - 1);
    write(vterm::cursorTo(cursor.line, col));
    vt().vterm_set_size(m_vt, static_cast<int>(newRows), static_cast<int>(newCols));
    vt().vterm_screen_flush_damage(m_screen);
    m_isLoading = false;
    m_loading.clear();
    m_rows = newRows;
    m_cols = newCols;
    m_wrap.setPaused(false);
    m_wrap.assign(std::move(breaks), static_cast<int>(newCols), cursor.line, cursor.col);
}

std::vector<std::string> ScreenModel::lines() const
{
    std::vector<std::string> out;
    if (m_vt == nullptr) return std::vector<std::string>(m_rows);
    out.reserve(m_rows);
    VTermScreenCell cell;
    for (int r = 0; r < static_cast<int>(m_rows); ++r) {
        std::string line;
        size_t keep = 0;
        for (int c = 0; c < static_cast<int>(m_cols); ++c) {
            vt().vterm_screen_get_cell(m_screen, VTermPos{r, c}, &cell);
            if (cell.chars[0] == kWideContinuation) continue;
            if (cell.chars[0] == 0) {
                line.push_back(' ');
                continue;
            }
            for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i] != 0; ++i)
                appendUtf8(line, cell.chars[i]);
            keep = line.size();
        }
        line.resize(keep);
        out.push_back(std::move(line));
    }
    return out;
}

std::string ScreenModel::text() const
{
    std::string out;
    for (const std::string& line : lines()) {
        out += line;
        out += '\n';
    }
    return out;
}

ScreenModel::Cursor ScreenModel::cursor() const
{
    VTermPos pos{};
    if (m_vt == nullptr) return Cursor{0, 0, m_cursorVisible};
    vt().vterm_state_get_cursorpos(vt().vterm_obtain_state(m_vt), &pos);
    return Cursor{static_cast<unsigned>(pos.row), static_cast<unsigned>(pos.col), m_cursorVisible};
}

std::string ScreenModel::snapshot() const
{
    std::string out;
    if (m_vt == nullptr) return out;
    if (m_altScreen) out += "\x1b[?1049h";
    out += "\x1b[0m\x1b[H\x1b[2J";
    Pen blank = defaultPen();
    VTermScreenCell cell;
    const int cols = static_cast<int>(m_cols);
    bool runsOn = false; // the row before ended at the margin, its line going on in this one
    for (int r = 0; r < static_cast<int>(m_rows); ++r) {
        // Trailing default blanks need nothing: the screen was cleared.
        int last = cols - 1;
        for (; last >= 0; --last) {
            vt().vterm_screen_get_cell(m_screen, VTermPos{r, last}, &cell);
            if (cell.chars[0] != 0 || !(penOf(cell) == blank)) break;
        }
        // A row the next one continues is written to its margin (but a padding column), so that
        // the next row's first character wraps into it as it did.
        const Break next = m_altScreen ? Break::Hard : m_wrap.at(r + 1);
        const int margin = next == Break::SoftAfterPadding ? cols - 2 : cols - 1;
        const bool continued = runsOn;
        runsOn = next != Break::Hard && last == margin && last >= 0;
        if (last < 0) continue;
        if (!continued) out += "\x1b[" + std::to_string(r + 1) + "H";
        Pen current = blank;
        bool penKnown = false;
        for (int c = 0; c <= last; ++c) {
            vt().vterm_screen_get_cell(m_screen, VTermPos{r, c}, &cell);
            if (cell.chars[0] == kWideContinuation) continue;
            Pen p = penOf(cell);
            if (!penKnown || !(p == current)) {
                out += sgrFor(p);
                current = p;
                penKnown = true;
            }
            if (cell.chars[0] == 0) {
                out.push_back(' ');
                continue;
            }
            for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && cell.chars[i] != 0; ++i)
                appendUtf8(out, cell.chars[i]);
        }
    }
    // The pen the program left set, so later output keeps its colours.
    VTermState* state = vt().vterm_obtain_state(m_vt);
    Pen pen = defaultPen();
    VTermValue v;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_BOLD, &v)) pen.bold = v.boolean ? 1 : 0;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_UNDERLINE, &v))
        pen.underline = static_cast<unsigned>(v.number);
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_ITALIC, &v)) pen.italic = v.boolean ? 1 : 0;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_BLINK, &v)) pen.blink = v.boolean ? 1 : 0;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_REVERSE, &v))
        pen.reverse = v.boolean ? 1 : 0;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_STRIKE, &v)) pen.strike = v.boolean ? 1 : 0;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_FOREGROUND, &v)) pen.fg = v.color;
    if (vt().vterm_state_get_penattr(state, VTERM_ATTR_BACKGROUND, &v)) pen.bg = v.color;
    out += sgrFor(pen);
    Cursor cur = cursor();
    out += vterm::cursorTo(cur.row, cur.col);
    out += cur.visible ? "\x1b[?25h" : "\x1b[?25l";
    return out;
}

void ScreenModel::restore(std::string_view snapshot, unsigned rows, unsigned cols)
{
    m_rows = rows;
    m_cols = cols;
    reset();
    feed(snapshot);
}

} // namespace sb
