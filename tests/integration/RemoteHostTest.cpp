// Remote hosts over SSH (issue 40, docs/remote.md): a real sshd (tests/support/TestSshServer.h)
// whose login gets this test's folders and the built sandbench-cli. The "remote" host is this
// machine, so the test can look at the workspace the remote side applied to.
#include "remote/RemoteHost.h"

#include "IntegrationSupport.h"
#include "TestSshServer.h"
#include "control/ControlClient.h"

#include <csignal>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using sb::proto::MsgType;
using sb::proto::Role;
using sbit::contains;
using sbit::dump;

namespace {

constexpr const char* kHost = "ssh://sbtest"; // an alias of the test's ssh config

class RemoteHosts : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    sbtest::TempDir dir; // keys, configurations, sshd's log, the bin folder of the login
    sbtest::TestSshServer sshd;
    std::string skipReason;

    void SetUp() override { skipReason = sshd.start(dir.path(), sbtest::cliPath(), sb.env()); }

    std::map<std::string, std::string> env() const
    {
        return sb.env({{"SANDBENCH_SSH", "ssh -F " + sshd.sshConfig().string()}});
    }
    sbtest::RunResult remote(std::vector<std::string> args, int timeoutSeconds = 60) const
    {
        args.insert(args.begin(), {sbtest::cliPath(), "--host", kHost});
        return sbtest::run(args, {}, env(), timeoutSeconds);
    }
    std::unique_ptr<sb::remote::RemoteHost> dial()
    {
        auto target = sb::remote::parseSshTarget(kHost);
        sb::remote::DialOptions options;
        options.ssh = {"ssh", "-F", sshd.sshConfig().string()};
        auto host = sb::remote::RemoteHost::dial(*target, options);
        EXPECT_TRUE(host) << host.error().describe() << "\nsshd:\n" << sshd.log();
        return host ? std::move(*host) : nullptr;
    }
    fs::path askingPolicy() const
    {
        return sb.writePolicy(R"({"version": 1, "network": {"mode": "none"},
            "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch asked*"}]},
            "approvals": {"timeout_seconds": 600, "on_timeout": "deny"}})");
    }
    // The next approval request on `client` (subscribed), within a minute; its id, 0 if none.
    static std::uint64_t nextRequest(sb::ControlClient& client)
    {
        for (;;) {
            auto m = client.receive(60000);
            if (!m) return 0;
            if (m->type == MsgType::ApprovalRequest) return m->body.value("id", std::uint64_t{0});
        }
    }
};

#define SKIP_WITHOUT_SSHD()                                                                        \
    do {                                                                                           \
        if (!skipReason.empty()) SB_SKIP(skipReason);                                              \
    } while (0)

const sb::ApprovalAnswer kAllowOnce{true, sb::ApprovalScope::ExactCommand,
                                    sb::ApprovalDuration::Once, "remote-test"};

// A session started on the host, its command's approval answered here over the dial stream,
// its output and changes seen through --host, then stopped and applied there.
TEST_F(RemoteHosts, ARemoteSessionIsRunApprovedReviewedAndAppliedFromHere)
{
    SKIP_WITHOUT_SSHD();
    const std::string token = sbit::uniqueToken();
    auto started = remote({"start", "--workspace", sb.workspace().string(), "--name", "far",
                           "--policy", askingPolicy().string()});
    ASSERT_EQ(started.status, 0) << dump(started);
    EXPECT_EQ(started.out, "far\n");
    auto host = dial();
    ASSERT_TRUE(host);
    EXPECT_EQ(host->welcome().value("version", 0), 1);
    auto listed = host->listSessions();
    ASSERT_TRUE(listed) << listed.error().describe();
    EXPECT_EQ(*listed, std::vector<std::string>{"far"});
    auto client = host->connectSession("far", "remote-test", Role::Viewer);
    ASSERT_TRUE(client) << client.error().describe();
    EXPECT_EQ((*client)->session().id, "far");
    ASSERT_FALSE((*client)->subscribe());

    sbtest::RunResult exec;
    std::thread command([&] {
        exec = remote({"exec", "far", "--", "sh", "-c",
                       "echo before-" + token + "; touch asked.txt; echo after-" + token});
    });
    const std::uint64_t request = nextRequest(**client);
    EXPECT_NE(request, 0u);
    if (request != 0) {
        EXPECT_FALSE((*client)->answer(request, kAllowOnce));
    }
    command.join();
    EXPECT_EQ(exec.status, 0) << dump(exec);
    EXPECT_TRUE(contains(exec.out, "before-" + token + "\nafter-" + token + "\n")) << dump(exec);
    EXPECT_TRUE(contains(exec.err, "waiting for approval")) << dump(exec);

    auto changes = remote({"changes", "far"});
    EXPECT_EQ(changes.status, 0) << dump(changes);
    EXPECT_TRUE(contains(changes.out, "asked.txt")) << dump(changes);
    EXPECT_FALSE(fs::exists(sb.workspace() / "asked.txt")) << "nothing reaches it before apply";
    auto stop = remote({"stop", "far"});
    EXPECT_EQ(stop.status, 0) << dump(stop);
    auto applied = remote({"apply", "far"});
    EXPECT_EQ(applied.status, 0) << dump(applied);
    EXPECT_TRUE(fs::exists(sb.workspace() / "asked.txt")) << dump(applied);
}

// ssh killed while an approval waits: the session goes on, and a new connection is offered the
// same request, which its answer then lets through.
TEST_F(RemoteHosts, ACutConnectionLeavesTheSessionAndItsPendingApproval)
{
    SKIP_WITHOUT_SSHD();
    auto started = remote({"start", "--workspace", sb.workspace().string(), "--name", "cut",
                           "--policy", askingPolicy().string()});
    ASSERT_EQ(started.status, 0) << dump(started);
    auto first = dial();
    ASSERT_TRUE(first);
    auto client = first->connectSession("cut", "remote-test", Role::Viewer);
    ASSERT_TRUE(client) << client.error().describe();
    ASSERT_FALSE((*client)->subscribe());
    auto detached = remote({"exec", "--detach", "cut", "--", "touch", "asked-late.txt"});
    ASSERT_EQ(detached.status, 0) << dump(detached);
    const std::uint64_t request = nextRequest(**client);
    ASSERT_NE(request, 0u);

    ASSERT_EQ(::kill(first->transportPid(), SIGKILL), 0);
    for (;;) { // the channel ends with the connection
        auto m = (*client)->receive(60000);
        ASSERT_FALSE(m && m->type == MsgType::Exit) << "the session must not end";
        if (!m) {
            EXPECT_NE(m.error().sysErrno, ETIMEDOUT) << m.error().describe();
            break;
        }
    }
    client->reset();

    auto second = dial();
    ASSERT_TRUE(second);
    auto listed = second->listSessions();
    ASSERT_TRUE(listed) << listed.error().describe();
    EXPECT_EQ(*listed, std::vector<std::string>{"cut"});
    auto again = second->connectSession("cut", "remote-test", Role::Viewer);
    ASSERT_TRUE(again) << again.error().describe();
    const auto& pending = (*again)->pendingAtWelcome();
    ASSERT_EQ(pending.size(), 1u);
    EXPECT_EQ(pending[0].id, request);
    EXPECT_EQ(pending[0].argv, (std::vector<std::string>{"touch", "asked-late.txt"}));
    EXPECT_FALSE((*again)->answer(request, kAllowOnce));
    // The command ran: its file joins the session's changes (the exec finishes on its own time).
    bool seen = false;
    for (int i = 0; i < 100 && !seen; ++i) {
        auto changes = remote({"changes", "cut"});
        seen = contains(changes.out, "asked-late.txt");
        if (!seen) ::usleep(100000);
    }
    EXPECT_TRUE(seen);
    EXPECT_FALSE((*again)->stop(false));
}

// `run` on the host over a folder there, its output and status here; then, from a terminal
// here, a command that gets a terminal there of this one's size, and a key typed here.
TEST_F(RemoteHosts, RunThereAndATerminalHereGetsOneThere)
{
    SKIP_WITHOUT_SSHD();
    auto run =
        remote({"run", "--workspace", sb.workspace().string(), "--session-id", "ran", "--network",
                "none", "--", "sh", "-c", "echo made > made.txt; echo out; exit 4"});
    EXPECT_EQ(run.status, 4) << dump(run);
    EXPECT_EQ(run.out, "out\n") << dump(run);
    auto changes = remote({"changes", "ran"});
    EXPECT_TRUE(contains(changes.out, "made.txt")) << dump(changes);
    auto started = remote(
        {"start", "--workspace", sb.workspace().string(), "--name", "tty", "--network", "none"});
    ASSERT_EQ(started.status, 0) << dump(started);
    sbit::PtyProgram terminal({sbtest::cliPath(), "--host", kHost, "exec", "--tty", "tty", "--",
                               "sh", "-c", "stty size; read key; echo got-$key"},
                              env(), 33, 101);
    EXPECT_TRUE(terminal.waitFor("33 101", std::chrono::seconds(30))) << terminal.output();
    terminal.send("k\r");
    EXPECT_TRUE(terminal.waitFor("got-k", std::chrono::seconds(30))) << terminal.output();
    EXPECT_EQ(terminal.wait(std::chrono::seconds(30)), 0) << terminal.output();
    EXPECT_FALSE(remote({"stop", "tty"}).status);
}

TEST_F(RemoteHosts, AWrongHostKeyIsRefusedWithAClearMessage)
{
    SKIP_WITHOUT_SSHD();
    fs::copy_file(sshd.wrongKnownHosts(), sshd.knownHosts(), fs::copy_options::overwrite_existing);
    auto r = remote({"ls"});
    EXPECT_EQ(r.status, 255) << dump(r);
    EXPECT_TRUE(contains(r.err, "the host key of ssh://sbtest is unknown or has changed"))
        << dump(r);
    EXPECT_TRUE(contains(r.err, "Sandbench never turns host key checks off")) << dump(r);
    // An unknown key (no entry at all) is refused the same way: batch mode never asks.
    sbtest::writeFile(sshd.knownHosts(), "");
    auto unknown = remote({"ls"});
    EXPECT_EQ(unknown.status, 255) << dump(unknown);
    EXPECT_TRUE(contains(unknown.err, "host key of ssh://sbtest")) << dump(unknown);
}

// Twenty sessions, each with a client of its own, all over one ssh connection at once.
TEST_F(RemoteHosts, TwentySessionsOverOneConnection)
{
    SKIP_WITHOUT_SSHD();
    constexpr int kSessions = 20;
    std::vector<std::string> ids;
    for (int i = 0; i < kSessions; ++i) {
        ids.push_back("many" + std::to_string(i));
        auto r = sb.cli({"start", "--workspace", sb.workspace().string(), "--name", ids.back(),
                         "--network", "none"});
        ASSERT_EQ(r.status, 0) << dump(r);
    }
    auto host = dial();
    ASSERT_TRUE(host);
    auto listed = host->listSessions();
    ASSERT_TRUE(listed) << listed.error().describe();
    EXPECT_EQ(listed->size(), static_cast<std::size_t>(kSessions));
    std::vector<std::unique_ptr<sb::ControlClient>> clients;
    for (const auto& id : ids) {
        auto client = host->connectSession(id, "remote-test", Role::Viewer);
        ASSERT_TRUE(client) << id << ": " << client.error().describe();
        EXPECT_EQ((*client)->session().id, id);
        clients.push_back(std::move(*client));
    }
    // Every client is live at once: each subscribes and hears back, then stops its session.
    for (auto& client : clients)
        ASSERT_FALSE(client->subscribe());
    for (auto& client : clients) {
        bool subscribed = false;
        while (!subscribed) {
            auto m = client->receive(30000);
            ASSERT_TRUE(m) << m.error().describe();
            subscribed = m->type == MsgType::Subscribed;
        }
    }
    for (std::size_t i = 0; i < clients.size(); ++i)
        EXPECT_FALSE(clients[i]->stop(false)) << ids[i];
    for (const auto& id : ids)
        EXPECT_TRUE(sb.waitUntilEnded(id)) << id;
    EXPECT_TRUE(host->connected());
}

} // namespace

// A program's view of the host's files (the window's Changes of a remote session): a command
// run there whose output comes back in memory, with its status and stderr.
TEST_F(RemoteHosts, ACommandsOutputComesBackInMemory)
{
    SKIP_WITHOUT_SSHD();
    auto started = remote({"start", "--workspace", sb.workspace().string(), "--name", "kept",
                           "--policy", askingPolicy().string()});
    ASSERT_EQ(started.status, 0) << dump(started);
    auto made = remote({"exec", "kept", "--", "sh", "-c", "echo hello > made.txt"});
    ASSERT_EQ(made.status, 0) << dump(made);
    auto host = dial();
    ASSERT_TRUE(host);
    auto changes = host->capture({"changes", "--json", "kept"});
    ASSERT_TRUE(changes) << changes.error().describe();
    EXPECT_EQ(changes->status, 0) << changes->err;
    auto listed = nlohmann::json::parse(changes->out, nullptr, false);
    ASSERT_TRUE(listed.is_array()) << changes->out;
    ASSERT_EQ(listed.size(), 1u) << changes->out;
    EXPECT_EQ(listed[0].value("path", ""), "made.txt");
    EXPECT_EQ(listed[0].value("kind", ""), "added");
    auto diff = host->capture({"diff", "kept", "made.txt"});
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(diff->status, 0) << diff->err;
    EXPECT_TRUE(contains(diff->out, "+hello")) << diff->out;
    // A failing command: its status and its stderr, not an error of the connection.
    auto missing = host->capture({"changes", "no-such-session"});
    ASSERT_TRUE(missing) << missing.error().describe();
    EXPECT_NE(missing->status, 0);
    EXPECT_TRUE(contains(missing->err, "no-such-session")) << missing->err;
    EXPECT_TRUE(missing->out.empty()) << missing->out;
    EXPECT_TRUE(host->connected());
    EXPECT_FALSE(remote({"stop", "kept"}).status);
}
