// E2B's metrics of a sandbox over the API (MetricsApi.cpp), with the session's usage given by
// the fixture; and the readers of the cgroup's and /proc's files (SandboxMetrics.h).
#include "E2bApiFixture.h"
#include "e2b/SandboxMetrics.h"

#include <chrono>
#include <ctime>

namespace {

using json = nlohmann::json;

long long nowSeconds()
{
    return static_cast<long long>(std::time(nullptr));
}

TEST_F(E2bApiTest, MetricsGiveTheSessionsUseInE2bsShape)
{
    {
        std::lock_guard lock(m_mutex);
        usage = sb::e2b::SandboxUsage{4'000'000, 300u << 20, 512u << 20, 10u << 20, 4096, 1u << 30};
    }
    const json sbx = create();
    const std::string id = sbx["sandboxID"];
    auto ex = rest("GET", "/v2/sandboxes/" + id + "/metrics");
    ASSERT_EQ(ex.status, 200) << ex.response;
    const json list = json::parse(ex.response);
    ASSERT_EQ(list.size(), 1u);
    const json& m = list[0];
    EXPECT_EQ(m["cpuCount"], 2); // the launcher's
    EXPECT_EQ(m["memUsed"], 300u << 20);
    EXPECT_EQ(m["memTotal"], 512u << 20);
    EXPECT_EQ(m["memCache"], 10u << 20);
    EXPECT_EQ(m["diskUsed"], 4096 + std::string(id).size());
    EXPECT_EQ(m["diskTotal"], 1u << 30);
    EXPECT_GE(m["cpuUsedPct"].get<double>(), 0.0);
    EXPECT_LE(m["cpuUsedPct"].get<double>(), 100.0);
    EXPECT_TRUE(m["timestamp"].is_string());
    EXPECT_LE(std::abs(m["timestampUnix"].get<long long>() - nowSeconds()), 2);

    // A range wholly before the sandbox has none; one around now has the reading.
    const long long now = nowSeconds();
    auto past = rest("GET", "/v2/sandboxes/" + id + "/metrics?start=" + std::to_string(now - 3600) +
                                "&end=" + std::to_string(now - 1800));
    ASSERT_EQ(past.status, 200) << past.response;
    EXPECT_EQ(json::parse(past.response).size(), 0u);
    auto around = rest("GET", "/v2/sandboxes/" + id + "/metrics?start=" + std::to_string(now - 5) +
                                  "&end=" + std::to_string(now + 5));
    ASSERT_EQ(around.status, 200);
    EXPECT_GE(json::parse(around.response).size(), 1u);

    auto latest = rest("GET", "/v2/sandboxes/metrics?sandbox_ids=" + id + ",gone");
    ASSERT_EQ(latest.status, 200) << latest.response;
    const json sandboxes = json::parse(latest.response)["sandboxes"];
    EXPECT_TRUE(sandboxes.contains(id));
    EXPECT_FALSE(sandboxes.contains("gone")); // not running: left out
}

TEST_F(E2bApiTest, MetricsRefuseWhatTheyCannotMeasureOrRead)
{
    const json sbx = create();
    const std::string id = sbx["sandboxID"];
    // No cgroup of the session's own: a 501 saying so, never figures made up.
    auto none = rest("GET", "/v2/sandboxes/" + id + "/metrics");
    EXPECT_EQ(none.status, 501);
    EXPECT_NE(none.response.find("no cgroup"), std::string::npos) << none.response;
    EXPECT_EQ(rest("GET", "/v2/sandboxes/" + id + "/metrics?start=yesterday").status, 400);
    EXPECT_EQ(rest("GET", "/v2/sandboxes/" + id + "/metrics?start=20&end=10").status, 400);
    EXPECT_EQ(rest("GET", "/v2/sandboxes/nope/metrics").status, 404);
    EXPECT_EQ(rest("GET", "/v2/sandboxes/metrics").status, 400);
}

TEST(SandboxMetricsTest, ReadsCgroupAndProcFiles)
{
    const auto values = sb::e2b::parseKeyValues("usage_usec 1234\nuser_usec x\n\nsystem_usec 7");
    EXPECT_EQ(values.at("usage_usec"), 1234u);
    EXPECT_EQ(values.at("system_usec"), 7u);
    EXPECT_FALSE(values.contains("user_usec"));
    // utime 5, stime 6, cutime 7, cstime 8; a name with spaces and parentheses.
    EXPECT_EQ(sb::e2b::procStatTicks("42 (a (b) c) S 1 42 42 0 -1 4194560 10 0 0 0 5 6 7 8 20 0 1"),
              26u);
    EXPECT_FALSE(sb::e2b::procStatTicks("42 (short) S 1 2"));
    EXPECT_FALSE(sb::e2b::procStatTicks("no parenthesis"));
}

} // namespace
