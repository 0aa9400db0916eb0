#include "Backoff.h"

#include <algorithm>

namespace sbui {

int Backoff::next()
{
    long long delay = m_first;
    for (int i = 0; i < m_failures && delay < m_max; ++i)
        delay *= 2;
    ++m_failures;
    return static_cast<int>(std::min<long long>(delay, m_max));
}

} // namespace sbui
