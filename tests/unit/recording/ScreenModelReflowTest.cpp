// The recordings' screen model through resizes: lines the program wrote stay whole, as the
// window's terminal shows them when it plays the output (issue 37, item 9: seeking cut lines).
#include "RecordingTestSupport.h"
#include "recording/ScreenModel.h"

#include <gtest/gtest.h>
#include <string>
#include <thread>

using sbtest::recordInfo;
using sbtest::TempDir;

namespace {

// The screen's text with rows joined, so that a line is found whole wherever it wraps.
std::string joined(const sb::ScreenModel& screen)
{
    std::string out;
    for (const std::string& line : screen.lines())
        out += line;
    return out;
}

const std::string kSentence =
    "(When an approval is left unanswered, it is denied after the policy's timeout; nothing "
    "leaves the sandbox.)";

} // namespace

TEST(ScreenModelReflow, LinesStayWholeThroughNarrowerAndWiderSizes)
{
    if (auto e = sb::ScreenModel::available()) GTEST_SKIP() << e->describe();
    ASSERT_GT(kSentence.size(), 102u);
    sb::ScreenModel screen(24, 141);
    screen.feed("$ demo\r\n" + kSentence + "\r\n$ ");
    // The demo's first 0.3 s: 141 → 102 → 93 columns.
    screen.resize(24, 102);
    screen.resize(24, 93);
    EXPECT_NE(joined(screen).find(kSentence), std::string::npos) << screen.text();
    EXPECT_EQ(screen.lines()[0], "$ demo");
    EXPECT_EQ(screen.lines()[1], kSentence.substr(0, 93));
    // The prompt and the cursor follow the text.
    EXPECT_EQ(screen.lines()[3], "$");
    EXPECT_EQ(screen.cursor().row, 3u);
    EXPECT_EQ(screen.cursor().col, 2u);
    // Wider again: the wrapped line is one row again.
    screen.resize(24, 141);
    EXPECT_EQ(screen.lines()[1], kSentence);
    EXPECT_EQ(screen.lines()[2], "$");
    // Output after the resizes lands where the cursor is.
    screen.feed("ls\r\n");
    EXPECT_EQ(screen.lines()[2], "$ ls");
}

TEST(ScreenModelReflow, ASnapshotKeepsWrappedRowsOneLine)
{
    if (auto e = sb::ScreenModel::available()) GTEST_SKIP() << e->describe();
    sb::ScreenModel written(10, 40);
    written.feed("\x1b[1mbold\x1b[0m " + kSentence + "\r\nnext\r\n");
    sb::ScreenModel restored(10, 40);
    restored.restore(written.snapshot(), 10, 40);
    EXPECT_EQ(restored.lines(), written.lines());
    EXPECT_EQ(restored.snapshot(), written.snapshot());
    written.resize(10, 120);
    restored.resize(10, 120);
    EXPECT_EQ(restored.lines()[0], "bold " + kSentence);
    EXPECT_EQ(restored.lines(), written.lines());
}

TEST(ScreenModelReflow, SeekingAcrossResizesShowsWholeLines)
{
    if (auto e = sb::ScreenModel::available()) GTEST_SKIP() << e->describe();
    TempDir dir;
    const auto db = dir / "rec.db";
    {
        auto w = sb::RecordingWriter::start(db, recordInfo("resized", 24, 80));
        ASSERT_TRUE(w);
        w.value()->resize(24, 141);
        w.value()->terminalOutput("$ demo\r\n" + kSentence + "\r\n");
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        w.value()->resize(24, 102);
        w.value()->resize(24, 93);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        w.value()->terminalOutput("done\r\n");
        ASSERT_FALSE(w.value()->finish(0));
    }
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    auto record = store->session("resized");
    ASSERT_TRUE(record);
    sb::ScreenModel screen(24, 80);
    ASSERT_FALSE(store->screenAt("resized", record->lastEventNs, screen));
    EXPECT_EQ(screen.cols(), 93u);
    EXPECT_NE(joined(screen).find(kSentence), std::string::npos) << screen.text();
    EXPECT_NE(screen.text().find("\ndone\n"), std::string::npos) << screen.text();
}
