// Limit events: which cgroup counters are watched, how their files read, when a rise becomes an
// event (a kill at once, repeated pressure at most every 2 s, with its count), the limits the
// supervisor sees itself, and the watch thread over counter files in a plain folder.
#include "supervision/LimitWatch.h"

#include "TestSupport.h"
#include "supervision/SessionWatch.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>

using nlohmann::json;
using sb::CgroupSupport;

namespace {

sb::Limits limits(std::uint64_t memoryMb = 512, std::uint32_t pids = 64)
{
    sb::Limits l;
    l.memoryMb = memoryMb;
    l.pids = pids;
    l.wallSeconds = 60;
    l.cpuSeconds = 5;
    l.fileSizeMb = 1;
    return l;
}

std::vector<std::string> names(const std::vector<sb::LimitCounter>& counters)
{
    std::vector<std::string> out;
    for (const auto& c : counters)
        out.push_back(std::to_string(c.folder) + " " + c.file + " " + c.key + " -> " + c.limit +
                      " " + c.action);
    return out;
}

} // namespace

TEST(LimitWatch, CountersPerCgroupKind)
{
    EXPECT_EQ(names(sb::limitCounters(CgroupSupport::Kind::V2, limits())),
              (std::vector<std::string>{"0 memory.events max -> memory throttled",
                                        "0 memory.events oom_kill -> memory killed",
                                        "0 pids.events max -> pids refused"}));
    EXPECT_EQ(names(sb::limitCounters(CgroupSupport::Kind::V1, limits())),
              (std::vector<std::string>{"0 memory.failcnt  -> memory throttled",
                                        "0 memory.oom_control oom_kill -> memory killed",
                                        "1 pids.events max -> pids refused"}));
    EXPECT_TRUE(sb::limitCounters(CgroupSupport::Kind::None, limits()).empty());
    EXPECT_EQ(sb::limitCounters(CgroupSupport::Kind::V2, limits(0, 64)).size(), 1u)
        << "no memory limit, no memory counters";
}

TEST(LimitWatch, ParsesCounterFiles)
{
    auto events = sb::parseCounters("low 0\nhigh 0\nmax 17\noom 2\noom_kill 1\noom_group_kill 0\n");
    EXPECT_EQ(events["max"], 17u);
    EXPECT_EQ(events["oom_kill"], 1u);
    auto oomControl = sb::parseCounters("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
    EXPECT_EQ(oomControl["oom_kill"], 3u);
    auto failcnt = sb::parseCounters("12345\n");
    EXPECT_EQ(failcnt[""], 12345u);
    EXPECT_TRUE(sb::parseCounters("garbage here\n\n").empty());
}

TEST(LimitWatch, AKillIsReportedAtOncePressureAtMostEveryTwoSeconds)
{
    sb::LimitReporter reporter(sb::limitCounters(CgroupSupport::Kind::V2, limits()), limits());
    using V = std::vector<std::optional<std::uint64_t>>;
    // A session's cgroups are made for it: counters start at zero, so what rose before the
    // first reading counts (a watch that starts late misses nothing).
    auto first = reporter.update(V{5, 0, 0}, 0);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].value("action", ""), "throttled");
    EXPECT_EQ(first[0].value("count", 0), 5);
    EXPECT_TRUE(reporter.update(V{5, 0, 0}, 100).empty());

    // A kill goes out at once; more pressure within two seconds is held back, and summed.
    auto kill = reporter.update(V{9, 1, 0}, 200);
    ASSERT_EQ(kill.size(), 1u);
    EXPECT_EQ(kill[0].value("action", ""), "killed");
    EXPECT_EQ(kill[0].value("count", 0), 1);
    EXPECT_EQ(kill[0].value("counter", ""), "memory.events oom_kill");
    EXPECT_EQ(kill[0].value("value", 0), 512);
    EXPECT_EQ(kill[0].value("unit", ""), "MiB");
    EXPECT_TRUE(reporter.update(V{20, 1, 0}, 700).empty());
    auto again = reporter.update(V{30, 2, 0}, 900);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].value("action", ""), "killed");
    auto later = reporter.update(V{30, 2, 0}, 2200);
    ASSERT_EQ(later.size(), 1u);
    EXPECT_EQ(later[0].value("action", ""), "throttled");
    EXPECT_EQ(later[0].value("count", 0), 25);

    // The end reports what is held back.
    EXPECT_TRUE(reporter.update(V{30, 2, 7}, 2300).size() == 1u) << "first refusal: at once";
    EXPECT_TRUE(reporter.update(V{30, 2, 9}, 2400).empty());
    auto final = reporter.update(V{30, 2, 9}, 2500, true);
    ASSERT_EQ(final.size(), 1u);
    EXPECT_EQ(final[0].value("limit", ""), "pids");
    EXPECT_EQ(final[0].value("action", ""), "refused");
    EXPECT_EQ(final[0].value("count", 0), 2);
    EXPECT_EQ(final[0].value("unit", ""), "processes");
}

TEST(LimitWatch, WallClockAndSignalsOfTheCommand)
{
    json wall = sb::wallLimitEvent(limits());
    EXPECT_EQ(wall, (json{{"kind", "limit"},
                          {"limit", "wall"},
                          {"action", "stopped"},
                          {"value", 60},
                          {"unit", "s"}}));
    auto cpu = sb::exitLimitEvent(limits(), 128 + SIGXCPU);
    ASSERT_TRUE(cpu);
    EXPECT_EQ(cpu->value("limit", ""), "cpu_time");
    EXPECT_EQ(cpu->value("value", 0), 5);
    EXPECT_EQ(cpu->value("signal", ""), "SIGXCPU");
    auto fsize = sb::exitLimitEvent(limits(), 128 + SIGXFSZ);
    ASSERT_TRUE(fsize);
    EXPECT_EQ(fsize->value("limit", ""), "file_size");
    EXPECT_EQ(fsize->value("action", ""), "killed");
    EXPECT_FALSE(sb::exitLimitEvent(limits(), 0));
    EXPECT_FALSE(sb::exitLimitEvent(limits(), 128 + SIGKILL));
    sb::Limits noCpu = limits();
    noCpu.cpuSeconds = 0;
    EXPECT_FALSE(sb::exitLimitEvent(noCpu, 128 + SIGXCPU)) << "someone else sent it";
}

TEST(LimitWatch, WatchesCounterFilesAndReportsARise)
{
    sbtest::TempDir cgroup;
    sbtest::writeFile(cgroup / "memory.events", "max 0\noom 0\noom_kill 0\n");
    sbtest::writeFile(cgroup / "pids.events", "max 0\n");
    std::mutex mutex;
    std::condition_variable arrived;
    std::vector<json> events;
    auto watch = sb::LimitWatch::start(CgroupSupport::Kind::V2, {cgroup.path().string()}, limits(),
                                       [&](std::vector<json> batch) {
                                           std::lock_guard lock(mutex);
                                           for (auto& e : batch)
                                               events.push_back(std::move(e));
                                           arrived.notify_all();
                                       });
    ASSERT_TRUE(watch) << watch.error().describe();
    ASSERT_TRUE(*watch);
    sbtest::writeFile(cgroup / "memory.events", "max 3\noom 1\noom_kill 1\n");
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(arrived.wait_for(lock, std::chrono::seconds(10), [&] {
            return std::any_of(events.begin(), events.end(),
                               [](const json& e) { return e.value("action", "") == "killed"; });
        })) << "no event for the rise";
    }
    sbtest::writeFile(cgroup / "pids.events", "max 4\n");
    (*watch)->stop(); // reads once more
    std::lock_guard lock(mutex);
    auto refused = std::find_if(events.begin(), events.end(),
                                [](const json& e) { return e.value("action", "") == "refused"; });
    ASSERT_NE(refused, events.end());
    EXPECT_EQ(refused->value("count", 0), 4);
}

TEST(LimitWatch, NothingToWatchWithoutACgroup)
{
    auto watch = sb::LimitWatch::start(CgroupSupport::Kind::None, {}, limits(), {});
    ASSERT_TRUE(watch);
    EXPECT_FALSE(*watch);
}
