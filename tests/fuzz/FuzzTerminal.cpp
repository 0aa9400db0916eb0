// The filter that takes terminal queries out of replayed history (base/TerminalQueries.h,
// control/HistoryReplay.h): it reads whatever a sandboxed program printed. Checked beyond "no
// crash": it only ever removes bytes (its output is a subsequence of its input), the way the
// input is cut into chunks changes nothing, and output after the end of the history passes
// unchanged.
//
// Input: the first byte picks the chunk size and the history's length (as a share of the
// rest); the rest is the terminal output.
#include "FuzzCheck.h"
#include "base/TerminalQueries.h"
#include "control/HistoryReplay.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

using sbfuzz::check;

std::string filtered(std::string_view text, std::size_t chunk)
{
    sb::TerminalQueryFilter filter;
    std::string out;
    for (std::size_t i = 0; i < text.size(); i += chunk)
        out += filter.feed(text.substr(i, chunk));
    return out + filter.finish();
}

bool isSubsequence(std::string_view part, std::string_view whole)
{
    std::size_t at = 0;
    for (char c : whole)
        if (at < part.size() && part[at] == c) ++at;
    return at == part.size();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    const std::uint8_t shape = data[0];
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

    const std::string whole = filtered(text, text.size() + 1);
    check(isSubsequence(whole, text), "the filter only removes bytes");
    const std::size_t chunk = 1 + (shape & 0x0f);
    check(filtered(text, chunk) == whole, "chunks change nothing");

    sb::HistoryReplay replay;
    const std::size_t history = text.size() * (shape >> 4) / 15;
    replay.subscribed(history);
    std::string shown;
    for (std::size_t i = 0; i < text.size(); i += chunk)
        shown += replay.output(i, text.substr(i, chunk));
    check(isSubsequence(shown, text), "the replay only removes bytes");
    check(std::string_view(shown).ends_with(text.substr(history)), "live output passes unchanged");
    return 0;
}
