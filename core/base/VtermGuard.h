// libvterm 0.1.4 (Debian 12) loops forever on REP (CSI Ps b, "repeat the last character")
// when the last glyph it printed had width 0: at the start, or after a zero-width or combining
// character printed on its own. One "\e[b" from a sandboxed program would hang the window's
// terminal and the recording's screen model (found by fuzz_recording). The guard sits between
// the bytes and vterm_input_write: everything passes, in order, except a REP that does not
// follow an ASCII glyph, which is dropped. (ncurses, the only common user of REP, repeats
// single-byte characters only, so nothing real is lost.) A sequence split across chunks is
// held until it is complete.
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
    enum class State : std::uint8_t { Ground, Escape, Csi, String };
    void endSequence(std::string& out, bool keep);
    bool interrupted(char ch, std::string& out);

    State m_state = State::Ground;
    bool m_canRepeat = false; // the last glyph printed was an ASCII character
    bool m_plainCsi = true;   // no private marker nor intermediate byte (REP has none)
    bool m_overlong = false;  // a sequence too long to hold: dropped whole
    std::string m_sequence;   // the escape or control sequence under way, held back
};

} // namespace sb
