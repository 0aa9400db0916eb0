// sandbench-cli ls / pending / approve / stop / kill / attach against a real control server.
#include "base/Paths.h"
#include "base/Session.h"
#include "control/ControlHarness.h"

#include <chrono>
#include <future>

using namespace sbtest;
using nlohmann::json;

namespace {

RunResult cli(const std::vector<std::string>& args, const std::string& input = {})
{
    std::vector<std::string> argv{cliPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, input, {}, 30);
}

void waitUntil(ServerHarness& h, std::function<bool(sb::ControlServer&)> ready)
{
    for (int i = 0; i < 500 && !h.onLoop(ready); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

} // namespace

TEST(ControlCli, LsListsLiveSessionsAndSweepsStaleSockets)
{
    IsolatedXdg xdg;
    ServerHarness h;
    h.backend.pending[7] = commandRequest(7, {"git", "push", "origin"});
    { // a socket file whose supervisor died
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s",
                      (sb::runtimeDirectory() / "dead.sock").c_str());
        ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        ::close(fd);
    }
    auto r = cli({"ls", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    json list = json::parse(r.out);
    ASSERT_EQ(list.size(), 1u) << r.out;
    EXPECT_EQ(list[0]["id"], "sess-1");
    EXPECT_EQ(list[0]["command"], json({"agent", "--flag"}));
    EXPECT_EQ(list[0]["workspace"], "/home/u/project");
    EXPECT_EQ(list[0]["pending_approvals"], 1);
    EXPECT_FALSE(std::filesystem::exists(sb::runtimeDirectory() / "dead.sock"));

    auto table = cli({"ls"});
    ASSERT_EQ(table.status, 0);
    EXPECT_NE(table.out.find("sess-1"), std::string::npos);
    EXPECT_NE(table.out.find("agent --flag"), std::string::npos);
}

TEST(ControlCli, PendingAndApprove)
{
    IsolatedXdg xdg;
    ServerHarness h;
    h.backend.pending[7] = commandRequest(7, {"git", "push", "origin"});

    auto pending = cli({"pending", "sess-1", "--json"});
    ASSERT_EQ(pending.status, 0) << pending.err;
    json list = json::parse(pending.out);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["id"], 7);
    EXPECT_EQ(list[0]["argv"], json({"git", "push", "origin"}));
    auto human = cli({"pending"});
    EXPECT_NE(human.out.find("#7  command  git push origin"), std::string::npos) << human.out;

    auto wrongScope = cli({"approve", "sess-1", "7", "allow", "--scope", "host"});
    EXPECT_EQ(wrongScope.status, 2);
    EXPECT_NE(wrongScope.err.find("does not fit a command request"), std::string::npos);

    auto ok = cli({"approve", "sess-1", "7", "allow", "--scope", "subcommand", "--for", "session"});
    ASSERT_EQ(ok.status, 0) << ok.err;
    {
        std::lock_guard lock(h.backend.mu);
        ASSERT_EQ(h.backend.answers.size(), 1u);
        const auto& a = h.backend.answers[0].second;
        EXPECT_TRUE(a.allow);
        EXPECT_EQ(a.scope, sb::ApprovalScope::Subcommand);
        EXPECT_EQ(a.duration, sb::ApprovalDuration::Session);
        EXPECT_EQ(a.answeredBy, "sandbench-cli");
    }
    auto again = cli({"approve", "sess-1", "7", "deny"});
    EXPECT_EQ(again.status, 1);
    EXPECT_NE(again.err.find("#7 is not pending"), std::string::npos) << again.err;
}

TEST(ControlCli, StopKillAndUnknownSessions)
{
    IsolatedXdg xdg;
    ServerHarness h;
    EXPECT_EQ(cli({"stop", "sess-1"}).status, 0);
    EXPECT_EQ(cli({"kill", "sess-1"}).status, 0);
    {
        std::lock_guard lock(h.backend.mu);
        EXPECT_EQ(h.backend.stops, (std::vector<bool>{false, true}));
    }
    auto unknown = cli({"stop", "nope"});
    EXPECT_EQ(unknown.status, 1);
    EXPECT_NE(unknown.err.find("unknown session nope"), std::string::npos) << unknown.err;

    sbtest::TempDir project;
    auto ended = sb::createSession(project.path(), {"true"}, "old-1");
    ASSERT_TRUE(ended);
    auto gone = cli({"attach", "old-1"});
    EXPECT_EQ(gone.status, 1);
    EXPECT_NE(gone.err.find("has no live supervisor"), std::string::npos) << gone.err;
}

TEST(ControlCli, AttachMirrorsTheTerminalAndAnnouncesApprovals)
{
    IsolatedXdg xdg;
    ServerHarness h;
    std::string screen("\x1b[2J\x1b[Hhello\r\n\0bin", 17);
    h.onLoop([&](sb::ControlServer& s) { s.publishOutput(screen); });
    auto attached = std::async(std::launch::async, [] { return cli({"attach", "sess-1"}); });
    waitUntil(h, [](sb::ControlServer& s) { return s.subscriberCount() == 1; });
    auto request = commandRequest(3, {"git", "push", "origin"});
    h.onLoop([&](sb::ControlServer& s) {
        s.publishApprovalRequest(request);
        s.publishOutput("more");
        s.publishExit(0);
    });
    RunResult r = attached.get();
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, screen + "more") << "stdout is the terminal, byte for byte";
    EXPECT_NE(r.err.find("approval #3 pending: git push origin (sandbench-cli approve sess-1 3 "
                         "allow)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("ended (status 0)"), std::string::npos);
}

TEST(ControlCli, InteractiveAttachForwardsKeysUntilCtrlBracket)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto r = cli({"attach", "--interactive", "sess-1"}, "make test\r\x1dnot this");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("detached"), std::string::npos);
    waitUntil(h, [&](sb::ControlServer&) {
        std::lock_guard lock(h.backend.mu);
        return !h.backend.input.empty();
    });
    std::lock_guard lock(h.backend.mu);
    EXPECT_EQ(h.backend.input, "make test\r") << "nothing after Ctrl-] is sent";
}
