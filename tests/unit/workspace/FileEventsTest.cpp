// Live file events, the pure part: a path's change against the real project, which notes give
// an event, and the batching (one event per path per window, a cap with an "N more" summary,
// longer windows while a flood lasts, renames as one event).
#include "workspace/FileEvents.h"

#include "control/Protocol.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

using nlohmann::json;
using sb::ChangeKind;
using sb::EntryType;
using sb::PathState;

namespace {

constexpr EntryType F = EntryType::File;
constexpr EntryType D = EntryType::Directory;

PathState added(EntryType type = F)
{
    return {type, std::nullopt, true};
}
PathState modified()
{
    return {F, F, true};
}
PathState deleted()
{
    return {std::nullopt, F, false};
}
PathState absent()
{
    return {};
}
PathState untouched()
{
    return {F, F, false};
}

// The layers as a map; paths not in it are absent on both sides.
struct Layers {
    std::map<std::string, PathState> paths;
    sb::FileEventBatcher::Lookup lookup()
    {
        return [this](const std::string& p) {
            auto it = paths.find(p);
            return it == paths.end() ? PathState{} : it->second;
        };
    }
};

std::string line(const json& e)
{
    std::string out = e.value("change", "") + " " + e.value("path", "");
    if (e.contains("from")) out += " from " + e.value("from", "");
    return out;
}

std::vector<std::string> lines(const std::vector<json>& events)
{
    std::vector<std::string> out;
    for (const json& e : events)
        out.push_back(line(e));
    return out;
}

using Lines = std::vector<std::string>;

} // namespace

TEST(FileEvents, NetChangeIsRelativeToTheRealProject)
{
    EXPECT_EQ(sb::netChange(added()), ChangeKind::Added);
    EXPECT_EQ(sb::netChange(modified()), ChangeKind::Modified);
    EXPECT_EQ(sb::netChange(deleted()), ChangeKind::Deleted);
    EXPECT_EQ(sb::netChange(absent()), std::nullopt) << "made and removed again";
    EXPECT_EQ(sb::netChange(untouched()), std::nullopt) << "the real entry shows through";
    EXPECT_EQ(sb::netChange({D, D, true}), std::nullopt) << "a folder copied up to hold changes";
    EXPECT_EQ(sb::netChange({D, F, true}), ChangeKind::Modified) << "a folder replaced a file";
    EXPECT_EQ(sb::netChange({std::nullopt, D, false}), ChangeKind::Deleted);
    EXPECT_EQ(sb::netChange(added(D)), ChangeKind::Added);
}

TEST(FileEvents, AddedAndDeletedAreReportedOnceModifiedEachTime)
{
    using sb::decideFileEvent;
    EXPECT_EQ(decideFileEvent(added(), std::nullopt).report, ChangeKind::Added);
    EXPECT_EQ(decideFileEvent(added(), ChangeKind::Added).report, std::nullopt)
        << "a new file written again stays new";
    EXPECT_EQ(decideFileEvent(modified(), ChangeKind::Modified).report, ChangeKind::Modified);
    EXPECT_EQ(decideFileEvent(deleted(), std::nullopt).report, ChangeKind::Deleted);
    EXPECT_EQ(decideFileEvent(deleted(), ChangeKind::Deleted).report, std::nullopt);
    EXPECT_EQ(decideFileEvent(deleted(), ChangeKind::Modified).report, ChangeKind::Deleted);

    // The agent removes a file it made: deleted, if its addition was reported; then forgotten.
    auto removed = decideFileEvent(absent(), ChangeKind::Added);
    EXPECT_EQ(removed.report, ChangeKind::Deleted);
    EXPECT_EQ(removed.known, std::nullopt);
    EXPECT_EQ(decideFileEvent(absent(), std::nullopt).report, std::nullopt)
        << "made and removed within one window";

    // After a rescan only what differs from the last report counts.
    EXPECT_EQ(decideFileEvent(modified(), ChangeKind::Modified, true).report, std::nullopt);
    EXPECT_EQ(decideFileEvent(added(), std::nullopt, true).report, ChangeKind::Added);
    EXPECT_EQ(decideFileEvent(absent(), ChangeKind::Added, true).report, ChangeKind::Deleted);
}

TEST(FileEvents, CommonFolder)
{
    EXPECT_EQ(sb::commonFolder({"a/b/c", "a/b/d/e"}), "a/b");
    EXPECT_EQ(sb::commonFolder({"a/b"}), "a");
    EXPECT_EQ(sb::commonFolder({"a/x", "b/y"}), "");
    EXPECT_EQ(sb::commonFolder({"ab/c", "a/d"}), "") << "a prefix of a name is no folder";
    EXPECT_EQ(sb::commonFolder({"top"}), "");
    EXPECT_EQ(sb::commonFolder({}), "");
}

TEST(FileEvents, OneEventPerPathPerWindowInTheOrderFirstNoted)
{
    sb::FileEventBatcher batcher({250, 2000, 50, {}});
    Layers layers;
    layers.paths = {{"b.txt", added()}, {"a.txt", modified()}, {"gone", deleted()}};
    EXPECT_EQ(batcher.dueMs(), -1);
    for (int i = 0; i < 100; ++i) {
        batcher.note("b.txt", 1000 + i);
        batcher.note("a.txt", 1000 + i);
    }
    batcher.note("gone", 1100);
    batcher.note("tmp", 1100); // made and removed within the window
    EXPECT_EQ(batcher.dueMs(), 1250) << "the window starts at the first note";
    auto events = batcher.flush(layers.lookup());
    EXPECT_EQ(lines(events), (Lines{"added b.txt", "modified a.txt", "deleted gone"}));
    EXPECT_EQ(events[0].value("kind", ""), "file");
    EXPECT_EQ(events[0].value("type", ""), "file");
    EXPECT_TRUE(batcher.empty());
    EXPECT_EQ(batcher.dueMs(), -1);

    // The next window: the modified file again, the added one is not news.
    batcher.note("a.txt", 2000);
    batcher.note("b.txt", 2000);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"modified a.txt"}));

    // The agent removes the file it made: reported, since its addition was.
    layers.paths.erase("b.txt");
    batcher.note("b.txt", 3000);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"deleted b.txt"}));
}

TEST(FileEvents, AFloodIsCappedWithASummaryAndLongerWindows)
{
    sb::FileEventBatcher batcher({250, 2000, 50, {}});
    Layers layers;
    long long now = 0;
    auto flood = [&](int n, const std::string& folder) {
        for (int i = 0; i < n; ++i) {
            std::string p = folder + "/f" + std::to_string(i);
            layers.paths[p] = added();
            batcher.note(p, now);
        }
    };
    flood(120, "node_modules/pkg");
    layers.paths["README.md"] = modified();
    batcher.note("README.md", now);
    auto events = batcher.flush(layers.lookup());
    ASSERT_EQ(events.size(), 51u);
    EXPECT_EQ(line(events[0]), "added node_modules/pkg/f0");
    const json& more = events.back();
    EXPECT_EQ(more.value("change", ""), "more");
    EXPECT_EQ(more.value("count", 0), 71);
    EXPECT_EQ(more.value("added", 0), 70);
    EXPECT_EQ(more.value("modified", 0), 1);
    EXPECT_EQ(more.value("path", "?"), "") << "README.md is outside node_modules";

    // Still flooding: each window twice as long, up to the maximum.
    const long long expected[] = {500, 1000, 2000, 2000};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(batcher.windowMs(), expected[i]);
        const std::string folder = "node_modules/p" + std::to_string(i);
        flood(60, folder);
        auto next = batcher.flush(layers.lookup());
        ASSERT_EQ(next.size(), 51u);
        EXPECT_EQ(next.back().value("path", ""), folder);
        EXPECT_EQ(next.back().value("count", 0), 10);
    }
    // Quiet again: back to the short window.
    batcher.note("README.md", now);
    EXPECT_EQ(batcher.flush(layers.lookup()).size(), 1u);
    EXPECT_EQ(batcher.windowMs(), 250);
}

TEST(FileEvents, ARenameIsOneEvent)
{
    sb::FileEventBatcher batcher;
    Layers layers;
    // A real file renamed in the overlay: a whiteout at the old name, the file at the new one.
    layers.paths = {{"old.txt", deleted()}, {"new.txt", added()}};
    batcher.noteRename("old.txt", "new.txt", 0);
    auto events = batcher.flush(layers.lookup());
    EXPECT_EQ(lines(events), (Lines{"renamed new.txt from old.txt"}));

    // a → b → c within one window is one rename; b was only on the way.
    layers.paths = {{"a", deleted()}, {"c", added()}};
    batcher.noteRename("a", "b", 0);
    batcher.noteRename("b", "c", 1);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"renamed c from a"}));
}

TEST(FileEvents, AnAtomicSaveIsAModificationOfItsTarget)
{
    // write tmp, rename tmp over the real file, within one window
    sb::FileEventBatcher batcher;
    Layers layers;
    layers.paths = {{"config.json", modified()}};
    batcher.note(".config.json.tmp", 0);
    batcher.noteRename(".config.json.tmp", "config.json", 1);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"modified config.json"}));
}

TEST(FileEvents, ARenamedFolderTakesItsReportedFilesAlong)
{
    sb::FileEventBatcher batcher;
    Layers layers;
    layers.paths = {{"build", added(D)}, {"build/out.o", added()}};
    batcher.note("build", 0);
    batcher.note("build/out.o", 0);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"added build", "added build/out.o"}));

    layers.paths = {{"dist", added(D)}, {"dist/out.o", added()}};
    batcher.noteRename("build", "dist", 10);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"renamed dist from build"}));

    // Known under its new name: its removal is reported.
    layers.paths.erase("dist/out.o");
    batcher.note("dist/out.o", 20);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"deleted dist/out.o"}));
}

TEST(FileEvents, ARescanReportsOnlyWhatChangedSinceTheLastReport)
{
    sb::FileEventBatcher batcher;
    Layers layers;
    layers.paths = {{"a", modified()}, {"b", added()}};
    batcher.note("a", 0);
    batcher.note("b", 0);
    ASSERT_EQ(batcher.flush(layers.lookup()).size(), 2u);

    // Notes were lost meanwhile: b went, c came, a is as reported.
    layers.paths.erase("b");
    layers.paths["c"] = added();
    batcher.noteKnown(100);
    batcher.note("a", 100, true);
    batcher.note("c", 100, true);
    auto events = lines(batcher.flush(layers.lookup()));
    std::set<std::string> got(events.begin(), events.end());
    EXPECT_EQ(got, (std::set<std::string>{"deleted b", "added c"}));
}

TEST(FileEvents, WhiteoutCleanupAfterADeletionIsNoNews)
{
    sb::FileEventBatcher batcher;
    Layers layers;
    layers.paths = {{"src", {std::nullopt, D, false}}, {"src/main.c", deleted()}};
    batcher.note("src/main.c", 0);
    batcher.note("src", 0);
    EXPECT_EQ(lines(batcher.flush(layers.lookup())), (Lines{"deleted src/main.c", "deleted src"}));
    // overlayfs removes the folder's whiteouts after replacing the folder with one: more notes.
    batcher.note("src/main.c", 10);
    EXPECT_TRUE(batcher.flush(layers.lookup()).empty());
}

TEST(FileEvents, ANameThatIsNotUtf8ReachesClientsReplacedNotAsACrash)
{
    // The agent names its files: any bytes but '/' and NUL.
    json event = {{"kind", "file"},
                  {"change", "added"},
                  {"path", "a\xff"
                           "b.txt"}};
    std::string frame = sb::proto::encodeJson(sb::proto::MsgType::Event, event);
    sb::proto::FrameDecoder decoder;
    decoder.feed(frame);
    sb::proto::Message message;
    auto got = decoder.next(message);
    ASSERT_TRUE(got && *got);
    EXPECT_EQ(message.body.value("path", ""), "a\xef\xbf\xbd"
                                              "b.txt");
}
