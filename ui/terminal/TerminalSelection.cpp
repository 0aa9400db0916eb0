#include "TerminalSelection.h"

#include <algorithm>
#include <limits>

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

QString TerminalSelection::text(const TerminalScreen& screen) const
{
    return isEmpty() ? QString() : screen.text(m_start, m_end);
}

} // namespace sbui
