// Terminal output replayed from a session's history must not ask the terminal showing it
// anything: a terminal answers a query (where is the cursor, what are you, what colour is the
// background) by typing the answer, and an answer to a query the program asked long ago reaches
// the program as keystrokes ("bash: R: command not found"). This filter passes terminal output
// through with the sequences that solicit an answer taken out: ENQ, DECID (ESC Z), device status
// and attribute reports (CSI n, CSI c, CSI x), mode, state and checksum requests (DECRQM,
// DECRQPSR, DECRQTSR, DECRQCRA), window reports (CSI 11…21 t), version and keyboard queries
// (CSI > q, CSI ? u, CSI ? m, CSI ? S), OSC queries (a field that is "?": colours, clipboard)
// and DCS requests (DECRQSS "$q", XTGETTCAP "+q"). Everything else passes byte for byte, also
// across chunk boundaries.
#pragma once

#include <string>
#include <string_view>

namespace sb {

class TerminalQueryFilter {
  public:
    // The bytes of `chunk` to show, queries removed; an unfinished sequence at its end is held
    // until the next chunk completes it.
    std::string feed(std::string_view chunk);
    // What is held back (an unfinished sequence), as it came: the end of the history.
    std::string finish();

  private:
    enum class State { Ground, Escape, Csi, Osc, OscEscape, Dcs, DcsEscape, Passing, PassEscape };
    void complete(std::string& out, bool query);
    bool csiIsQuery() const;
    bool oscIsQuery() const;

    State m_state = State::Ground;
    State m_passingFrom = State::Ground; // Osc or Dcs: the string being passed through
    std::string m_pending;               // the sequence so far, ESC included
};

} // namespace sb
