#include "recording/ScreenCells.h"

namespace sb {
namespace {

// libvterm marks the right half of a double-width character with this in chars[0].
constexpr uint32_t kWideContinuation = 0xffffffff;

ScreenColor colorOf(const VTermColor& c, bool foreground)
{
    if (foreground ? VTERM_COLOR_IS_DEFAULT_FG(&c) : VTERM_COLOR_IS_DEFAULT_BG(&c)) return {};
    if (VTERM_COLOR_IS_INDEXED(&c)) return ScreenColor::indexed(c.indexed.idx);
    return ScreenColor::rgb(c.rgb.red, c.rgb.green, c.rgb.blue);
}

VTermColor vtermColorOf(const ScreenColor& c, const VTermColor& defaultColor)
{
    VTermColor out = defaultColor;
    if (c.kind == ScreenColor::Kind::Indexed)
        vterm_color_indexed(&out, c.r);
    else if (c.kind == ScreenColor::Kind::Rgb)
        vterm_color_rgb(&out, c.r, c.g, c.b);
    return out;
}

} // namespace

void screenCellFromVterm(const VTermScreenCell& in, ScreenLine& line, int col)
{
    ScreenCell& out = line.cells[static_cast<std::size_t>(col)];
    out.fg = colorOf(in.fg, true);
    out.bg = colorOf(in.bg, false);
    std::uint16_t attrs = 0;
    if (in.attrs.bold) attrs |= ScreenCell::Bold;
    if (in.attrs.italic) attrs |= ScreenCell::Italic;
    if (in.attrs.blink) attrs |= ScreenCell::Blink;
    if (in.attrs.reverse) attrs |= ScreenCell::Reverse;
    if (in.attrs.strike) attrs |= ScreenCell::Strike;
    attrs |= static_cast<std::uint16_t>(in.attrs.underline << ScreenCell::UnderlineShift);
    if (in.chars[0] == kWideContinuation) {
        out.ch = ScreenCell::kWideTail;
        out.width = 0;
    } else {
        out.ch = in.chars[0];
        out.width = static_cast<std::uint8_t>(in.width == 2 ? 2 : 1);
        for (int i = 1; i < VTERM_MAX_CHARS_PER_CELL && in.chars[0] != 0 && in.chars[i] != 0; ++i) {
            line.marks.emplace_back(static_cast<std::uint16_t>(col), in.chars[i]);
            attrs |= ScreenCell::Combining;
        }
    }
    out.attrs = attrs;
}

VTermScreenCell vtermCellFromScreen(const ScreenLine& line, int col, int cols,
                                    const VTermColor& defaultFg, const VTermColor& defaultBg)
{
    VTermScreenCell out{};
    ScreenCell in = line.cell(col);
    // A wide character cut by a narrower screen, or a tail without its head: blank.
    if ((in.width == 2 && col == cols - 1) || (in.isWideTail() && col == 0)) in = ScreenCell{};
    out.width = static_cast<char>(in.width == 2 ? 2 : 1);
    out.chars[0] = in.isWideTail() ? kWideContinuation : static_cast<uint32_t>(in.ch);
    if (in.has(ScreenCell::Combining)) {
        int i = 1;
        for (const auto& [markCol, mark] : line.marks)
            if (markCol == col && i < VTERM_MAX_CHARS_PER_CELL) out.chars[i++] = mark;
    }
    out.attrs.bold = in.has(ScreenCell::Bold);
    out.attrs.italic = in.has(ScreenCell::Italic);
    out.attrs.blink = in.has(ScreenCell::Blink);
    out.attrs.reverse = in.has(ScreenCell::Reverse);
    out.attrs.strike = in.has(ScreenCell::Strike);
    out.attrs.underline = static_cast<unsigned>(in.underline()) & 3u;
    out.fg = vtermColorOf(in.fg, defaultFg);
    out.bg = vtermColorOf(in.bg, defaultBg);
    return out;
}

} // namespace sb
