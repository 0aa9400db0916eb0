// SessionWatch for a session over before its watches were started (SessionLoop::whenLive): at its
// end it still reports what they would have seen, from one look at the layer and one reading of
// the cgroup counters, without a thread.
#include "supervision/SessionWatch.h"

#include "TestSupport.h"

#include <algorithm>
#include <csignal>

using nlohmann::json;

namespace {

TEST(SessionWatch, ASessionOverBeforeItsWatchesStartedIsStillToldWhatTheyWouldHaveSeen)
{
    sbtest::TempDir cgroup, upper, project;
    sbtest::writeFile(cgroup / "memory.events", "max 2\noom 1\noom_kill 1\n");
    sbtest::writeFile(cgroup / "pids.events", "max 3\n");
    sbtest::writeFile(upper / "made.txt", "new\n");
    sb::Limits limits;
    limits.memoryMb = 512;
    limits.pids = 64;
    limits.fileSizeMb = 1;
    std::vector<json> events;
    sb::SessionWatch watch({upper.path(),
                            project.path(),
                            sb::RunLaterRules(),
                            {},
                            sb::CgroupSupport::Kind::V2,
                            {cgroup.path().string()},
                            limits},
                           [&](json e) { events.push_back(std::move(e)); }, {});
    EXPECT_TRUE(events.empty()) << "nothing is watched before start()";
    watch.sessionEnded(false, 128 + SIGXFSZ);

    auto find = [&](auto match) { return std::find_if(events.begin(), events.end(), match); };
    auto file = find([](const json& e) { return e.value("kind", "") == "file"; });
    ASSERT_NE(file, events.end()) << json(events).dump();
    EXPECT_EQ(file->value("change", ""), "added");
    EXPECT_EQ(file->value("path", ""), "made.txt");
    auto count = [&](const std::string& limit, const std::string& action) {
        auto e = find([&](const json& x) {
            return x.value("limit", "") == limit && x.value("action", "") == action;
        });
        return e == events.end() ? -1 : e->value("count", 0);
    };
    EXPECT_EQ(count("memory", "killed"), 1);
    EXPECT_EQ(count("memory", "throttled"), 2);
    EXPECT_EQ(count("pids", "refused"), 3);
    EXPECT_EQ(events.back().value("limit", ""), "file_size") << "the command's own signal last";
    const std::size_t reported = events.size();
    watch.start(); // too late: nothing more happens
    EXPECT_EQ(events.size(), reported);
}

} // namespace
