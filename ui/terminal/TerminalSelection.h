// What the mouse selected, in absolute positions (see TerminalScreen), so it stays on its text
// while output scrolls: characters between two gaps from a drag, whole words from a double
// click, whole lines from a triple click; dragging on extends by the same unit.
#pragma once

#include "TerminalScreen.h"

#include <QString>
#include <array>

namespace sbui {

class TerminalSelection {
  public:
    enum class Mode { Character, Word, Line };

    // Begins at `pos`: a gap between cells in Character mode (nothing selected yet), the cell
    // clicked otherwise (its word or line is selected at once).
    void begin(const TerminalScreen& screen, Mode mode, TerminalPos pos);
    // Moves the free end to `pos` (a gap or a cell, as for begin()).
    void extendTo(const TerminalScreen& screen, TerminalPos pos);
    void selectAll(const TerminalScreen& screen);
    void clear();

    Mode mode() const { return m_mode; }
    bool isEmpty() const { return !(m_start < m_end); }
    TerminalPos start() const { return m_start; }
    TerminalPos end() const { return m_end; } // exclusive
    bool contains(std::int64_t line, int col) const
    {
        const TerminalPos p{line, col};
        return !(p < m_start) && p < m_end;
    }
    QString text(const TerminalScreen& screen) const;

    // Anchor, anchor end, start, end: for carrying them through a resize
    // (TerminalScreen::resize); a line selection goes on selecting whole rows.
    std::array<TerminalPos, 4> positions() const { return {m_anchor, m_anchorEnd, m_start, m_end}; }
    void setPositions(const std::array<TerminalPos, 4>& positions);

  private:
    Mode m_mode = Mode::Character;
    TerminalPos m_anchor, m_anchorEnd; // what the first click selected
    TerminalPos m_start, m_end;
};

} // namespace sbui
