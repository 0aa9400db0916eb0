// Issue 26, item 9: `replay --from` of a session that ran without a terminal rebuilds the screen
// as a terminal showed it (no staircase from bare newlines), and a time past the end is said to
// be, not answered with the last screen.
#include "IntegrationSupport.h"
#include "recording/ScreenModel.h"

using sbit::contains;
using sbit::dump;

TEST(Replay, FromATimeOfASessionWithoutATerminalShowsItsLinesAsATerminalDid)
{
    sbit::Sandbench sb;
    // stdin and stdout are pipes here: the session has no terminal.
    auto r = sb.run("pipes", {"bash", "-c", "echo one; echo two; sleep 0.3; echo three"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, "one\ntwo\nthree\n") << "the command's own output stays as it was";

    auto replay = sb.cli({"replay", "pipes", "--from", "0.2", "--speed", "100"});
    ASSERT_EQ(replay.status, 0) << dump(replay);
    if (auto e = sb::ScreenModel::available()) SB_SKIP(e->describe());
    sb::ScreenModel screen(24, 80);
    screen.feed(replay.out);
    const auto lines = screen.lines();
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines[0], "one");
    EXPECT_EQ(lines[1], "two") << "not a staircase:\n" << screen.text();
    EXPECT_EQ(lines[2], "three");

    auto past = sb.cli({"replay", "pipes", "--from", "1h"});
    EXPECT_EQ(past.status, 1) << dump(past);
    EXPECT_TRUE(contains(past.err, "is past the end of session pipes, which lasted")) << past.err;
}
