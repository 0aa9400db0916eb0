// Replayed history must ask the terminal showing it nothing: the queries go, everything else
// stays byte for byte, however the stream is cut into chunks.
#include "base/TerminalQueries.h"

#include "control/HistoryReplay.h"

#include <gtest/gtest.h>

namespace {

std::string filtered(std::string_view text, std::size_t chunk = 0)
{
    sb::TerminalQueryFilter f;
    std::string out;
    if (chunk == 0) chunk = text.size();
    for (std::size_t i = 0; i < text.size(); i += chunk)
        out += f.feed(text.substr(i, chunk));
    return out + f.finish();
}

} // namespace

TEST(TerminalQueries, QueriesAreTakenOut)
{
    const std::vector<std::string> queries = {
        "\x05",  // ENQ
        "\x1bZ", // DECID
        "\x1b[6n",
        "\x1b[?6n",
        "\x1b[5n",
        "\x1b[?996n", // status, cursor position
        "\x1b[c",
        "\x1b[0c",
        "\x1b[>c",
        "\x1b[=c", // device attributes
        "\x1b[?2004$p",
        "\x1b[4$p", // DECRQM
        "\x1b[18t",
        "\x1b[14t",
        "\x1b[21t",         // window reports
        "\x1b[>q",          // XTVERSION
        "\x1b[?u",          // kitty keyboard flags
        "\x1b[1;1;1;1;1*y", // DECRQCRA
        "\x1b]11;?\x07",
        "\x1b]10;?\x1b\\",
        "\x1b]4;1;?\x07",
        "\x1b]52;c;?\x07", // OSC
        "\x1bP$qm\x1b\\",
        "\x1bP+q544e\x1b\\", // DECRQSS, XTGETTCAP
    };
    for (const std::string& q : queries) {
        EXPECT_EQ(filtered("a" + q + "b"), "ab") << "query " << testing::PrintToString(q);
        EXPECT_EQ(filtered("a" + q + "b", 1), "ab") << "byte by byte " << testing::PrintToString(q);
    }
}

TEST(TerminalQueries, EverythingElsePassesUnchanged)
{
    const std::string text =
        "plain text\r\n\x1b[1;31mred\x1b[0m \x1b[2J\x1b[H\x1b[?1049h\x1b[?25l\x1b[22;0t"
        "\x1b]0;a title\x07\x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\"
        "\x1b(B\x1b=\x1b>\x1b[2 q\x1bPq#0;2;0;0;0#0~~\x1b\\\x1b[?1h caf\xc3\xa9 \xe2\x9c\x93\x1b[";
    EXPECT_EQ(filtered(text), text);
    for (std::size_t chunk : {1u, 2u, 3u, 7u})
        EXPECT_EQ(filtered(text, chunk), text) << "in chunks of " << chunk;
}

TEST(TerminalQueries, LongStringsPassWithoutBeingHeld)
{
    sb::TerminalQueryFilter f;
    const std::string title = "\x1b]2;" + std::string(10000, 't');
    const std::string out = f.feed(title);
    EXPECT_EQ(out, title) << "a long string is no query: shown as it comes";
    EXPECT_EQ(f.feed("\x07"
                     "after\x1b[6n"),
              "\x07"
              "after");
    // An OSC ended by a new escape instead of ST or BEL.
    EXPECT_EQ(filtered("\x1b]11;?\x1b[6nX"), "X");
}

TEST(TerminalQueries, HistoryIsFilteredUpToTheSubscriptionThenLiveIsNot)
{
    sb::HistoryReplay replay;
    replay.subscribed(10); // bytes 0..9 are history
    EXPECT_EQ(replay.output(0, "ab\x1b[6n"), "ab");
    // The chunk that crosses the boundary: its history part filtered, its live part not.
    EXPECT_EQ(replay.output(6, "cd\x1b["
                               "6n\x1b[6n"),
              "cd\x1b["
              "6n\x1b[6n");
    EXPECT_EQ(replay.output(14, "\x1b[6n"), "\x1b[6n") << "a live query reaches the terminal";

    sb::HistoryReplay fresh;
    fresh.subscribed(4);
    EXPECT_EQ(fresh.output(0, "\x1b[c"), "");
    EXPECT_EQ(fresh.output(3, "x\x1b[c"), "x\x1b[c");
}
