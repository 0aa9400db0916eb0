#include "control/HistoryReplay.h"

#include <algorithm>

namespace sb {

void HistoryReplay::subscribed(std::uint64_t nextSeq)
{
    m_filter = TerminalQueryFilter();
    m_liveFrom = nextSeq;
}

std::string HistoryReplay::output(std::uint64_t seq, std::string_view bytes)
{
    if (seq >= m_liveFrom) return std::string(bytes);
    const auto historical =
        static_cast<std::size_t>(std::min<std::uint64_t>(m_liveFrom - seq, bytes.size()));
    std::string out = m_filter.feed(bytes.substr(0, historical));
    if (seq + historical < m_liveFrom) return out; // more history to come
    out += m_filter.finish();
    m_liveFrom = 0;
    out.append(bytes.substr(historical));
    return out;
}

} // namespace sb
