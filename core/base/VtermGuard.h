// libvterm 0.1.4 (Debian 12) writes past its array of a control sequence's arguments when a
// sequence has more than 16 (crashing), and loops forever on REP (CSI Ps b, "repeat the last
// character") when the last glyph it printed had width 0: at the start, or after a zero-width or
// combining character printed on its own. One "\e[b" from a sandboxed program would hang the
// window's terminal and the recording's screen model (found by fuzz_recording). The guard sits
// between the bytes and vterm_input_write: everything passes, in order, except a REP that does not
// follow an ASCII glyph, a control sequence of more than 16 arguments, the escapes that fill
// the screen with "E" or set a line's size (after those and a resize libvterm crashes), and device
// control strings (DECRQSS, the one libvterm answers, crashes it), which are dropped. (ncurses,
// the only common user of REP, repeats single-byte characters only, so nothing real is lost.) A
// sequence split across chunks is held until it is complete; one that ESC, CAN or SUB cancels is
// not passed on (it does nothing), while the C0 controls within a sequence, which libvterm executes
// as they come, pass at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sb {

class VtermGuard {
  public:
    // What libvterm may be given of `bytes`, in `out` (replaced).
    void pass(std::string_view bytes, std::string& out);
    // A fresh terminal (the screen was reset to blank).
    void reset() { *this = VtermGuard(); }

  private:
    enum class State : std::uint8_t { Ground, Escape, Csi, String, DroppedString, StringEscape };
    void step(char ch, std::string& out);
    void endSequence(std::string& out, bool keep);
    bool alignmentOrLineSize() const;
    bool interrupted(char ch, std::string& out);

    State m_state = State::Ground;
    bool m_canRepeat = false;     // the last glyph printed was an ASCII character
    bool m_plainCsi = true;       // no private marker nor intermediate byte (REP has none)
    bool m_dropped = false;       // a sequence too long to hold, or with too many arguments
    int m_separators = 0;         // of the control sequence's arguments (";" and ":")
    std::size_t m_csiStart = 0;   // where a control sequence's parameters start in m_sequence
    bool m_stringDropped = false; // the string an ESC ended was not passed on
    std::string m_sequence;       // the escape or control sequence under way, held back
};

// What the screens over libvterm (recording/ScreenModel, the window's TerminalScreen) write to
// it themselves, past the guard.
namespace vterm {

// A resize makes the scroll region the whole screen first, as xterm does: libvterm 0.1.4 keeps a
// region that no longer fits a smaller screen and scrolls in it out of bounds (found by fuzzing:
// "\e[3r", a resize to one row of two columns, text). DECSTBM also homes the cursor, which the
// callers put back (cursorTo).
inline constexpr std::string_view kWholeScrollRegion = "\x1b[r";

// CUP: the cursor to a row and column counted from 0.
inline std::string cursorTo(int row, int col)
{
    return "\x1b[" + std::to_string(row + 1) + ";" + std::to_string(col + 1) + "H";
}

} // namespace vterm
} // namespace sb
