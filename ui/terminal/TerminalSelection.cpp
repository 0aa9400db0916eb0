#include "TerminalSelection.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace sbui {
namespace {
constexpr int kEndOfLine = std::numeric_limits<int>::max();
}

void TerminalSelection::begin(const TerminalScreen& screen, Mode mode, TerminalPos pos)
{
    m_mode = mode;
    switch (mode) {
    case Mode::Character:
        m_anchor = m_anchorEnd = pos;
        break;
    case Mode::Word: {
        const auto [first, last] = screen.wordAt(pos.line, pos.col);
        m_anchor = {pos.line, first};
        m_anchorEnd = {pos.line, last + 1};
        break;
    }
    case Mode::Line:
        m_anchor = {pos.line, 0};
        m_anchorEnd = {pos.line, kEndOfLine};
        break;
    }
    m_start = m_anchor;
    m_end = m_anchorEnd;
}

void TerminalSelection::extendTo(const TerminalScreen& screen, TerminalPos pos)
{
    switch (m_mode) {
    case Mode::Character:
        m_start = std::min(m_anchor, pos);
        m_end = std::max(m_anchor, pos);
        break;
    case Mode::Word: {
        const auto [first, last] = screen.wordAt(pos.line, pos.col);
        m_start = std::min(m_anchor, TerminalPos{pos.line, first});
        m_end = std::max(m_anchorEnd, TerminalPos{pos.line, last + 1});
        break;
    }
    case Mode::Line:
        m_start = {std::min(m_anchor.line, pos.line), 0};
        m_end = {std::max(m_anchor.line, pos.line), kEndOfLine};
        break;
    }
}

void TerminalSelection::selectAll(const TerminalScreen& screen)
{
    m_mode = Mode::Line;
    m_anchor = m_start = {screen.firstScreenLine() - screen.scrollbackSize(), 0};
    m_anchorEnd = m_end = {screen.firstScreenLine() + screen.rows() - 1, kEndOfLine};
}

void TerminalSelection::clear()
{
    m_start = m_end = m_anchor = m_anchorEnd = TerminalPos{};
}

void TerminalSelection::setPositions(const std::array<TerminalPos, 4>& positions)
{
    m_anchor = positions[0];
    m_anchorEnd = positions[1];
    m_start = positions[2];
    m_end = positions[3];
    if (m_mode != Mode::Line) return;
    for (TerminalPos* first : {&m_anchor, &m_start})
        first->col = 0;
    // An end at the start of a row selects nothing of that row.
    for (auto [first, end] : {std::pair{&m_anchor, &m_anchorEnd}, std::pair{&m_start, &m_end}}) {
        if (end->col == 0 && end->line > first->line) --end->line;
        end->line = std::max(end->line, first->line);
        end->col = kEndOfLine;
    }
}

QString TerminalSelection::text(const TerminalScreen& screen) const
{
    return isEmpty() ? QString() : screen.text(m_start, m_end);
}

} // namespace sbui
