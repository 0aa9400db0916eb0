// `show`'s changed files and limits from a recording that holds live file and limit events: the
// end's net result ("final") when the session ended, the live events folded when it did not.
#include "recording/RecordingTestSupport.h"

namespace {

using json = nlohmann::json;

json file(const std::string& change, const std::string& path, const std::string& from = {})
{
    json e = {{"kind", "file"}, {"change", change}, {"path", path}};
    if (!from.empty()) e["from"] = from;
    return e;
}

void recordLive(sb::RecordingWriter& w)
{
    w.event(sb::EventKind::WorkspaceChange, file("added", "scratch.txt"));
    w.event(sb::EventKind::WorkspaceChange, file("modified", "README.md"));
    w.event(sb::EventKind::WorkspaceChange, file("added", "tmp.c"));
    w.event(sb::EventKind::WorkspaceChange, file("renamed", "main.c", "tmp.c"));
    w.event(sb::EventKind::WorkspaceChange, file("renamed", "new.h", "old.h"));
    w.event(sb::EventKind::WorkspaceChange, file("deleted", "scratch.txt"));
    for (int i = 0; i < 3; ++i)
        w.event(sb::EventKind::LimitHit,
                {{"kind", "limit"}, {"limit", "memory"}, {"action", "throttled"}, {"count", 10}});
    w.event(sb::EventKind::LimitHit, {{"kind", "limit"}, {"limit", "wall"}, {"action", "stopped"}});
}

} // namespace

TEST(RecordingFileChanges, AnEndedSessionListsItsFinalChanges)
{
    sbtest::TempDir dir;
    auto writer = sb::RecordingWriter::start(dir / "rec.db", sbtest::recordInfo("ended"));
    ASSERT_TRUE(writer) << writer.error().describe();
    recordLive(*writer.value());
    writer.value()->event(sb::EventKind::WorkspaceChange,
                          {{"path", "README.md"}, {"kind", "modified"}, {"final", true}});
    writer.value()->event(sb::EventKind::WorkspaceChange,
                          {{"path", "main.c"}, {"kind", "added"}, {"final", true}});
    ASSERT_FALSE(writer.value()->finish(0));
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_TRUE(store);
    auto summary = store->summary("ended");
    ASSERT_TRUE(summary) << summary.error().describe();
    EXPECT_EQ(summary->changedFiles, (std::vector<std::string>{"M README.md", "A main.c"}));
    EXPECT_EQ(summary->limitsHit,
              (std::vector<std::string>{"memory (throttled)", "wall (stopped)"}));
}

TEST(RecordingFileChanges, AnInterruptedSessionFoldsItsLiveEvents)
{
    sbtest::TempDir dir;
    auto writer = sb::RecordingWriter::start(dir / "rec.db", sbtest::recordInfo("cut"));
    ASSERT_TRUE(writer) << writer.error().describe();
    recordLive(*writer.value());
    ASSERT_FALSE(writer.value()->finish(137, true));
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_TRUE(store);
    auto summary = store->summary("cut");
    ASSERT_TRUE(summary) << summary.error().describe();
    EXPECT_EQ(summary->session.state, sb::RecordState::Interrupted);
    // scratch.txt came and went; tmp.c became main.c; old.h, a real file, became new.h.
    EXPECT_EQ(summary->changedFiles,
              (std::vector<std::string>{"M README.md", "A main.c", "A new.h", "D old.h"}));
}

TEST(RecordingFileChanges, ARecordingFromBeforeLiveEventsStillLists)
{
    sbtest::TempDir dir;
    auto writer = sb::RecordingWriter::start(dir / "rec.db", sbtest::recordInfo("old"));
    ASSERT_TRUE(writer) << writer.error().describe();
    writer.value()->event(sb::EventKind::WorkspaceChange, {{"path", "calc.py"}, {"kind", "added"}});
    writer.value()->event(sb::EventKind::LimitHit, {{"limit", "memory"}});
    ASSERT_FALSE(writer.value()->finish(0));
    auto store = sb::RecordingStore::open(dir / "rec.db");
    ASSERT_TRUE(store);
    auto summary = store->summary("old");
    ASSERT_TRUE(summary);
    EXPECT_EQ(summary->changedFiles, (std::vector<std::string>{"A calc.py"}));
    EXPECT_EQ(summary->limitsHit, (std::vector<std::string>{"memory"}));
}
