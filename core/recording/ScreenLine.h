// One line of terminal cells: a character (with any combining marks), colours and attributes per
// cell, 16 bytes a cell. Screen rows and scrollback lines alike, for reflow (ScreenReflow.h) in
// the recordings' screen model and in the window's terminal pane (ui/terminal/ScreenLine.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace sb {

struct ScreenColor {
    enum class Kind : std::uint8_t { Default, Indexed, Rgb };
    Kind kind = Kind::Default;
    std::uint8_t r = 0, g = 0, b = 0; // Indexed: the palette index is in r

    static ScreenColor indexed(int index)
    {
        return {Kind::Indexed, static_cast<std::uint8_t>(index), 0, 0};
    }
    static ScreenColor rgb(int red, int green, int blue)
    {
        return {Kind::Rgb, static_cast<std::uint8_t>(red), static_cast<std::uint8_t>(green),
                static_cast<std::uint8_t>(blue)};
    }
    bool isDefault() const { return kind == Kind::Default; }
    int index() const { return r; }
    bool operator==(const ScreenColor&) const = default;
};

struct ScreenCell {
    // The right half of a double-width character.
    static constexpr char32_t kWideTail = 0xffffffffu;
    enum Attr : std::uint16_t {
        Bold = 1 << 0,
        Italic = 1 << 1,
        Blink = 1 << 2,
        Reverse = 1 << 3,
        Strike = 1 << 4,
        Combining = 1 << 5, // the line holds combining marks for this cell
        UnderlineShift = 6, // two bits: 0 none, 1 single, 2 double, 3 curly
        UnderlineMask = 3 << UnderlineShift,
    };

    char32_t ch = 0; // first code point; 0 for an erased cell
    ScreenColor fg, bg;
    std::uint16_t attrs = 0;
    std::uint8_t width = 1; // 2 for a wide character, 0 for its right half

    bool has(Attr a) const { return (attrs & a) != 0; }
    int underline() const { return (attrs & UnderlineMask) >> UnderlineShift; }
    bool isWideTail() const { return ch == kWideTail; }
};

struct ScreenLine {
    // How the line follows the one before it: after a line break (Hard), or because the text ran
    // past that line's last column (Soft), or because a wide character did not fit into that
    // line's last column, which stays as padding (SoftAfterPadding). Reflow joins soft ones.
    enum class Break : std::uint8_t { Hard, Soft, SoftAfterPadding };

    // Screen lines have one cell per column; scrollback lines keep the width they had and drop
    // trailing plain blanks, so a cell past the end is a plain blank.
    std::vector<ScreenCell> cells;
    // Combining marks by column, in order (a cell has at most five).
    std::vector<std::pair<std::uint16_t, char32_t>> marks;
    // The terminal's width when the line was laid out: a line the next one continues holds text
    // up to this column, trailing blanks included.
    std::uint16_t columns = 0;
    Break joins = Break::Hard;

    ScreenCell cell(int col) const;
    // Empty, a hard line of no width.
    void clear();
};

} // namespace sb
