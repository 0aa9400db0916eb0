// Programmable sessions end to end: `start` leaves a sandbox up without a command, `exec` runs
// processes in it (or in a running `run` session) under the same filter, approvals and limits,
// `files` reads and writes it as the sandbox sees it. Real sessions, real clients.
#include "IntegrationSupport.h"

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class Programmable : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    std::string session;

    void startSession(const std::vector<std::string>& options = {})
    {
        std::vector<std::string> args = {"start", "--workspace", sb.workspace().string(), "--name",
                                         "prog"};
        args.insert(args.end(), options.begin(), options.end());
        auto r = sb.cli(args);
        ASSERT_EQ(r.status, 0) << dump(r);
        ASSERT_EQ(r.out, "prog\n") << dump(r);
        session = "prog";
    }
    void TearDown() override
    {
        if (!session.empty()) (void)sb.cli({"kill", session});
    }
    sbtest::RunResult exec(const std::vector<std::string>& command, const std::string& input = {},
                           std::vector<std::string> options = {})
    {
        std::vector<std::string> args = {"exec", session};
        args.insert(args.end(), options.begin(), options.end());
        args.push_back("--");
        args.insert(args.end(), command.begin(), command.end());
        sbit::RunSpec spec;
        spec.input = input;
        return sb.cli(args, spec);
    }
    // Polls `pending --json` until a request shows up; its id, or 0.
    std::uint64_t waitForRequest()
    {
        for (int i = 0; i < 200; ++i) {
            auto p = sb.cli({"pending", session, "--json"});
            auto list = nlohmann::json::parse(p.out, nullptr, false);
            if (list.is_array() && !list.empty()) return list[0].value("id", std::uint64_t{0});
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return 0;
    }
};

} // namespace

TEST_F(Programmable, StartExecAndStop)
{
    startSession();
    auto ls = sb.cli({"ls", "--json"});
    EXPECT_TRUE(contains(ls.out, "\"prog\"")) << dump(ls);
    auto hi = exec({"sh", "-c", "echo out; echo err >&2; exit 3"});
    EXPECT_EQ(hi.status, 3) << dump(hi);
    EXPECT_EQ(hi.out, "out\n");
    EXPECT_TRUE(contains(hi.err, "err\n")) << hi.err;
    // Inside the sandbox: its own hostname, the project as the working folder.
    auto where = exec({"sh", "-c", "hostname; pwd"});
    EXPECT_EQ(where.out, "sandbench\n" + sb.workspace().string() + "\n") << dump(where);
    auto missing = exec({"no-such-program"});
    EXPECT_EQ(missing.status, 127) << dump(missing);
    auto stopped = sb.cli({"stop", session});
    EXPECT_EQ(stopped.status, 0) << dump(stopped);
    for (int i = 0; i < 100 && contains(sb.cli({"ls"}).out, "prog"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(contains(sb.cli({"ls"}).out, "prog"));
    auto show = sb.cli({"show", session});
    EXPECT_EQ(show.status, 0) << dump(show);
    session.clear();
}

TEST_F(Programmable, StdinStreamsInAndATimeoutKills)
{
    startSession();
    auto cat = exec({"cat"}, "line one\nline two\n");
    EXPECT_EQ(cat.status, 0) << dump(cat);
    EXPECT_EQ(cat.out, "line one\nline two\n");
    auto slow = exec({"sleep", "30"}, {}, {"--timeout", "1"});
    EXPECT_EQ(slow.status, 124) << dump(slow);
}

TEST_F(Programmable, FiftyExecsAtOnce)
{
    startSession();
    std::vector<std::thread> threads;
    std::atomic<int> right{0};
    std::vector<std::string> failures(50);
    for (int i = 0; i < 50; ++i)
        threads.emplace_back([&, i] {
            auto r = exec({"sh", "-c", "echo n$0", std::to_string(i)});
            if (r.status == 0 && r.out == "n" + std::to_string(i) + "\n")
                ++right;
            else
                failures[i] = dump(r);
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(right.load(), 50);
    for (const auto& f : failures)
        if (!f.empty()) ADD_FAILURE() << f;
}

TEST_F(Programmable, DeniedAndAskedCommands)
{
    const fs::path policy = sb.writePolicy(R"({"version": 1, "network": {"mode": "none"},
        "commands": {"default": "allow", "rules": [
            {"action": "deny", "match": "rm -rf *", "comment": "no wiping"},
            {"action": "ask", "match": "touch asked*"}]},
        "approvals": {"timeout_seconds": 60, "on_timeout": "deny"}})");
    startSession({"--policy", policy.string()});
    auto denied = exec({"rm", "-rf", "x"});
    EXPECT_EQ(denied.status, 126) << dump(denied);
    EXPECT_TRUE(contains(denied.err, "denied by the session's policy: ")) << denied.err;
    // An ask waits for a second client's answer.
    sbtest::RunResult asked;
    std::thread waiter([&] { asked = exec({"touch", "asked.txt"}); });
    const std::uint64_t request = waitForRequest();
    ASSERT_NE(request, 0u);
    auto approve = sb.cli({"approve", session, std::to_string(request), "allow"});
    EXPECT_EQ(approve.status, 0) << dump(approve);
    waiter.join();
    EXPECT_EQ(asked.status, 0) << dump(asked);
    EXPECT_TRUE(contains(asked.err, "waiting for approval")) << asked.err;
    auto changes = sb.cli({"changes", session});
    EXPECT_TRUE(contains(changes.out, "asked.txt")) << dump(changes);
}

TEST_F(Programmable, ExecIntoARunningRunSession)
{
    std::thread main([&] { (void)sb.run("live", {"sleep", "4"}); });
    session = "live";
    sbtest::RunResult r;
    for (int i = 0; i < 100; ++i) {
        r = exec({"sh", "-c", "echo from-exec; ps -eo comm | grep -c sleep"});
        if (r.status == 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "from-exec\n1\n")) << dump(r); // it sees the session's sleep
    main.join();
    session.clear();
}

TEST_F(Programmable, FilesAreTheSandboxsViewAndShowInChanges)
{
    sbtest::writeFile(sb.outside() / "secret.txt", "OUTSIDE\n");
    fs::create_symlink(sb.outside() / "secret.txt", sb.workspace() / "link");
    startSession();
    sbit::RunSpec spec;
    spec.input = "from the api\n";
    auto put = sb.cli({"files", "put", session, "-", "notes/new.txt"}, spec);
    ASSERT_EQ(put.status, 0) << dump(put);
    auto get = sb.cli({"files", "get", session, "notes/new.txt"});
    EXPECT_EQ(get.out, "from the api\n") << dump(get);
    auto inside = exec({"cat", "notes/new.txt"});
    EXPECT_EQ(inside.out, "from the api\n");
    auto changes = sb.cli({"changes", session});
    EXPECT_TRUE(contains(changes.out, "A notes/new.txt")) << dump(changes);
    // A link to the host's files leads nowhere inside: the sandbox has no such path.
    auto escaped = sb.cli({"files", "get", session, "link"});
    EXPECT_NE(escaped.status, 0) << dump(escaped);
    EXPECT_FALSE(contains(escaped.out, "OUTSIDE"));
    // A FIFO is refused, not waited on.
    ASSERT_EQ(exec({"mkfifo", "pipe"}).status, 0);
    auto fifo = sb.cli({"files", "get", session, "pipe"});
    EXPECT_NE(fifo.status, 0) << dump(fifo);
    EXPECT_TRUE(contains(fifo.err, "not a regular file")) << fifo.err;
    auto list = sb.cli({"files", "ls", session, "notes"});
    EXPECT_EQ(list.out, "f new.txt (13 bytes)\n") << dump(list);
    EXPECT_EQ(sb.cli({"files", "mv", session, "notes/new.txt", "notes/old.txt"}).status, 0);
    EXPECT_EQ(sb.cli({"files", "rm", session, "notes", "-r"}).status, 0);
    EXPECT_FALSE(contains(sb.cli({"changes", session}).out, "notes/"));
}

TEST_F(Programmable, ADetachedProcessLivesUntilTheSessionStops)
{
    startSession();
    auto started = exec({"sleep", "300"}, {}, {"--detach"});
    ASSERT_EQ(started.status, 0) << dump(started);
    const std::string pid = started.out.substr(0, started.out.find('\n'));
    ASSERT_FALSE(pid.empty());
    EXPECT_EQ(exec({"kill", "-0", pid}).status, 0) << "the detached process is gone";
    ASSERT_EQ(sb.cli({"stop", session}).status, 0);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        gone = true;
        for (const auto& e : fs::directory_iterator("/proc")) {
            const std::string name = e.path().filename();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::string cmd = sbtest::readFile(e.path() / "cmdline");
            if (cmd == std::string("sleep\0300\0", 10)) gone = false;
        }
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(gone) << "sleep 300 outlived its session";
    session.clear();
}

TEST_F(Programmable, AnIdleSessionEndsAfterThePolicysIdleTimeout)
{
    const fs::path policy = sb.writePolicy(
        R"({"version": 1, "network": {"mode": "none"}, "limits": {"idle_seconds": 1}})");
    startSession({"--policy", policy.string()});
    // Busy while a process runs: it outlives the second.
    auto busy = exec({"sh", "-c", "sleep 2; echo done"});
    EXPECT_EQ(busy.out, "done\n") << dump(busy);
    // Watched without connecting: a client keeps a session from being idle.
    const fs::path socket = fs::path(sb.env()["XDG_RUNTIME_DIR"]) / "sandbench" / "prog.sock";
    bool ended = false;
    for (int i = 0; i < 60 && !ended; ++i) {
        ended = !fs::exists(socket);
        if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(ended) << "an idle session kept running";
    session.clear();
}

// --workspace-at: the sandbox sees the workspace (and its home) at another path, as the OpenAI
// Agents client's /workspace and the E2B API's /home/user; the home folder's secrets a workspace
// holds stay masked where the sandbox sees them.
TEST_F(Programmable, TheWorkspaceSeenAtAnotherPath)
{
    startSession({"--workspace-at", "/workspace"});
    auto where = exec({"sh", "-c", "pwd; echo \"$HOME\"; echo made > /workspace/out.txt"});
    ASSERT_EQ(where.status, 0) << dump(where);
    EXPECT_EQ(where.out, "/workspace\n/workspace\n") << dump(where);
    auto files = sb.cli({"files", "get", session, "/workspace/out.txt"});
    EXPECT_EQ(files.out, "made\n") << dump(files);
    auto changes = sb.cli({"changes", session});
    EXPECT_TRUE(contains(changes.out, "A out.txt")) << changes.out;

    // The home folder as the workspace: its secrets are masked at /workspace/.ssh.
    sbtest::writeFile(sb.home() / ".ssh/id_ed25519", "PRIVATE-KEY-BYTES\n");
    auto home = sb.cli({"start", "--workspace", sb.home().string(), "--workspace-at", "/workspace",
                        "--name", "home"});
    ASSERT_EQ(home.status, 0) << dump(home);
    auto secret = sb.cli({"exec", "home", "--", "sh", "-c",
                          "cat /workspace/.ssh/id_ed25519 2>/dev/null || echo masked"});
    (void)sb.cli({"kill", "home"});
    EXPECT_EQ(secret.out, "masked\n") << dump(secret);

    for (const char* refused : {"/usr/w", "relative", "/", "/proc/x"}) {
        auto r =
            sb.cli({"start", "--workspace", sb.workspace().string(), "--workspace-at", refused});
        EXPECT_EQ(r.status, 2) << refused << "\n" << dump(r);
        EXPECT_TRUE(contains(r.err, "the workspace's path inside the sandbox")) << r.err;
    }
}
