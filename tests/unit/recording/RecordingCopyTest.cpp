// One session's recording as a database of its own (RecordingCopy.h): what `export --format
// sqlite` writes and the window's Replay of a remote session reads.
#include "recording/RecordingCopy.h"

#include "recording/RecordingTestSupport.h"

using namespace sbtest;
namespace fs = std::filesystem;

namespace {

void record(const fs::path& db, const std::string& id, const std::string& output)
{
    auto writer = sb::RecordingWriter::start(db, recordInfo(id));
    ASSERT_TRUE(writer) << writer.error().describe();
    writer.value()->terminalOutput(output);
    writer.value()->event(sb::EventKind::ExecDecision, {{"id", 7}, {"decision", "deny"}});
    ASSERT_FALSE(writer.value()->finish(3));
}

} // namespace

TEST(RecordingCopy, HoldsThatSessionOnlyAndReadsAsTheRecording)
{
    TempDir dir;
    const fs::path db = dir / "rec.db";
    record(db, "first", "nothing to see\r\n");
    record(db, "second", "the copied output\r\n");
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store) << store.error().describe();
    const fs::path copy = dir / "copy.db";
    ASSERT_FALSE(sb::copySessionRecording(*store, "second", copy));
    // One file, as fetched over a connection: no WAL beside it.
    EXPECT_FALSE(fs::exists(copy.string() + "-wal"));
    EXPECT_EQ(queryInt(copy, "SELECT count(*) FROM sessions"), 1);
    EXPECT_EQ(integrityCheck(copy), "ok");

    auto copied = sb::RecordingStore::open(copy);
    ASSERT_TRUE(copied) << copied.error().describe();
    auto session = copied->session("second");
    ASSERT_TRUE(session) << session.error().describe();
    EXPECT_EQ(session->exitStatus, 3);
    EXPECT_EQ(session->command, recordInfo("second").command);
    EXPECT_EQ(recordedOutput(*copied, "second"), "the copied output\r\n");
    EXPECT_FALSE(copied->session("first"));
    int decisions = 0;
    ASSERT_FALSE(copied->forEachStructuredEvent("second", [&](const sb::RecordedEvent& event) {
        decisions += event.kind == sb::EventKind::ExecDecision;
        return true;
    }));
    EXPECT_EQ(decisions, 1);
    // Its output is searchable there, as in the recordings database.
    auto hits = copied->search("copied output");
    ASSERT_TRUE(hits) << hits.error().describe();
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ(hits->front().session, "second");
    // The source is as it was, and no longer holds the copy attached.
    EXPECT_EQ(queryInt(db, "SELECT count(*) FROM sessions"), 2);
    EXPECT_EQ(recordedOutput(*store, "first"), "nothing to see\r\n");
}

TEST(RecordingCopy, AnUnknownSessionIsRefusedAndLeavesNoFile)
{
    TempDir dir;
    const fs::path db = dir / "rec.db";
    record(db, "only", "x\r\n");
    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store);
    const fs::path copy = dir / "copy.db";
    auto e = sb::copySessionRecording(*store, "missing", copy);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, sb::ErrorCode::NotFound);
    EXPECT_NE(e->message.find("missing"), std::string::npos) << e->message;
    EXPECT_FALSE(fs::exists(copy));
    // Copied again over an older file: replaced.
    ASSERT_FALSE(sb::copySessionRecording(*store, "only", copy));
    ASSERT_FALSE(sb::copySessionRecording(*store, "only", copy));
    EXPECT_EQ(queryInt(copy, "SELECT count(*) FROM sessions"), 1);
}
