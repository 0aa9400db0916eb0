#include "TerminalScrollback.h"

#include <algorithm>

namespace sbui {

void TerminalScrollback::setLimit(int lines)
{
    lines = std::max(0, lines);
    if (lines == m_limit) return;
    const std::size_t keep = std::min(m_count, static_cast<std::size_t>(lines));
    std::vector<TerminalLine> kept;
    kept.reserve(keep);
    for (std::size_t i = m_count - keep; i < m_count; ++i)
        kept.push_back(std::move(m_lines[(m_start + i) % m_lines.size()]));
    m_lines = std::move(kept);
    m_start = 0;
    m_count = keep;
    m_limit = lines;
}

void TerminalScrollback::clear()
{
    m_lines.clear();
    m_lines.shrink_to_fit();
    m_start = 0;
    m_count = 0;
}

TerminalLine& TerminalScrollback::push()
{
    if (m_count < static_cast<std::size_t>(m_limit)) {
        if (m_count == m_lines.size()) m_lines.emplace_back();
        TerminalLine& slot = m_lines[(m_start + m_count) % m_lines.size()];
        ++m_count;
        slot.clear();
        return slot;
    }
    TerminalLine& slot = m_lines[m_start];
    m_start = (m_start + 1) % m_lines.size();
    slot.clear();
    return slot;
}

std::vector<TerminalLine> TerminalScrollback::takeAll()
{
    std::rotate(m_lines.begin(), m_lines.begin() + static_cast<std::ptrdiff_t>(m_start),
                m_lines.end());
    m_lines.resize(m_count);
    std::vector<TerminalLine> out = std::move(m_lines);
    m_lines = {};
    m_start = 0;
    m_count = 0;
    return out;
}

void TerminalScrollback::assign(std::vector<TerminalLine> lines)
{
    const std::size_t keep = std::min(lines.size(), static_cast<std::size_t>(m_limit));
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(keep));
    m_lines = std::move(lines);
    m_start = 0;
    m_count = m_lines.size();
}

const TerminalLine& TerminalScrollback::at(int fromOldest) const
{
    return m_lines[(m_start + static_cast<std::size_t>(fromOldest)) % m_lines.size()];
}

} // namespace sbui
