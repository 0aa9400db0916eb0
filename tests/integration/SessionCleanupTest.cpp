// Issue 26, item 6: `rm` and `gc` remove a session's folder, never the changes it still holds
// for review unless told so, and a killed session's folder (overlayfs leaves its work folder at
// mode 000) goes as well as any.
#include "IntegrationSupport.h"
#include "recording/RecordingStore.h"

#include <csignal>
#include <nlohmann/json.hpp>
#include <thread>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class SessionCleanup : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    bool recorded(const std::string& id)
    {
        auto list = nlohmann::json::parse(sb.cli({"sessions", "--json"}).out, nullptr, false);
        for (const auto& s : list)
            if (s.value("id", "") == id) return true;
        return false;
    }
};

} // namespace

TEST_F(SessionCleanup, RmKeepsChangesUntilTheyAreSettledOrForced)
{
    auto r = sb.run("kept", {"bash", "-c", "echo new > made.txt"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto refused = sb.cli({"rm", "kept"});
    EXPECT_EQ(refused.status, 1) << dump(refused);
    EXPECT_TRUE(contains(refused.err, "holds 1 change(s) not applied or discarded")) << refused.err;
    EXPECT_TRUE(fs::exists(sb.sessions() / "kept"));
    EXPECT_TRUE(recorded("kept"));

    ASSERT_EQ(sb.cli({"discard", "kept"}).status, 0);
    auto removed = sb.cli({"rm", "kept"});
    EXPECT_EQ(removed.status, 0) << dump(removed);
    EXPECT_TRUE(contains(removed.out, "its folder and recording")) << removed.out;
    EXPECT_FALSE(fs::exists(sb.sessions() / "kept"));
    EXPECT_FALSE(recorded("kept"));
    EXPECT_EQ(sb.cli({"rm", "kept"}).status, 1) << "nothing left of it";
}

TEST_F(SessionCleanup, AKilledSessionsFolderIsRemovedToo)
{
    auto started = sb.cli({"start", "--workspace", sb.workspace().string(), "--json"});
    ASSERT_EQ(started.status, 0) << dump(started);
    const auto info = nlohmann::json::parse(started.out);
    const std::string id = info["id"];
    ASSERT_EQ(sb.cli({"exec", id, "--", "sh", "-c", "echo x > left.txt"}).status, 0);
    ASSERT_EQ(::kill(info["pid"].get<pid_t>(), SIGKILL), 0);
    for (int i = 0; i < 100 && sb.cli({"ls"}).out.find(id) != std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));

    auto removed = sb.cli({"rm", id, "--force"});
    EXPECT_EQ(removed.status, 0) << dump(removed);
    EXPECT_FALSE(fs::exists(sb.sessions() / id)) << "the mode-000 work folder went too";
}

TEST_F(SessionCleanup, GcRemovesTheFoldersOfSessionsWithoutARecordingOrChanges)
{
    ASSERT_EQ(sb.run("empty", {"true"}).status, 0);
    ASSERT_EQ(sb.run("pending", {"bash", "-c", "echo x > pending.txt"}).status, 0);
    // A database holding no recordings: both sessions' recordings are gone as far as gc knows.
    const fs::path other = sb.workspace().parent_path() / "other.db";
    ASSERT_TRUE(sb::RecordingStore::open(other)) << "an empty database";
    auto dry = sb.cli({"gc", "--db", other.string(), "--dry-run"});
    EXPECT_TRUE(contains(dry.out, "would remove the folder of empty")) << dump(dry);
    EXPECT_TRUE(fs::exists(sb.sessions() / "empty")) << "a dry run removes nothing";

    auto gc = sb.cli({"gc", "--db", other.string()});
    EXPECT_EQ(gc.status, 0) << dump(gc);
    EXPECT_TRUE(contains(gc.out, "removed the folder of empty")) << gc.out;
    EXPECT_TRUE(contains(gc.out, "kept 1 session folder(s) with changes for review")) << gc.out;
    EXPECT_FALSE(fs::exists(sb.sessions() / "empty"));
    EXPECT_TRUE(fs::exists(sb.sessions() / "pending")) << "its change waits for review";
}
