// WorkspaceWatch on hand-made layers (no overlay mount needed): a project folder and an "upper"
// folder changed the way overlayfs changes it (copies, whiteouts, renames, new folders filled
// at once), watched by the real inotify thread. Waits are bounded and wait for the events.
#include "workspace/WorkspaceWatch.h"

#include "workspace/WorkspaceTestSupport.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using namespace std::chrono_literals;

class Collected {
  public:
    sb::WorkspaceWatch::Sink sink()
    {
        return [this](std::vector<json> events) {
            std::lock_guard lock(m_mutex);
            for (json& e : events)
                m_events.push_back(std::move(e));
            m_changed.notify_all();
        };
    }

    std::vector<json> events()
    {
        std::lock_guard lock(m_mutex);
        return m_events;
    }

    // "change path[ from F]" of every event so far.
    std::set<std::string> lines()
    {
        std::set<std::string> out;
        for (const json& e : events()) {
            std::string l = e.value("change", "") + " " + e.value("path", "");
            if (e.contains("from")) l += " from " + e.value("from", "");
            out.insert(l);
        }
        return out;
    }

    // Until `expected` are all among the events, or 20 s passed.
    bool waitFor(const std::set<std::string>& expected)
    {
        auto deadline = std::chrono::steady_clock::now() + 20s;
        std::unique_lock lock(m_mutex);
        for (;;) {
            lock.unlock();
            auto got = lines();
            lock.lock();
            if (std::includes(got.begin(), got.end(), expected.begin(), expected.end()))
                return true;
            if (m_changed.wait_until(lock, deadline) == std::cv_status::timeout) return false;
        }
    }

  private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<json> m_events;
};

// inotify instances this process holds.
int inotifyInstances()
{
    int n = 0;
    for (const auto& fd : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        if (fs::read_symlink(fd.path(), ec).string() == "anon_inode:inotify") ++n;
    }
    return n;
}

std::string dump(const std::set<std::string>& lines)
{
    std::string out;
    for (const auto& l : lines)
        out += "  " + l + "\n";
    return out;
}

class WorkspaceWatchTest : public sbtest::LayerTest {
  protected:
    Collected got;
    std::unique_ptr<sb::WorkspaceWatch> watch;

    void start(sb::FileBatchOptions options = {}, std::chrono::milliseconds startAfter = {})
    {
        auto w = sb::WorkspaceWatch::start(upper, project, got.sink(), options, startAfter);
        ASSERT_TRUE(w) << w.error().describe();
        watch = std::move(w.value());
    }
};

} // namespace

TEST_F(WorkspaceWatchTest, ReportsChangesAgainstTheRealProject)
{
    real("keep.txt", "k");
    real("edit.txt", "e");
    real("gone.txt", "g");
    real("old.txt", "o");
    // One long window: everything below lands in it, so the rename pairs up.
    start({2000, 2000, 50, {}});
    up("new.txt", "n");
    up("edit.txt", "e2"); // a copy-up, then a write
    whiteout("gone.txt");
    // overlayfs renaming a real file: copy up, rename, whiteout at the old name.
    up("old.txt", "o");
    fs::rename(upper / "old.txt", upper / "renamed.txt");
    whiteout("old.txt");
    const std::set<std::string> expected = {"added new.txt", "modified edit.txt",
                                            "deleted gone.txt", "renamed renamed.txt from old.txt"};
    ASSERT_TRUE(got.waitFor(expected)) << dump(got.lines());
    watch->stop();
    EXPECT_EQ(got.lines(), expected) << "and nothing else (keep.txt was not touched)";
    for (const json& e : got.events())
        EXPECT_EQ(e.value("type", ""), "file") << e.dump();
}

TEST_F(WorkspaceWatchTest, FilesOfAFolderMadeBeforeItWasWatchedAreReported)
{
    start({50, 2000, 50, {}});
    // Made in one go, faster than the watch can add the new folders.
    fs::create_directories(upper / "a/b/c");
    up("a/b/c/deep.txt", "d");
    up("a/top.txt", "t");
    ASSERT_TRUE(got.waitFor(
        {"added a", "added a/b", "added a/b/c", "added a/b/c/deep.txt", "added a/top.txt"}))
        << dump(got.lines());
    // The new folders are watched: a later write in the deepest one is seen too.
    up("a/b/c/later.txt", "l");
    EXPECT_TRUE(got.waitFor({"added a/b/c/later.txt"})) << dump(got.lines());
}

TEST_F(WorkspaceWatchTest, RemovingTheAgentsOwnFileIsReported)
{
    start({50, 2000, 50, {}});
    up("scratch.txt", "s");
    ASSERT_TRUE(got.waitFor({"added scratch.txt"})) << dump(got.lines());
    fs::remove(upper / "scratch.txt");
    EXPECT_TRUE(got.waitFor({"deleted scratch.txt"})) << dump(got.lines());
}

TEST_F(WorkspaceWatchTest, AFloodIsSummarisedNotSentFileByFile)
{
    start({200, 2000, 50, {}});
    fs::create_directories(upper / "node_modules/pkg");
    constexpr int kFiles = 2000;
    for (int i = 0; i < kFiles; ++i)
        up("node_modules/pkg/f" + std::to_string(i) + ".js", "x");
    watch->stop();
    std::size_t individual = 0, summarised = 0;
    const auto events = got.events();
    for (const json& e : events) {
        if (e.value("change", "") == "more")
            summarised += e.value("count", std::size_t{0});
        else
            ++individual;
    }
    // Every file and both folders accounted for, in far fewer events than files.
    EXPECT_EQ(individual + summarised, static_cast<std::size_t>(kFiles + 2));
    EXPECT_LT(events.size(), 400u);
    EXPECT_GT(summarised, 0u);
}

TEST_F(WorkspaceWatchTest, TheLastChangesArriveWhenItStops)
{
    start({60000, 60000, 50, {}}); // a window that would not end during the test
    up("last.txt", "bye");
    watch->stop();
    EXPECT_EQ(got.lines(), (std::set<std::string>{"added last.txt"}));
}

TEST_F(WorkspaceWatchTest, ARenamedFolderKeepsBeingWatchedUnderItsNewName)
{
    start({50, 2000, 50, {}});
    fs::create_directories(upper / "build");
    ASSERT_TRUE(got.waitFor({"added build"})) << dump(got.lines());
    fs::rename(upper / "build", upper / "dist");
    ASSERT_TRUE(got.waitFor({"renamed dist from build"})) << dump(got.lines());
    up("dist/out.o", "o");
    EXPECT_TRUE(got.waitFor({"added dist/out.o"})) << dump(got.lines());
    EXPECT_EQ(got.lines().count("added build/out.o"), 0u);
}

TEST_F(WorkspaceWatchTest, ASessionOverBeforeTheWatchBeginsGetsOneLookAndNoInotifyInstance)
{
    real("edit.txt", "e");
    real("gone.txt", "g");
    const int before = inotifyInstances();
    start({50, 2000, 50, {}}, 60s);
    up("new.txt", "n");
    up("edit.txt", "e2");
    whiteout("gone.txt");
    fs::create_directories(upper / "dir/sub");
    up("dir/sub/deep.txt", "d");
    EXPECT_EQ(inotifyInstances(), before) << "nothing is watched yet";
    watch->stop();
    EXPECT_EQ(got.lines(),
              (std::set<std::string>{"added new.txt", "modified edit.txt", "deleted gone.txt",
                                     "added dir", "added dir/sub", "added dir/sub/deep.txt"}));
}

TEST_F(WorkspaceWatchTest, ALateWatchReportsWhatCameBeforeItAndWatchesFromThen)
{
    const int before = inotifyInstances();
    start({50, 2000, 50, {}}, 100ms);
    up("early.txt", "e");
    ASSERT_TRUE(got.waitFor({"added early.txt"})) << dump(got.lines());
    EXPECT_EQ(inotifyInstances(), before + 1);
    fs::create_directories(upper / "later");
    up("later/x.txt", "x");
    EXPECT_TRUE(got.waitFor({"added later", "added later/x.txt"})) << dump(got.lines());
    watch->stop();
    EXPECT_EQ(got.lines().count("added early.txt"), 1u);
}

TEST_F(WorkspaceWatchTest, BeginNowStartsALateWatchAtOnce)
{
    real("old.txt", "o");
    start({50, 2000, 50, {}}, 60s);
    const int before = inotifyInstances();
    watch->beginNow();
    EXPECT_EQ(inotifyInstances(), before + 1) << "watching when beginNow() returns";
    watch->beginNow(); // again: nothing more
    // Seen as it happens, so a rename stays a rename.
    up("old.txt", "o");
    fs::rename(upper / "old.txt", upper / "renamed.txt");
    whiteout("old.txt");
    EXPECT_TRUE(got.waitFor({"renamed renamed.txt from old.txt"})) << dump(got.lines());
}
