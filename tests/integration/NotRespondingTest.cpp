// Issue 33: a stopped supervisor (Ctrl-Z, kill -STOP) still holds its session; `ls` lists it as
// not responding instead of saying that no session runs.
#include "IntegrationSupport.h"

#include <csignal>
#include <nlohmann/json.hpp>

using sbit::contains;
using sbit::dump;

namespace {

// Continues and then ends the supervisor whatever an assertion left.
struct Supervisor {
    pid_t pid;
    ~Supervisor()
    {
        ::kill(pid, SIGCONT);
        ::kill(pid, SIGTERM);
    }
};

} // namespace

TEST(NotResponding, AStoppedSupervisorIsListedAsNotResponding)
{
    sbit::Sandbench sb;
    const sbtest::RunResult started =
        sb.cli({"start", "--workspace", sb.workspace().string(), "--json"});
    ASSERT_EQ(started.status, 0) << dump(started);
    const auto info = nlohmann::json::parse(started.out);
    const std::string id = info["id"];
    Supervisor supervisor{info["pid"].get<pid_t>()};

    ASSERT_EQ(::kill(supervisor.pid, SIGSTOP), 0);
    const sbtest::RunResult stopped = sb.cli({"ls"});
    EXPECT_EQ(stopped.status, 0) << dump(stopped);
    EXPECT_TRUE(contains(stopped.out, id)) << dump(stopped);
    EXPECT_TRUE(contains(stopped.out, "(not responding)")) << dump(stopped);
    EXPECT_TRUE(contains(stopped.err, "session " + id + " is not responding")) << dump(stopped);
    EXPECT_FALSE(contains(stopped.err, "no running sessions")) << dump(stopped);
    const sbtest::RunResult json = sb.cli({"ls", "--json"});
    const auto listed = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_TRUE(listed.is_array() && listed.size() == 1) << dump(json);
    EXPECT_EQ(listed[0]["id"], id);
    EXPECT_EQ(listed[0]["responding"], false);

    ASSERT_EQ(::kill(supervisor.pid, SIGCONT), 0);
    const sbtest::RunResult resumed = sb.cli({"ls"});
    EXPECT_EQ(resumed.status, 0) << dump(resumed);
    EXPECT_TRUE(contains(resumed.out, id)) << dump(resumed);
    EXPECT_FALSE(contains(resumed.out, "not responding")) << dump(resumed);
    EXPECT_EQ(nlohmann::json::parse(sb.cli({"ls", "--json"}).out)[0]["responding"], true);

    EXPECT_EQ(sb.cli({"stop", id}).status, 0);
    EXPECT_TRUE(sb.waitUntilEnded(id));
}
