#include "TerminalScreen.h"

#include "recording/ScreenCells.h"

#include <algorithm>
#include <limits>
#include <vterm.h>

namespace sbui {
namespace {

bool isPlainBlank(const VTermScreenCell& c)
{
    return (c.chars[0] == 0 || c.chars[0] == ' ') && VTERM_COLOR_IS_DEFAULT_FG(&c.fg) &&
           VTERM_COLOR_IS_DEFAULT_BG(&c.bg) && !c.attrs.bold && !c.attrs.italic &&
           !c.attrs.underline && !c.attrs.blink && !c.attrs.reverse && !c.attrs.strike;
}

bool isWordChar(QChar c)
{
    static const QString extra = QStringLiteral("-./?%&#:_~+@=");
    return c.isLetterOrNumber() || extra.contains(c);
}

// A line as text with the column of each UTF-16 unit, for searching.
struct LineText {
    QString text;
    std::vector<int> column;
};

LineText lineTextWithColumns(const TerminalLine& line)
{
    LineText out;
    const int n = static_cast<int>(line.cells.size());
    for (int col = 0; col < n; ++col) {
        const QString t = cellTextOf(line, col);
        out.text += t;
        out.column.insert(out.column.end(), static_cast<std::size_t>(t.size()), col);
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// libvterm callbacks

struct TerminalScreenCallbacks {
    static TerminalScreen& self(void* user) { return *static_cast<TerminalScreen*>(user); }

    // Damage comes cell by cell (VTERM_DAMAGE_CELL): how the soft wraps are told apart.
    static int damage(VTermRect rect, void* user)
    {
        TerminalScreen& s = self(user);
        s.m_wrap.damaged(rect.start_row, rect.end_row, rect.start_col, rect.end_col);
        s.damageRows(rect.start_row, rect.end_row);
        return 1;
    }
    // A scroll: libvterm moved the cells already, the wraps move with them.
    static int moveRect(VTermRect dest, VTermRect src, void* user)
    {
        TerminalScreen& s = self(user);
        s.m_wrap.moved(dest.start_row, dest.end_row, src.start_row, src.end_row, dest.start_col,
                       dest.end_col);
        s.damageRows(std::min(dest.start_row, src.start_row), std::max(dest.end_row, src.end_row));
        return 1;
    }
    static int moveCursor(VTermPos pos, VTermPos oldpos, int, void* user)
    {
        TerminalScreen& s = self(user);
        s.m_wrap.cursorMoved(pos.row, pos.col);
        s.damageRows(oldpos.row, oldpos.row + 1);
        s.damageRows(pos.row, pos.row + 1);
        return 1;
    }
    static int setTermProp(VTermProp prop, VTermValue* val, void* user)
    {
        TerminalScreen& s = self(user);
        switch (prop) {
        case VTERM_PROP_ALTSCREEN:
            s.m_altScreen = val->boolean != 0;
            s.m_wrap.setPaused(s.m_altScreen);
            s.damageRows(0, s.m_rows);
            break;
        case VTERM_PROP_CURSORVISIBLE:
            s.m_cursorVisible = val->boolean != 0;
            break;
        case VTERM_PROP_CURSORBLINK:
            s.m_cursorBlink = val->boolean != 0;
            break;
        case VTERM_PROP_CURSORSHAPE:
            s.m_cursorShape =
                val->number == VTERM_PROP_CURSORSHAPE_UNDERLINE  ? TerminalCursor::Shape::Underline
                : val->number == VTERM_PROP_CURSORSHAPE_BAR_LEFT ? TerminalCursor::Shape::Bar
                                                                 : TerminalCursor::Shape::Block;
            break;
        case VTERM_PROP_MOUSE:
            s.m_mouseMode = val->number == VTERM_PROP_MOUSE_CLICK ? TerminalScreen::MouseMode::Click
                            : val->number == VTERM_PROP_MOUSE_DRAG ? TerminalScreen::MouseMode::Drag
                            : val->number == VTERM_PROP_MOUSE_MOVE
                                ? TerminalScreen::MouseMode::Move
                                : TerminalScreen::MouseMode::None;
            break;
        case VTERM_PROP_TITLE:
            s.m_title = QString::fromUtf8(val->string);
            if (s.m_onTitle) s.m_onTitle(s.m_title);
            break;
        case VTERM_PROP_REVERSE:
            s.damageRows(0, s.m_rows);
            break;
        default:
            break;
        }
        return 1;
    }
    static int bell(void* user)
    {
        if (self(user).m_onBell) self(user).m_onBell();
        return 1;
    }
    // A line scrolled off the top of the primary screen: into the ring, trailing plain blanks
    // dropped, with its width and how it follows the line before.
    static int pushLine(int cols, const VTermScreenCell* cells, void* user)
    {
        TerminalScreen& s = self(user);
        if (s.m_isLoading) return 1;
        ++s.m_firstScreenLine;
        ++s.m_damage.scrolled;
        const TerminalLine::Break joins = s.m_wrap.pushed();
        if (s.m_scrollback.limit() == 0) return 1;
        int used = cols;
        while (used > 0 && isPlainBlank(cells[used - 1]))
            --used;
        TerminalLine& line = s.m_scrollback.push();
        line.cells.resize(static_cast<std::size_t>(used));
        for (int col = 0; col < used; ++col)
            sb::screenCellFromVterm(cells[col], line, col);
        line.columns = static_cast<std::uint16_t>(cols);
        line.joins = joins;
        return 1;
    }

    // The screen grew taller while loadScreen() fills it: the next row from the bottom up goes
    // on top of it.
    static int popLine(int cols, VTermScreenCell* cells, void* user)
    {
        TerminalScreen& s = self(user);
        if (!s.m_isLoading || s.m_loading.empty()) return 0;
        const TerminalLine line = std::move(s.m_loading.back());
        s.m_loading.pop_back();
        VTermColor defaultFg, defaultBg;
        vterm_state_get_default_colors(vterm_obtain_state(s.m_vt), &defaultFg, &defaultBg);
        defaultFg.type |= VTERM_COLOR_DEFAULT_FG;
        defaultBg.type |= VTERM_COLOR_DEFAULT_BG;
        for (int col = 0; col < cols; ++col)
            cells[col] = sb::vtermCellFromScreen(line, col, cols, defaultFg, defaultBg);
        return 1;
    }

    static void output(const char* bytes, std::size_t length, void* user)
    {
        self(user).m_captured.append(bytes, static_cast<qsizetype>(length));
    }

    static const VTermScreenCallbacks& table()
    {
        static const VTermScreenCallbacks callbacks = [] {
            VTermScreenCallbacks c{};
            c.damage = &damage;
            c.moverect = &moveRect;
            c.movecursor = &moveCursor;
            c.settermprop = &setTermProp;
            c.bell = &bell;
            c.sb_pushline = &pushLine;
            c.sb_popline = &popLine;
            return c;
        }();
        return callbacks;
    }
};

// ---------------------------------------------------------------------------------------------
// TerminalScreen

TerminalScreen::TerminalScreen(int rows, int cols)
    : m_rows(std::max(1, rows)), m_cols(std::max(kMinColumns, cols)),
      m_wrap([this](int row, int col) {
          return vterm_screen_is_eol(m_screen, VTermPos{row, col}) != 0;
      })
{
    create();
}

TerminalScreen::~TerminalScreen()
{
    if (m_vt != nullptr) vterm_free(m_vt);
}

void TerminalScreen::create()
{
    if (m_vt != nullptr) vterm_free(m_vt);
    m_vt = vterm_new(m_rows, m_cols);
    m_guard.reset();
    vterm_set_utf8(m_vt, 1);
    vterm_output_set_callback(m_vt, &TerminalScreenCallbacks::output, this);
    m_screen = vterm_obtain_screen(m_vt);
    vterm_screen_set_callbacks(m_screen, &TerminalScreenCallbacks::table(), this);
    vterm_screen_enable_altscreen(m_screen, 1);
    // Damage per cell, for the wrap tracker; damageRows() merges it into rows for the widget.
    vterm_screen_set_damage_merge(m_screen, VTERM_DAMAGE_CELL);
    m_wrap.reset(m_rows, m_cols);
    m_wrap.setPaused(false);
    vterm_screen_reset(m_screen, 1);
    m_rowCache.assign(static_cast<std::size_t>(m_rows), TerminalLine{});
    m_rowStale.assign(static_cast<std::size_t>(m_rows), 1);
    m_altScreen = false;
    m_cursorVisible = true;
    m_cursorBlink = true;
    m_cursorShape = TerminalCursor::Shape::Block;
    m_mouseMode = MouseMode::None;
    m_captured.clear();
    m_damage = Damage{0, m_rows, 0};
    m_loading.clear();
    m_isLoading = false;
    m_savedPrimary.reset();
    m_heldBack.clear();
}

void TerminalScreen::setReplyHandler(std::function<void(const QByteArray&)> handler)
{
    m_onReply = std::move(handler);
}

void TerminalScreen::setTitleHandler(std::function<void(const QString&)> handler)
{
    m_onTitle = std::move(handler);
}

void TerminalScreen::setBellHandler(std::function<void()> handler)
{
    m_onBell = std::move(handler);
}

void TerminalScreen::write(const char* bytes, std::size_t length)
{
    if (length == 0) return;
    m_captured.clear();
    writeWatchingAltScreen(bytes, length);
    if (!m_captured.isEmpty()) {
        const QByteArray reply = takeCaptured();
        if (m_onReply) m_onReply(reply);
    }
}

void TerminalScreen::reset()
{
    create();
    clearScrollback();
    m_firstScreenLine = 0;
    m_title.clear();
}

void TerminalScreen::parse(const char* bytes, std::size_t length)
{
    if (length == 0) return;
    // What a program prints is not trusted to be safe for libvterm (VtermGuard.h).
    m_guard.pass({bytes, length}, m_guarded);
    if (!m_guarded.empty()) vterm_input_write(m_vt, m_guarded.data(), m_guarded.size());
    std::fill(m_rowStale.begin(), m_rowStale.end(), 1);
}

void TerminalScreen::damageRows(int first, int last)
{
    first = std::max(0, first);
    last = std::min(m_rows, last);
    if (first >= last) return;
    if (m_damage.first >= m_damage.last) {
        m_damage.first = first;
        m_damage.last = last;
    } else {
        m_damage.first = std::min(m_damage.first, first);
        m_damage.last = std::max(m_damage.last, last);
    }
}

TerminalScreen::Damage TerminalScreen::takeDamage()
{
    vterm_screen_flush_damage(m_screen);
    Damage d = m_damage;
    m_damage = Damage{};
    return d;
}

// ---------------------------------------------------------------------------------------------
// Scrollback

void TerminalScreen::setScrollbackLimit(int lines)
{
    m_scrollback.setLimit(lines);
}

void TerminalScreen::clearScrollback()
{
    m_scrollback.clear();
}

void TerminalScreen::refreshRow(int row) const
{
    TerminalLine& line = m_rowCache[static_cast<std::size_t>(row)];
    line.clear();
    line.cells.resize(static_cast<std::size_t>(m_cols));
    VTermScreenCell cell;
    for (int col = 0; col < m_cols; ++col) {
        vterm_screen_get_cell(m_screen, VTermPos{row, col}, &cell);
        sb::screenCellFromVterm(cell, line, col);
    }
    line.columns = static_cast<std::uint16_t>(m_cols);
    line.joins = m_altScreen ? TerminalLine::Break::Hard : m_wrap.at(row);
    m_rowStale[static_cast<std::size_t>(row)] = 0;
}

const TerminalLine& TerminalScreen::line(int index) const
{
    if (index >= 0 && index < m_rows) {
        if (m_rowStale[static_cast<std::size_t>(index)]) refreshRow(index);
        return m_rowCache[static_cast<std::size_t>(index)];
    }
    if (index < 0 && index >= -scrollbackSize()) return m_scrollback.at(scrollbackSize() + index);
    return m_emptyLine;
}

QString TerminalScreen::lineText(int index) const
{
    const TerminalLine& l = line(index);
    QString s = textOf(l, 0, static_cast<int>(l.cells.size()));
    qsizetype end = s.size();
    while (end > 0 && s.at(end - 1) == u' ')
        --end;
    s.truncate(end);
    return s;
}

QString TerminalScreen::text(TerminalPos from, TerminalPos to) const
{
    if (to < from) std::swap(from, to);
    QString out;
    for (std::int64_t abs = from.line; abs <= to.line; ++abs) {
        const int index = static_cast<int>(abs - m_firstScreenLine);
        const TerminalLine& l = line(index);
        const int start = abs == from.line ? from.col : 0;
        const int end = abs == to.line ? to.col : std::numeric_limits<int>::max();
        const TerminalLine::Break next =
            abs < to.line ? line(index + 1).joins : TerminalLine::Break::Hard;
        if (next == TerminalLine::Break::Hard) {
            QString s = textOf(l, start, end);
            qsizetype keep = s.size();
            while (keep > 0 && s.at(keep - 1) == u' ')
                --keep;
            s.truncate(keep);
            out += s;
            if (abs < to.line) out += u'\n';
            continue;
        }
        // Wrapped: the row's text runs to the margin (but a padding column), blanks included.
        const int width = std::max<int>(l.columns, static_cast<int>(l.cells.size())) -
                          (next == TerminalLine::Break::SoftAfterPadding ? 1 : 0);
        out += textOf(l, start, width);
        const int stored = std::max(start, static_cast<int>(l.cells.size()));
        if (width > stored) out += QString(width - stored, u' ');
    }
    return out;
}

std::pair<int, int> TerminalScreen::wordAt(std::int64_t absoluteLine, int col) const
{
    const TerminalLine& l = line(static_cast<int>(absoluteLine - m_firstScreenLine));
    const int width = std::max(m_cols, static_cast<int>(l.cells.size()));
    col = std::clamp(col, 0, width - 1);
    while (col > 0 && l.cell(col).isWideTail())
        --col;
    auto charAt = [&](int c) {
        const QString t = cellTextOf(l, c);
        return t.isEmpty() ? QChar() : t.at(0);
    };
    const QChar here = charAt(col);
    auto same = [&](int c) {
        if (l.cell(c).isWideTail()) return true;
        const QChar ch = charAt(c);
        return isWordChar(here) ? isWordChar(ch) : ch == here;
    };
    int first = col, last = col;
    while (first > 0 && same(first - 1))
        --first;
    while (last + 1 < width && same(last + 1))
        ++last;
    if (l.cell(last).width == 2) ++last;
    return {first, last};
}

std::optional<TerminalMatch> TerminalScreen::find(const QString& needle, TerminalPos from,
                                                  bool backwards, Qt::CaseSensitivity cs) const
{
    if (needle.isEmpty()) return std::nullopt;
    const std::int64_t first = firstAbsoluteLine();
    const std::int64_t end = m_firstScreenLine + m_rows;
    const std::int64_t total = end - first;
    const std::int64_t start = std::clamp(from.line, first, end - 1);
    for (std::int64_t step = 0; step <= total; ++step) {
        std::int64_t abs = backwards ? start - step : start + step;
        abs = first + (((abs - first) % total) + total) % total;
        const LineText lt = lineTextWithColumns(line(static_cast<int>(abs - m_firstScreenLine)));
        // On the starting line, only matches beyond `from` count until the search wraps.
        const bool limited = step == 0;
        qsizetype pos = -1;
        if (backwards) {
            pos = lt.text.lastIndexOf(needle, -1, cs);
            while (pos >= 0 && limited && lt.column[static_cast<std::size_t>(pos)] >= from.col)
                pos = pos == 0 ? -1 : lt.text.lastIndexOf(needle, pos - 1, cs);
        } else {
            pos = lt.text.indexOf(needle, 0, cs);
            while (pos >= 0 && limited && lt.column[static_cast<std::size_t>(pos)] <= from.col)
                pos = lt.text.indexOf(needle, pos + 1, cs);
        }
        if (pos < 0) continue;
        const int startCol = lt.column[static_cast<std::size_t>(pos)];
        const int lastCol = lt.column[static_cast<std::size_t>(pos + needle.size() - 1)];
        const TerminalLine& l = line(static_cast<int>(abs - m_firstScreenLine));
        const int endCol = lastCol + std::max<int>(1, l.cell(lastCol).width);
        return TerminalMatch{abs, startCol, endCol - startCol};
    }
    return std::nullopt;
}

// The cursor as a cell of the screen; just after the last column when a wrap is pending.
TerminalSpot TerminalScreen::cursorSpot() const
{
    VTermPos pos{};
    vterm_state_get_cursorpos(vterm_obtain_state(m_vt), &pos);
    return {pos.row, m_wrap.wrapPending(pos.row, pos.col) ? m_cols : pos.col};
}

TerminalCursor TerminalScreen::cursor() const
{
    VTermPos pos{};
    vterm_state_get_cursorpos(vterm_obtain_state(m_vt), &pos);
    TerminalCursor c;
    c.row = pos.row;
    c.col = pos.col;
    c.visible = m_cursorVisible;
    c.blink = m_cursorBlink;
    c.shape = m_cursorShape;
    return c;
}

} // namespace sbui
