// Terminal output as a client shows it after `subscribe`: the history the supervisor replays
// (every byte before the `subscribed` message's next_seq) with the queries in it taken out
// (base/TerminalQueries.h), so that the terminal showing it answers none of them into the
// program's input; live output as it comes. `attach` and the window use it alike.
#pragma once

#include "base/TerminalQueries.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace sb {

class HistoryReplay {
  public:
    // The `subscribed` message's next_seq: output before it is history.
    void subscribed(std::uint64_t nextSeq);
    // An `output` chunk (seq, bytes) as it should be shown.
    std::string output(std::uint64_t seq, std::string_view bytes);

  private:
    std::uint64_t m_liveFrom = 0;
    TerminalQueryFilter m_filter;
};

} // namespace sb
