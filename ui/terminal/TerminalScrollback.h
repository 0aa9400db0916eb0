// The lines that scrolled off the top of the primary screen, oldest first, up to a limit. A ring:
// when full, the oldest line goes and its storage takes the newest, so a flood allocates nothing.
#pragma once

#include "TerminalLine.h"

#include <cstddef>
#include <vector>

namespace sbui {

class TerminalScrollback {
  public:
    // Keeps the newest `lines` lines. 0 keeps none.
    void setLimit(int lines);
    int limit() const { return m_limit; }
    int size() const { return static_cast<int>(m_count); }
    void clear();

    // Room for a new newest line, cleared; the oldest line goes when the ring is full.
    // Not to be called with a limit of 0.
    TerminalLine& push();
    // 0 is the oldest line, size() - 1 the newest.
    const TerminalLine& at(int fromOldest) const;

    // For reflow: every line, oldest first, leaving the scrollback empty; and the lines that
    // replace them (the oldest go past the limit).
    std::vector<TerminalLine> takeAll();
    void assign(std::vector<TerminalLine> lines);

  private:
    // m_count lines from m_start on. The vector grows until it holds m_limit lines; it has never
    // wrapped until then, so m_start is 0 while it grows.
    std::vector<TerminalLine> m_lines;
    std::size_t m_start = 0, m_count = 0;
    int m_limit = 10000;
};

} // namespace sbui
