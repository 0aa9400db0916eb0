// Exec supervision end to end: real sessions started by the real sandbench-cli, whose every exec
// is decided by the policy's command rules, and real control clients (pending, approve, attach,
// ls, stop, kill, the terminal prompt) answering and watching them. Every wait is bounded and
// waits for a condition (a request showing in `pending --json`, a line in a client's output, a
// process leaving /proc), never for a fixed time.
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"
#include "sandbox/ResourceLimits.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;
using sbit::quote;
using sbit::withOptions;

namespace {

using sbit::contains;
using sbit::dump;

using Clock = std::chrono::steady_clock;

constexpr auto kSessionTimeout = 90s;   // a whole session, on a loaded machine
constexpr auto kConditionTimeout = 45s; // a request to appear, a client to connect, …
constexpr auto kPollInterval = 50ms;

std::size_t count(const std::string& haystack, const std::string& needle)
{
    std::size_t n = 0;
    for (auto at = haystack.find(needle); at != std::string::npos;
         at = haystack.find(needle, at + needle.size()))
        ++n;
    return n;
}

// A program started in the background (its own process group), stdin from /dev/null, stdout and
// stderr into files, so a test can look at what it printed so far while it still runs.
class Background {
  public:
    Background(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const fs::path& logDir, const std::string& name)
        : m_outFile(logDir / (name + ".out")), m_errFile(logDir / (name + ".err"))
    {
        // Everything the child needs is built before fork: it only calls async-signal-safe
        // functions afterwards.
        std::map<std::string, std::string> merged;
        for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
            std::string entry(*e);
            auto eq = entry.find('=');
            if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
        for (const auto& [k, v] : env)
            merged[k] = v;
        std::vector<std::string> envStrings;
        for (const auto& [k, v] : merged)
            envStrings.push_back(k + "=" + v);
        std::vector<char*> envp, args;
        for (auto& s : envStrings)
            envp.push_back(s.data());
        envp.push_back(nullptr);
        std::vector<std::string> argvCopy = argv;
        for (auto& a : argvCopy)
            args.push_back(a.data());
        args.push_back(nullptr);
        int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        int out = ::open(m_outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int err = ::open(m_errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (in < 0 || out < 0 || err < 0)
            throw std::runtime_error(std::string("background logs: ") + std::strerror(errno));
        m_pid = ::fork();
        if (m_pid == 0) {
            ::setpgid(0, 0);
            ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
            ::execve(args[0], args.data(), envp.data());
            ::_exit(127);
        }
        ::close(in), ::close(out), ::close(err);
        if (m_pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        ::setpgid(m_pid, m_pid); // also from here, so the group exists before we signal it
    }

    ~Background()
    {
        if (m_pid > 0 && m_status < 0) {
            ::kill(-m_pid, SIGKILL);
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
    }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    pid_t pid() const { return m_pid; }
    std::string out() const { return sbtest::readFile(m_outFile); }
    std::string err() const { return sbtest::readFile(m_errFile); }
    bool exited() { return poll(); }
    int status() const { return m_status; }

    // The exit status (code, or 128+signal), or -1 if it is still running after `timeout`.
    int wait(std::chrono::milliseconds timeout)
    {
        auto deadline = Clock::now() + timeout;
        while (!poll()) {
            if (Clock::now() > deadline) return -1;
            std::this_thread::sleep_for(10ms);
        }
        return m_status;
    }

    // Waits until `text` shows in stderr (or stdout); false after the timeout or once the
    // program exited without printing it.
    bool waitForErr(const std::string& text, std::chrono::milliseconds timeout = kConditionTimeout)
    {
        return waitFor([&] { return contains(err(), text); }, timeout);
    }
    bool waitForOut(const std::string& text, std::chrono::milliseconds timeout = kConditionTimeout)
    {
        return waitFor([&] { return contains(out(), text); }, timeout);
    }

    void signal(int sig) const { ::kill(m_pid, sig); }

    std::string dump() const
    {
        return "status " + std::to_string(m_status) + "\nstdout:\n" + out() + "\nstderr:\n" + err();
    }

  private:
    template <class Pred> bool waitFor(Pred done, std::chrono::milliseconds timeout)
    {
        auto deadline = Clock::now() + timeout;
        for (;;) {
            if (done()) return true;
            if (poll()) return done(); // it may have printed it just before exiting
            if (Clock::now() > deadline) return false;
            std::this_thread::sleep_for(kPollInterval);
        }
    }

    bool poll()
    {
        if (m_status >= 0) return true;
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG) != m_pid) return false;
        m_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
    }

    fs::path m_outFile, m_errFile;
    pid_t m_pid = -1;
    int m_status = -1;
};

long long msSince(Clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// Host pids whose argv[0] is `marker` and that are not zombies (a zombie's cmdline is empty).
std::vector<pid_t> processesNamed(const std::string& marker)
{
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = sbtest::readFile(entry.path() / "cmdline");
        if (cmdline.substr(0, cmdline.find('\0')) == marker) out.push_back(std::stoi(name));
    }
    return out;
}

template <class Pred> bool eventually(Pred done, std::chrono::milliseconds timeout)
{
    auto deadline = Clock::now() + timeout;
    while (!done()) {
        if (Clock::now() > deadline) return done();
        std::this_thread::sleep_for(kPollInterval);
    }
    return true;
}

std::string commandPolicy(const std::string& rules, const std::string& defaultAction = "allow",
                          int timeoutSeconds = 120, const std::string& onTimeout = "deny")
{
    return R"({"version": 1, "commands": {"default": ")" + defaultAction + R"(", "rules": [)" +
           rules + R"(]}, "approvals": {"timeout_seconds": )" + std::to_string(timeoutSeconds) +
           R"(, "on_timeout": ")" + onTimeout + R"("}})";
}

std::string rule(const std::string& action, const std::string& match)
{
    return R"({"action": ")" + action + R"(", "match": ")" + match + R"("})";
}

class Supervision : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    sbtest::TempDir logs;
    int m_started = 0;

    // Session ids are unique per run: cgroups are named after them, machine-wide.
    std::string uniqueId(const std::string& name)
    {
        m_ids.push_back(name + "-" + sbit::uniqueToken());
        return m_ids.back();
    }

    // A supervisor these tests kill leaves its (empty) cgroups behind; remove them so the
    // machine is left as it was.
    void TearDown() override
    {
        sb::CgroupSupport cgroups = sb::probeCgroupSupport();
        std::vector<std::string> bases = cgroups.v1Bases;
        if (!cgroups.base.empty()) bases.push_back(cgroups.base);
        // Killed supervisors leave "sandbench-ID-PID" behind until the next session's cleanup.
        for (const std::string& id : m_ids)
            for (const std::string& base : bases) {
                std::error_code ec;
                for (const auto& entry : fs::directory_iterator(base, ec)) {
                    if (entry.path().filename().string().rfind("sandbench-" + id + "-", 0) != 0)
                        continue;
                    const fs::path dir = entry.path();
                    // Busy while the last processes of a killed sandbox are still leaving.
                    eventually([&] { return ::rmdir(dir.c_str()) == 0 || errno != EBUSY; }, 10s);
                }
            }
    }

    std::vector<std::string> m_ids;

    fs::path socketOf(const std::string& session) const
    {
        return fs::path(sb.env().at("XDG_RUNTIME_DIR")) / "sandbench" / (session + ".sock");
    }

    // `sandbench-cli ARGS…` in the background.
    std::unique_ptr<Background> startCli(const std::vector<std::string>& args)
    {
        std::vector<std::string> argv = {sbtest::cliPath()};
        argv.insert(argv.end(), args.begin(), args.end());
        return std::make_unique<Background>(argv, sb.env(), logs.path(),
                                            "p" + std::to_string(++m_started));
    }

    // `run --policy POLICY -- bash -c SCRIPT` in the background, as session `session`.
    std::unique_ptr<Background> startRun(const std::string& session, const fs::path& policy,
                                         const std::vector<std::string>& command)
    {
        std::vector<std::string> args = {"run",           "--workspace", sb.workspace().string(),
                                         "--session-id",  session,       "--policy",
                                         policy.string(), "--"};
        args.insert(args.end(), command.begin(), command.end());
        return startCli(args);
    }
    std::unique_ptr<Background> startScript(const std::string& session, const fs::path& policy,
                                            const std::string& script)
    {
        return startRun(session, policy, {"bash", "-c", script});
    }

    // The session's pending requests, or an empty array when it cannot be asked (not up yet).
    json pending(const std::string& session) const
    {
        auto r = sb.cli({"pending", session, "--json"}, withOptions({}, 30));
        if (r.status != 0) return json::array();
        try {
            return json::parse(r.out);
        } catch (const json::exception&) {
            ADD_FAILURE() << "pending --json printed something that is not JSON:\n" << dump(r);
            return json::array();
        }
    }

    // Polls `pending SESSION --json` until request `id` is listed; gives up when `run` exits.
    std::optional<json> waitForRequest(const std::string& session, std::uint64_t id,
                                       Background& run)
    {
        auto deadline = Clock::now() + kConditionTimeout;
        while (Clock::now() < deadline && !run.exited()) {
            for (const json& r : pending(session))
                if (r.value("id", std::uint64_t{0}) == id) return r;
            std::this_thread::sleep_for(kPollInterval);
        }
        return std::nullopt;
    }

    // Until the session answers control clients (its socket listens).
    bool waitUntilLive(const std::string& session, Background& run)
    {
        return eventually(
                   [&] {
                       return run.exited() ||
                              sb.cli({"pending", session, "--json"}, withOptions({}, 30)).status ==
                                  0;
                   },
                   kConditionTimeout) &&
               !run.exited();
    }

    // The recording's structured events, by type ("exec_request"…), as `export` writes them.
    std::map<std::string, std::vector<json>> recordedPayloads(const std::string& session) const
    {
        std::map<std::string, std::vector<json>> byType;
        auto exported = sb.cli({"export", session, "--format", "jsonl"});
        EXPECT_EQ(exported.status, 0) << dump(exported);
        std::istringstream lines(exported.out);
        for (std::string line; std::getline(lines, line);) {
            auto event = json::parse(line);
            if (event.contains("payload")) byType[event["type"]].push_back(event["payload"]);
        }
        return byType;
    }

    sbtest::RunResult approve(const std::string& session, std::uint64_t id,
                              std::vector<std::string> extra)
    {
        std::vector<std::string> args = {"approve", session, std::to_string(id)};
        args.insert(args.end(), extra.begin(), extra.end());
        return sb.cli(args, withOptions({}, 30));
    }
};

#define SB_WAIT_REQUEST(var, session, id, run)                                                     \
    auto var = waitForRequest((session), (id), *(run));                                            \
    ASSERT_TRUE(var.has_value()) << "approval #" << (id) << " never showed in pending\n"           \
                                 << (run)->dump()

#define SB_EXPECT_EXIT(run, expected)                                                              \
    do {                                                                                           \
        int status_ = (run)->wait(kSessionTimeout);                                                \
        EXPECT_EQ(status_, (expected)) << (status_ < 0 ? "still running: " : "") << (run)->dump(); \
    } while (0)

} // namespace

// --- Rules and the default, without asking ---

TEST_F(Supervision, ExecAllowedByRuleOrDefaultRunsAndDeniedByRuleFailsWithEperm)
{
    auto policy =
        sb.writePolicy(commandPolicy(rule("deny", "touch *") + "," + rule("allow", "mkdir *")));
    const std::string id = uniqueId("rules");
    auto r = sb.run(id,
                    {"bash", "-c",
                     "mkdir made-by-rule && echo mkdir-ran; ls -d . >/dev/null && echo ls-ran; "
                     "touch denied; echo touch=$?; echo after-the-denied-one"},
                    withOptions({"--policy", policy.string()}, 90));
    EXPECT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "mkdir-ran\n")) << "allowed by a rule\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "ls-ran\n")) << "allowed by the default\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "touch=126\n")) << dump(r);
    EXPECT_TRUE(contains(r.err, "Operation not permitted")) << dump(r);
    EXPECT_TRUE(contains(r.out, "after-the-denied-one\n")) << dump(r);
    EXPECT_FALSE(fs::exists(sb.upper(id) / "denied")) << dump(r);
}

// The supervisor reads an exec's arguments in batches of 64, a window of each, and a longer one
// on from its window: a rule still sees the 200th argument (of an argv array that some page
// boundary splits into two parts at most, one of them over 64) and every byte of a 600-byte one.
TEST_F(Supervision, RulesSeeEveryArgumentOfALongCommandLine)
{
    std::string numbers;
    for (int i = 1; i <= 200; ++i)
        numbers += " " + std::to_string(i);
    const std::string longArg(600, 'x');
    auto policy = sb.writePolicy(commandPolicy(rule("deny", "true" + numbers + " " + longArg)));
    const std::string id = uniqueId("long-argv");
    auto r = sb.run(id,
                    {"bash", "-c",
                     "/usr/bin/true" + numbers + " " + longArg + "; echo whole=$?; /usr/bin/true" +
                         numbers + " " + longArg.substr(1) + "; echo shorter=$?"},
                    withOptions({"--policy", policy.string()}, 90));
    EXPECT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "whole=126\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "shorter=0\n")) << dump(r);
}

TEST_F(Supervision, ExecDeniedByDefaultFailsButAllowRulesStillRun)
{
    auto policy = sb.writePolicy(
        commandPolicy(rule("allow", "bash *") + "," + rule("allow", "mkdir *"), "deny"));
    const std::string id = uniqueId("default-deny");
    auto r = sb.run(id, {"bash", "-c", "mkdir d && echo mkdir-ran; touch f; echo touch=$?"},
                    withOptions({"--policy", policy.string()}, 90));
    EXPECT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "mkdir-ran\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "touch=126\n")) << dump(r);
    EXPECT_TRUE(contains(r.err, "Operation not permitted")) << dump(r);
}

TEST_F(Supervision, AgentsOwnFirstCommandDeniedByPolicyExitsWith126)
{
    auto policy = sb.writePolicy(commandPolicy(rule("deny", "touch *")));
    const std::string id = uniqueId("first-denied");
    auto r = sb.run(id, {"touch", "never"}, withOptions({"--policy", policy.string()}, 90));
    EXPECT_EQ(r.status, 126) << dump(r);
    EXPECT_FALSE(fs::exists(sb.upper(id) / "never")) << dump(r);
}

// --- Ask: answered, refused, unanswered ---

TEST_F(Supervision, AskAnsweredAllowRunsTheCommand)
{
    const std::string id = uniqueId("ask-allow");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch asked && echo touch-ran; echo end");
    SB_WAIT_REQUEST(request, id, 1, run);
    EXPECT_EQ((*request)["argv"], json::array({"touch", "asked"})) << request->dump();
    EXPECT_TRUE(contains(request->value("rule", ""), "touch *")) << request->dump();
    EXPECT_TRUE(run->waitForErr("approval #1 pending")) << run->dump();
    EXPECT_FALSE(contains(run->out(), "end")) << "the agent went on before the answer\n"
                                              << run->dump();

    auto a = approve(id, 1, {"allow"});
    EXPECT_EQ(a.status, 0) << dump(a);
    EXPECT_TRUE(contains(a.out, "approval #1 allowed")) << dump(a);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "touch-ran\nend\n")) << run->dump();
    EXPECT_TRUE(contains(run->err(), "approval #1 allowed")) << run->dump();
    EXPECT_TRUE(pending(id).empty());
}

TEST_F(Supervision, AskAnsweredDenyFailsWithEperm)
{
    const std::string id = uniqueId("ask-deny");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch asked; echo touch=$?");
    SB_WAIT_REQUEST(request, id, 1, run);
    auto a = approve(id, 1, {"deny"});
    EXPECT_EQ(a.status, 0) << dump(a);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "touch=126\n")) << run->dump();
    EXPECT_TRUE(contains(run->err(), "Operation not permitted")) << run->dump();
    EXPECT_TRUE(contains(run->err(), "approval #1 denied")) << run->dump();
    EXPECT_FALSE(fs::exists(sb.upper(id) / "asked"));
}

TEST_F(Supervision, AskNotAnsweredTimesOutWithDenyAndSaysSo)
{
    const std::string id = uniqueId("ask-timeout");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *"), "allow", 2, "deny"));
    auto started = Clock::now();
    auto run = startScript(id, policy, "touch asked; echo touch=$?");
    SB_WAIT_REQUEST(request, id, 1, run);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_GE(msSince(started), 2000) << "decided before the timeout\n" << run->dump();
    EXPECT_TRUE(contains(run->out(), "touch=126\n")) << run->dump();
    EXPECT_TRUE(contains(run->err(), "Operation not permitted")) << run->dump();
    EXPECT_TRUE(contains(run->err(), "approval #1 denied (timed out)")) << run->dump();
}

TEST_F(Supervision, AskNotAnsweredWithOnTimeoutAllowRunsAfterTheTimeout)
{
    const std::string id = uniqueId("ask-timeout-allow");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *"), "allow", 2, "allow"));
    auto started = Clock::now();
    auto run = startScript(id, policy, "touch asked; echo touch=$?");
    SB_WAIT_REQUEST(request, id, 1, run);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_GE(msSince(started), 2000) << run->dump();
    EXPECT_TRUE(contains(run->out(), "touch=0\n")) << run->dump();
    EXPECT_TRUE(contains(run->err(), "approval #1 allowed (timed out)")) << run->dump();
}

TEST_F(Supervision, AnswerAfterTheTimeoutIsRefusedAsAlreadyAnswered)
{
    const std::string id = uniqueId("late");
    auto policy = sb.writePolicy(
        commandPolicy(rule("ask", "touch *") + "," + rule("ask", "mkdir *"), "allow", 2, "deny"));
    // The second request holds the session open while the first one is answered too late.
    auto run = startScript(id, policy, "touch asked; echo touch=$?; mkdir d; echo mkdir=$?");
    SB_WAIT_REQUEST(second, id, 2, run);
    auto a = approve(id, 1, {"allow"});
    EXPECT_NE(a.status, 0) << dump(a);
    EXPECT_TRUE(contains(a.err, "already answered")) << dump(a);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "touch=126\n")) << run->dump();
}

// --- Scopes and durations ---

TEST_F(Supervision, SessionAnswerForProgramCoversLaterCallsButNotOtherPrograms)
{
    const std::string id = uniqueId("scope-program");
    auto policy =
        sb.writePolicy(commandPolicy(rule("ask", "touch *") + "," + rule("ask", "mkdir *")));
    auto run = startScript(id, policy,
                           "touch a && touch b && echo both-touched; mkdir d && echo mkdir-ran");
    SB_WAIT_REQUEST(first, id, 1, run);
    EXPECT_EQ((*first)["argv"], json::array({"touch", "a"}));
    auto a = approve(id, 1, {"allow", "--scope", "program", "--for", "session"});
    ASSERT_EQ(a.status, 0) << dump(a);

    // `touch b` goes through on the session answer; `mkdir` is another program and asks.
    SB_WAIT_REQUEST(second, id, 2, run);
    EXPECT_EQ((*second)["argv"], json::array({"mkdir", "d"})) << second->dump();
    EXPECT_TRUE(contains(run->out(), "both-touched\n")) << run->dump();
    auto b = approve(id, 2, {"allow"});
    ASSERT_EQ(b.status, 0) << dump(b);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "mkdir-ran\n")) << run->dump();
    EXPECT_EQ(count(run->err(), " pending: "), 2u) << run->dump();
}

TEST_F(Supervision, SessionAnswerForSubcommandCoversTheSameSubcommandOnly)
{
    const std::string id = uniqueId("scope-sub");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "mkdir *")));
    auto run = startScript(id, policy,
                           "mkdir -p d1 && mkdir -p d2 && echo both-p; mkdir d3 && echo d3-made");
    SB_WAIT_REQUEST(first, id, 1, run);
    EXPECT_EQ((*first)["argv"], json::array({"mkdir", "-p", "d1"}));
    auto a = approve(id, 1, {"allow", "--scope", "subcommand", "--for", "session"});
    ASSERT_EQ(a.status, 0) << dump(a);

    SB_WAIT_REQUEST(second, id, 2, run);
    EXPECT_EQ((*second)["argv"], json::array({"mkdir", "d3"})) << second->dump();
    EXPECT_TRUE(contains(run->out(), "both-p\n")) << run->dump();
    ASSERT_EQ(approve(id, 2, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "d3-made\n")) << run->dump();
    EXPECT_EQ(count(run->err(), " pending: "), 2u) << run->dump();
}

TEST_F(Supervision, OnceAnswerAsksAgainForTheSameProgram)
{
    const std::string id = uniqueId("once");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch a && touch b && echo both-touched");
    SB_WAIT_REQUEST(first, id, 1, run);
    ASSERT_EQ(approve(id, 1, {"allow", "--scope", "program", "--for", "once"}).status, 0);
    SB_WAIT_REQUEST(second, id, 2, run);
    EXPECT_EQ((*second)["argv"], json::array({"touch", "b"})) << second->dump();
    ASSERT_EQ(approve(id, 2, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "both-touched\n")) << run->dump();
}

TEST_F(Supervision, SessionDenyAnswerDeniesLaterCallsWithoutAsking)
{
    const std::string id = uniqueId("session-deny");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch a; echo a=$?; touch b; echo b=$?; echo end");
    SB_WAIT_REQUEST(first, id, 1, run);
    ASSERT_EQ(approve(id, 1, {"deny", "--scope", "program", "--for", "session"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "a=126\nb=126\nend\n")) << run->dump();
    EXPECT_EQ(count(run->err(), " pending: "), 1u) << run->dump();
}

// --- Learned rules ---

TEST_F(Supervision, AlwaysAnswerIsLearnedBesideThePolicyAndUsedByTheNextSession)
{
    const std::string id = uniqueId("learn");
    const std::string id2 = uniqueId("learn-again");
    const std::string policyText = "// my policy, with a comment and odd spacing\n" +
                                   commandPolicy(rule("ask", "touch *"), "allow", 120, "deny") +
                                   "\n\n";
    auto policy = sb.writePolicy(policyText);
    const fs::path learned = policy.parent_path() / (policy.stem().string() + ".learned.json");
    ASSERT_FALSE(fs::exists(learned));

    auto run = startScript(id, policy, "touch a && echo a-touched");
    SB_WAIT_REQUEST(first, id, 1, run);
    auto a = approve(id, 1, {"allow", "--scope", "program", "--for", "always"});
    ASSERT_EQ(a.status, 0) << dump(a);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "a-touched\n")) << run->dump();

    ASSERT_TRUE(fs::exists(learned)) << "no " << learned << "\n" << run->dump();
    json rules = json::parse(sbtest::readFile(learned), nullptr, true, /*ignore_comments=*/true);
    ASSERT_TRUE(rules.contains("commands")) << rules.dump(2);
    ASSERT_EQ(rules["commands"].size(), 1u) << rules.dump(2);
    EXPECT_EQ(rules["commands"][0]["action"], "allow") << rules.dump(2);
    EXPECT_EQ(rules["commands"][0]["match"], "touch *") << rules.dump(2);
    EXPECT_EQ(sbtest::readFile(policy), policyText) << "the user's policy file was rewritten";

    // A new session over the same policy: the learned rule decides, nobody is asked.
    auto again = startScript(id2, policy, "touch b && echo b-touched");
    SB_EXPECT_EXIT(again, 0);
    EXPECT_TRUE(contains(again->out(), "b-touched\n")) << again->dump();
    EXPECT_FALSE(contains(again->err(), "pending")) << again->dump();
    EXPECT_EQ(sbtest::readFile(policy), policyText);
}

// --- Several clients ---

TEST_F(Supervision, TwoRacingAnswersOneWinsTheOtherHearsAlreadyAnsweredAndAttachedClientsSeeIt)
{
    const std::string id = uniqueId("race");
    auto policy =
        sb.writePolicy(commandPolicy(rule("ask", "touch *") + "," + rule("ask", "mkdir *")));
    // The mkdir asks too, so the session is still there for the losing answer.
    auto run = startScript(id, policy, "touch raced && echo touch-ran; mkdir hold; echo end");
    SB_WAIT_REQUEST(request, id, 1, run);
    auto viewer1 = startCli({"attach", id});
    auto viewer2 = startCli({"attach", id});
    ASSERT_TRUE(viewer1->waitForErr("approval #1 pending")) << viewer1->dump();
    ASSERT_TRUE(viewer2->waitForErr("approval #1 pending")) << viewer2->dump();

    auto first = startCli({"approve", id, "1", "allow"});
    auto second = startCli({"approve", id, "1", "allow"});
    int s1 = first->wait(kConditionTimeout), s2 = second->wait(kConditionTimeout);
    ASSERT_GE(s1, 0) << "approve hung\n" << first->dump();
    ASSERT_GE(s2, 0) << "approve hung\n" << second->dump();
    EXPECT_TRUE((s1 == 0) != (s2 == 0)) << "exactly one answer must win\nfirst: " << first->dump()
                                        << "\nsecond: " << second->dump();
    Background& loser = s1 == 0 ? *second : *first;
    EXPECT_TRUE(contains(loser.err(), "already answered")) << loser.dump();

    for (Background* viewer : {viewer1.get(), viewer2.get()}) {
        EXPECT_TRUE(viewer->waitForErr("approval #1 allowed")) << viewer->dump();
        EXPECT_TRUE(viewer->waitForErr("approval #2 pending")) << viewer->dump();
    }
    SB_WAIT_REQUEST(hold, id, 2, run);
    ASSERT_EQ(approve(id, 2, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "touch-ran\nend\n")) << run->dump();
    for (Background* viewer : {viewer1.get(), viewer2.get()}) {
        EXPECT_EQ(viewer->wait(kConditionTimeout), 0) << viewer->dump();
        EXPECT_EQ(count(viewer->err(), "approval #1 allowed"), 1u) << viewer->dump();
        EXPECT_TRUE(contains(viewer->out(), "touch-ran\r\n")) << viewer->dump();
        EXPECT_TRUE(contains(viewer->err(), "session " + id + " ended (status 0)"))
            << viewer->dump();
    }
}

TEST_F(Supervision, RacingAnswersToTheLastCommandGiveTheLoserAClearMessage)
{
    // The winning answer lets the session end at once, so the losing one meets a supervisor that
    // is leaving: whatever the timing, it must say why, not how the socket failed.
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    for (int round = 0; round < 5; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const std::string id = uniqueId("last");
        auto run = startScript(id, policy, "touch last");
        SB_WAIT_REQUEST(request, id, 1, run);
        auto first = startCli({"approve", id, "1", "allow"});
        auto second = startCli({"approve", id, "1", "deny"});
        int s1 = first->wait(kConditionTimeout), s2 = second->wait(kConditionTimeout);
        ASSERT_GE(s1, 0) << "approve hung\n" << first->dump();
        ASSERT_GE(s2, 0) << "approve hung\n" << second->dump();
        ASSERT_TRUE((s1 == 0) != (s2 == 0))
            << "exactly one answer must win\nfirst: " << first->dump()
            << "\nsecond: " << second->dump();
        Background& loser = s1 == 0 ? *second : *first;
        EXPECT_TRUE(contains(loser.err(), "already answered") || contains(loser.err(), " ended"))
            << loser.dump();
        SB_EXPECT_EXIT(run, s1 == 0 ? 0 : 126); // allowed, or denied: EPERM
    }
}

TEST_F(Supervision, ClientKilledWhileARequestIsPendingChangesNothing)
{
    const std::string id = uniqueId("vanish");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch kept && echo touch-ran");
    SB_WAIT_REQUEST(request, id, 1, run);
    {
        auto viewer = startCli({"attach", id});
        ASSERT_TRUE(viewer->waitForErr("approval #1 pending")) << viewer->dump();
        viewer->signal(SIGKILL);
        EXPECT_EQ(viewer->wait(kConditionTimeout), 128 + SIGKILL);
    }
    auto still = pending(id);
    ASSERT_EQ(still.size(), 1u) << still.dump(2) << "\n" << run->dump();
    EXPECT_EQ(still[0]["id"], 1);
    EXPECT_FALSE(run->exited()) << run->dump();

    auto a = approve(id, 1, {"allow"});
    EXPECT_EQ(a.status, 0) << dump(a);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_TRUE(contains(run->out(), "touch-ran\n")) << run->dump();
}

TEST_F(Supervision, SupervisorKilledWhileAPromptIsPendingTakesTheSandboxWithItAndLsCleansUp)
{
    const std::string id = uniqueId("orphan");
    const std::string marker = "sbmarker-" + sbit::uniqueToken();
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run =
        startScript(id, policy, "(exec -a " + marker + " sleep 1000) & touch never; echo after");
    SB_WAIT_REQUEST(request, id, 1, run);
    ASSERT_TRUE(eventually([&] { return !processesNamed(marker).empty(); }, kConditionTimeout))
        << "the marker never started inside the sandbox\n"
        << run->dump();
    const fs::path socket = socketOf(id);
    ASSERT_TRUE(fs::exists(socket));

    run->signal(SIGKILL);
    EXPECT_EQ(run->wait(kConditionTimeout), 128 + SIGKILL) << run->dump();
    EXPECT_TRUE(eventually([&] { return processesNamed(marker).empty(); }, 20s))
        << "the sandbox outlived its supervisor: " << marker << " still runs";
    EXPECT_FALSE(contains(run->out(), "after")) << run->dump();

    // The socket is left behind, refusing connections; clients neither hang nor list it.
    EXPECT_TRUE(fs::exists(fs::symlink_status(socket))) << "expected a stale socket";
    auto ls = sb.cli({"ls", "--json"}, withOptions({}, 30));
    EXPECT_EQ(ls.status, 0) << dump(ls);
    EXPECT_FALSE(contains(ls.out, id)) << dump(ls);
    EXPECT_FALSE(fs::exists(fs::symlink_status(socket))) << "ls left the stale socket";
    auto p = sb.cli({"pending", id}, withOptions({}, 30));
    EXPECT_NE(p.status, 0) << dump(p);
    EXPECT_TRUE(contains(p.err, "no live supervisor")) << dump(p);
    auto a = approve(id, 1, {"allow"});
    EXPECT_NE(a.status, 0) << dump(a);
}

TEST_F(Supervision, SessionIdOfAKilledSupervisorCanBeUsedAgain)
{
    // A supervisor that dies (SIGKILL, OOM killer) cleans nothing up. What it leaves must not stop
    // the next session that is given the same id (here from another state folder, as another
    // checkout or a deleted session folder would).
    const std::string id = uniqueId("reused");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch never");
    SB_WAIT_REQUEST(request, id, 1, run);
    run->signal(SIGKILL);
    ASSERT_EQ(run->wait(kConditionTimeout), 128 + SIGKILL) << run->dump();

    sbit::Sandbench other;
    auto again = other.run(id, {"bash", "-c", "echo second-session-ran"}, withOptions({}, 90));
    EXPECT_EQ(again.status, 0) << dump(again);
    EXPECT_TRUE(contains(again.out, "second-session-ran\n")) << dump(again);
}

// A killed supervisor leaves its (empty) cgroups behind; a later session removes them while its
// command runs, off the start's path.
TEST_F(Supervision, CgroupsAKilledSupervisorLeftAreRemovedByALaterSession)
{
    sb::CgroupSupport cgroups = sb::probeCgroupSupport();
    if (!cgroups.available()) {
        if (sbit::runningAsRoot()) SB_SKIP(cgroups.reason);
        return; // without a delegated subtree a user's sessions make no cgroups to leave behind
    }
    pid_t gone = ::fork(); // a supervisor's pid that is gone
    if (gone == 0) ::_exit(0);
    ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
    std::vector<std::string> bases = cgroups.v1Bases;
    if (!cgroups.base.empty()) bases.push_back(cgroups.base);
    std::vector<fs::path> left;
    for (const std::string& base : bases) {
        left.push_back(fs::path(base) / ("sandbench-left-behind-" + std::to_string(gone)));
        ASSERT_EQ(::mkdir(left.back().c_str(), 0755), 0) << left.back() << ": " << strerror(errno);
    }
    auto r = sb.run(uniqueId("tidy"), {"true"});
    EXPECT_EQ(r.status, 0) << dump(r);
    for (const fs::path& dir : left) {
        EXPECT_FALSE(fs::exists(dir)) << dir;
        ::rmdir(dir.c_str());
    }
}

// --- Ending a session from a client ---

TEST_F(Supervision, StopEndsARunningSessionWithSigterm)
{
    const std::string id = uniqueId("stopped");
    auto policy = sb.writePolicy(commandPolicy(""));
    auto run = startScript(id, policy, "echo ready; exec sleep 1000");
    ASSERT_TRUE(run->waitForOut("ready\n")) << run->dump();
    ASSERT_TRUE(waitUntilLive(id, *run)) << run->dump();
    auto s = sb.cli({"stop", id}, withOptions({}, 30));
    EXPECT_EQ(s.status, 0) << dump(s);
    SB_EXPECT_EXIT(run, 128 + SIGTERM);
    EXPECT_FALSE(fs::exists(socketOf(id))) << "the supervisor left its socket";
}

TEST_F(Supervision, KillEndsARunningSessionWithSigkill)
{
    const std::string id = uniqueId("killed");
    auto policy = sb.writePolicy(commandPolicy(""));
    auto run = startScript(id, policy, "trap '' TERM; echo ready; sleep 1000; sleep 1");
    ASSERT_TRUE(run->waitForOut("ready\n")) << run->dump();
    ASSERT_TRUE(waitUntilLive(id, *run)) << run->dump();
    auto k = sb.cli({"kill", id}, withOptions({}, 30));
    EXPECT_EQ(k.status, 0) << dump(k);
    SB_EXPECT_EXIT(run, 128 + SIGKILL);
    EXPECT_FALSE(fs::exists(socketOf(id))) << "the supervisor left its socket";
}

TEST_F(Supervision, StopWhileARequestIsPendingEndsTheSession)
{
    const std::string id = uniqueId("stop-pending");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(id, policy, "touch never; echo after");
    SB_WAIT_REQUEST(request, id, 1, run);
    auto s = sb.cli({"stop", id}, withOptions({}, 30));
    EXPECT_EQ(s.status, 0) << dump(s);
    SB_EXPECT_EXIT(run, 128 + SIGTERM);
    EXPECT_FALSE(contains(run->out(), "after")) << run->dump();
}

// --- The terminal ---

TEST_F(Supervision, TerminalPromptAnswersAPendingRequestFromTheKeyboard)
{
    const std::string id = uniqueId("tty");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    const std::string done = "done-" + sbit::uniqueToken();
    sbit::PtyProgram cli({sbtest::cliPath(), "run", "--workspace", sb.workspace().string(),
                          "--session-id", id, "--policy", policy.string(), "--", "bash", "-c",
                          "touch from-tty && echo " + done},
                         sb.env());
    ASSERT_TRUE(cli.waitFor("\033]2;sandbench: 1 approval pending", kConditionTimeout))
        << "no title notice\n"
        << cli.output();
    cli.send("\x1d");
    ASSERT_TRUE(cli.waitFor("Sandbench approvals", kConditionTimeout)) << cli.output();
    ASSERT_TRUE(cli.waitFor("touch from-tty", kConditionTimeout)) << cli.output();
    cli.send("a");
    ASSERT_TRUE(cli.waitFor("Nothing is waiting for an answer", kConditionTimeout)) << cli.output();
    EXPECT_FALSE(contains(cli.output(), done)) << "the agent wrote over the approval screen";
    cli.send("\033");
    EXPECT_TRUE(cli.waitFor(done, kConditionTimeout)) << cli.output();
    EXPECT_EQ(cli.wait(kSessionTimeout), 0) << cli.output();
    EXPECT_TRUE(contains(cli.output(), "\033[?1049l")) << "the alternate screen was not left";
}

TEST_F(Supervision, AttachShowsTheSessionOutputAsATerminalDoes)
{
    const std::string id = uniqueId("mirror");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    // Output before and after a request that holds the agent until the viewer is attached, with
    // bytes a terminal mirror must not touch: escapes, a tab, a CR, invalid UTF-8, no final
    // newline. The command writes to a pipe: the caller gets its bytes as they are, a viewer
    // as a terminal shows them, each bare newline with its carriage return (issue 26, item 9).
    const std::string script =
        "printf 'first line\\n\\033[1mbold\\033[0m\\ttab\\r\\n'; "
        "for i in 1 2 3; do printf 'slow %s\\n' $i; sleep 0.2; done; "
        "touch gate; "
        "printf 'bytes \\377\\376 end\\n'; "
        "for i in 4 5 6; do printf 'slow %s\\n' $i; sleep 0.2; done; printf 'no newline'";
    const std::string expected = "first line\n\033[1mbold\033[0m\ttab\r\nslow 1\nslow 2\nslow 3\n"
                                 "bytes \377\376 end\nslow 4\nslow 5\nslow 6\nno newline";
    auto run = startScript(id, policy, script);
    SB_WAIT_REQUEST(request, id, 1, run);
    auto viewer = startCli({"attach", id});
    ASSERT_TRUE(viewer->waitForErr("approval #1 pending")) << viewer->dump();
    ASSERT_EQ(approve(id, 1, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_EQ(viewer->wait(kConditionTimeout), 0) << viewer->dump();
    EXPECT_EQ(run->out(), expected) << run->dump();
    const std::string shown = "first line\r\n\033[1mbold\033[0m\ttab\r\nslow 1\r\nslow 2\r\n"
                              "slow 3\r\nbytes \377\376 end\r\nslow 4\r\nslow 5\r\nslow 6\r\n"
                              "no newline";
    EXPECT_EQ(viewer->out(), shown) << viewer->dump();
}

// Issue 33, item 10: a terminal shown a session's history must not answer the queries in it
// (the program asked them long ago; the answer would reach it as keystrokes), while a query made
// live still reaches the terminal.
TEST_F(Supervision, AttachReplaysHistoryWithoutItsQueriesAndPassesLiveOnes)
{
    const std::string id = uniqueId("queries");
    auto policy = sb.writePolicy(commandPolicy(rule("ask", "touch *")));
    auto run = startScript(
        id, policy,
        "printf 'old\\033[6nquery\\033]11;?\\007\\n'; touch gate; printf 'new\\033[6nlive\\n'");
    ASSERT_TRUE(run->waitForOut("query")) << run->dump(); // history once attach subscribes
    SB_WAIT_REQUEST(request, id, 1, run);
    auto viewer = startCli({"attach", id});
    ASSERT_TRUE(viewer->waitForErr("approval #1 pending")) << viewer->dump();
    ASSERT_EQ(approve(id, 1, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_EQ(viewer->wait(kConditionTimeout), 0) << viewer->dump();
    EXPECT_EQ(viewer->out(), "oldquery\r\nnew\033[6nlive\r\n") << viewer->dump();
}

// Issue 26, item 8: `show` counts each decision once, as it ended: an asked command as its
// answer or its timeout; commands denied are listed apart from those that ran.
TEST_F(Supervision, ShowCountsFinalDecisionsAndListsDeniedCommandsApart)
{
    const std::string id = uniqueId("show");
    auto policy = sb.writePolicy(commandPolicy(
        rule("deny", "rm -rf *") + "," + rule("ask", "touch *") + "," + rule("ask", "mkdir *"),
        "allow", 2));
    auto run =
        startScript(id, policy, "rm -rf x; rm -rf y; touch approved; mkdir unanswered; echo done");
    SB_WAIT_REQUEST(request, id, 1, run);
    EXPECT_EQ(approve(id, 1, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);

    auto text = sb.cli({"show", id});
    EXPECT_TRUE(contains(text.out, "decisions 2 allowed, 3 denied (2 asked, 1 of them unanswered "
                                   "in time)"))
        << text.out;
    auto shown = nlohmann::json::parse(sb.cli({"show", id, "--json"}).out);
    EXPECT_EQ(shown["decisions"],
              (nlohmann::json{{"allowed", 2}, {"denied", 3}, {"prompts", 2}, {"timed_out", 1}}));
    EXPECT_EQ(shown["denied_commands"],
              (nlohmann::json{"rm -rf x", "rm -rf y", "mkdir unanswered"}));
    ASSERT_EQ(shown["commands"].size(), 2u) << shown.dump();
    EXPECT_EQ(shown["commands"][1], "touch approved");

    // Issue 26, item 10: the recording says what was tried, then what became of it, both with
    // the command's id, and an approval request names the command it is about.
    auto byType = recordedPayloads(id);
    const auto& tried = byType["exec_request"];
    const auto& decided = byType["exec_decision"];
    ASSERT_EQ(tried.size(), decided.size());
    ASSERT_GE(tried.size(), 5u);
    for (std::size_t i = 0; i < tried.size(); ++i) {
        EXPECT_EQ(tried[i]["id"], decided[i]["id"]);
        EXPECT_FALSE(tried[i].contains("decision")) << tried[i].dump();
        EXPECT_TRUE(decided[i].contains("decision")) << decided[i].dump();
        EXPECT_EQ(tried[i]["argv"], decided[i]["argv"]);
    }
    const auto& prompts = byType["approval_prompt"];
    ASSERT_EQ(prompts.size(), 2u);
    for (const auto& prompt : prompts) {
        auto asked = std::find_if(decided.begin(), decided.end(),
                                  [&](const auto& d) { return d["id"] == prompt["command_id"]; });
        ASSERT_NE(asked, decided.end()) << prompt.dump();
        EXPECT_EQ((*asked)["decision"], "ask");
        EXPECT_TRUE(
            contains(prompt["what"].get<std::string>(), (*asked)["argv"][0].get<std::string>()))
            << prompt.dump() << " " << asked->dump();
    }
}

// Issue 26, item 10: a connection's request is recorded apart from its decision, each with the
// connection's number, which the approval request names too; a rule's comment reaches the
// decision.
TEST_F(Supervision, AnAskedConnectionIsRecordedAsTriedDecidedAndAskedAbout)
{
    sbtest::TempDir site;
    sbtest::writeFile(site / "hello.txt", "hello\n");
    sbproxytest::PythonServer server("http", site.path());
    const std::string port = std::to_string(server.port());
    const std::string id = uniqueId("net");
    auto policy = sb.writePolicy(R"({"version": 1, "network": {"mode": "filtered",
        "default": "deny", "rules": [{"action": "ask", "host": "127.0.0.1", "ports": [)" +
                                 port + R"(], "comment": "the test's server"}]}})");
    auto run = startScript(
        id, policy,
        "unset NO_PROXY no_proxy; curl -s --max-time 50 http://127.0.0.1:" + port + "/hello.txt");
    SB_WAIT_REQUEST(request, id, 1, run);
    EXPECT_EQ(approve(id, 1, {"allow"}).status, 0);
    SB_EXPECT_EXIT(run, 0);
    EXPECT_EQ(run->out(), "hello\n") << run->dump();

    auto byType = recordedPayloads(id);
    ASSERT_EQ(byType["network_decision"].size(), 1u);
    const json& decided = byType["network_decision"][0];
    EXPECT_EQ(decided["decision"], "allow");
    EXPECT_EQ(decided["asked"], true);
    const json tried =
        *std::find_if(byType["network_request"].begin(), byType["network_request"].end(),
                      [](const json& e) { return e.value("type", "") == "decided"; });
    EXPECT_FALSE(tried.contains("decision")) << tried.dump();
    EXPECT_EQ(tried["connection"], decided["connection"]);
    ASSERT_EQ(byType["approval_prompt"].size(), 1u);
    const json& prompt = byType["approval_prompt"][0];
    EXPECT_EQ(prompt["request"], "network");
    EXPECT_EQ(prompt["connection"], decided["connection"]);
    EXPECT_TRUE(contains(prompt["rule"].get<std::string>(), ": the test's server)"))
        << prompt.dump();
}
