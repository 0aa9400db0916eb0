// A running session takes a new policy (policy_update) end to end, and keeps its own when the
// new one is invalid or its file is gone: a real session by the real
// sandbench-cli, the real `sandbench-cli policy` sending the new document, a control client
// subscribed as the GUI subscribes, a server on the host's 127.0.0.1 behind the proxy. The agent
// waits at `touch gate1` / `touch gate2`, which the policy asks about, while the test changes the
// policy, so every step after a gate runs under the policy the test set. Waits are bounded and
// wait for messages, never for a time.
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"
#include "control/ControlClient.h"
#include "recording/RecordingStore.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;
using sbit::contains;
using sbit::dump;
using sbit::withOptions;

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSessionTimeout = 120s;

// Network: only what `networkRules` allows; commands: the two gates ask, the rest is allowed
// unless `commandRules` says otherwise.
std::string policy(const std::string& networkRules, const std::string& commandRules)
{
    return R"({"version": 1,
  "network": {"mode": "filtered", "default": "deny", "rules": [)" +
           networkRules + R"(]},
  "commands": {"default": "allow", "rules": [
    {"action": "ask", "match": "touch gate1"}, {"action": "ask", "match": "touch gate2"})" +
           commandRules + R"(]},
  "approvals": {"timeout_seconds": 120, "on_timeout": "deny"}}
)";
}

class PolicyUpdate : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    std::unique_ptr<sb::ControlClient> client;
    std::vector<json> events;
    std::string problem;

    // Connects to the session's socket once it listens; false when `run` ended first.
    bool connect(const std::string& id, std::future<sbtest::RunResult>& run)
    {
        const fs::path socket =
            fs::path(sb.env().at("XDG_RUNTIME_DIR")) / "sandbench" / (id + ".sock");
        const auto deadline = Clock::now() + kSessionTimeout;
        while (Clock::now() < deadline && run.wait_for(20ms) != std::future_status::ready) {
            auto c = sb::ControlClient::connectPath(socket, "policy-update-test",
                                                    sb::proto::Role::Viewer);
            if (!c) continue;
            client = std::move(c.value());
            if (auto e = client->subscribe()) problem = "subscribe: " + e->describe();
            return true;
        }
        return false;
    }

    // The next message of `type` (events are kept on the way), or nothing within the timeout.
    std::optional<sb::proto::Message> next(sb::proto::MsgType type)
    {
        const auto deadline = Clock::now() + kSessionTimeout;
        for (;;) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0) return std::nullopt;
            auto m = client->receive(static_cast<int>(left.count()));
            if (!m) {
                problem = "receive: " + m.error().describe();
                return std::nullopt;
            }
            if (m->type == sb::proto::MsgType::Event) events.push_back(m->body);
            if (m->type == type) return *m;
        }
    }

    // The request of the gate `touch NAME`, pending now (perhaps since the welcome).
    std::optional<std::uint64_t> gate(const std::string& name)
    {
        for (const sb::ApprovalRequest& r : client->pendingAtWelcome())
            if (r.argv == std::vector<std::string>{"touch", name}) return r.id;
        for (;;) {
            auto m = next(sb::proto::MsgType::ApprovalRequest);
            if (!m) return std::nullopt;
            auto r = sb::proto::approvalRequestFromJson(m->body);
            if (r && r->argv == std::vector<std::string>{"touch", name}) return r->id;
        }
    }

    bool allow(std::uint64_t id)
    {
        sb::ApprovalAnswer answer;
        answer.allow = true;
        answer.answeredBy = "policy-update-test";
        if (auto e = client->answer(id, answer)) {
            problem = "answer: " + e->describe();
            return false;
        }
        return true;
    }

    std::string describe(const sbtest::RunResult* run = nullptr) const
    {
        std::string out = problem.empty() ? "" : "client: " + problem + "\n";
        constexpr std::size_t kShown = 40; // a loop of execs sends thousands
        if (events.size() > kShown)
            out += "  (" + std::to_string(events.size() - kShown) + " earlier events)\n";
        for (std::size_t i = events.size() - std::min(events.size(), kShown); i < events.size();
             ++i)
            out += "  event " + events[i].dump() + "\n";
        return run ? out + dump(*run) : out;
    }
};

} // namespace

TEST_F(PolicyUpdate, ANewPolicyTakesEffectAtOnceAndAnInvalidOneChangesNothing)
{
    sbtest::TempDir site;
    sbtest::writeFile(site / "hello.txt", "hello from the host\n");
    sbproxytest::PythonServer server("http", site.path());
    const std::string port = std::to_string(server.port());
    const std::string allowServer =
        R"({"action": "allow", "host": "127.0.0.1", "ports": [)" + port + "]}";
    const fs::path before = sb.writePolicy(policy(allowServer, ""));
    const fs::path after = sb.writePolicy(
        "// the second policy\n" + policy("", R"(, {"action": "deny", "match": "mkdir *"})"));

    // NO_PROXY covers loopback inside (the sandbox's own); this server is the host's.
    const std::string script = "unset NO_PROXY no_proxy\n"
                               "fetch() { curl -s -o /dev/null -w '%{http_code}' --max-time 20 "
                               "http://127.0.0.1:" +
                               port + "/hello.txt; }\n" + R"SH(
echo "first curl=$(fetch)"
mkdir one; echo "first mkdir=$?"
touch gate1
echo "second curl=$(fetch)"
mkdir two; echo "second mkdir=$?"
touch gate2
mkdir three; echo "third mkdir=$?"
echo done
)SH";
    const std::string id = "policy-update-" + sbit::uniqueToken();
    auto run = std::async(std::launch::async, [&] {
        return sb.run(id, {"bash", "-c", script}, withOptions({"--policy", before.string()}, 150));
    });
    ASSERT_TRUE(connect(id, run)) << "never connected\n" << dump(run.get());
    EXPECT_EQ(client->session().policyFile, before.string());
    EXPECT_EQ(client->session().effectivePolicy["network"]["rules"].size(), 1u)
        << client->session().effectivePolicy.dump();

    auto gate1 = gate("gate1");
    ASSERT_TRUE(gate1) << describe();

    // A policy with a mistake, from the CLI: named with its file position, and nothing sent.
    const fs::path broken =
        sb.writePolicy("{\n  \"version\": 1,\n  \"commands\": {\"default\": \"alow\"}\n}\n");
    auto refused = sb.cli({"policy", id, broken.string()}, withOptions({}, 30));
    EXPECT_EQ(refused.status, 2) << dump(refused);
    EXPECT_TRUE(contains(refused.err, broken.string() + ":3:")) << dump(refused);
    // The session's own policy file deleted while it runs, then sent: refused by name; the
    // session goes on with the policy it holds.
    fs::remove(before);
    auto deleted = sb.cli({"policy", id, before.string()}, withOptions({}, 30));
    EXPECT_EQ(deleted.status, 2) << dump(deleted);
    EXPECT_TRUE(contains(deleted.err, "does not exist: " + before.string())) << dump(deleted);

    auto update = sb.cli({"policy", id, after.string()}, withOptions({}, 30));
    ASSERT_EQ(update.status, 0) << dump(update) << describe();
    EXPECT_TRUE(contains(update.out, "applied: commands, network\n")) << dump(update);
    EXPECT_TRUE(contains(update.out, "for new sessions only: nothing\n")) << dump(update);

    // Every subscribed client hears of it.
    std::optional<json> changed;
    while (!changed) {
        auto m = next(sb::proto::MsgType::Event);
        ASSERT_TRUE(m) << describe();
        if (m->body.value("kind", "") == "policy") changed = m->body;
    }
    EXPECT_EQ((*changed)["type"], "update");
    EXPECT_EQ((*changed)["by"], "sandbench-cli policy");
    EXPECT_EQ((*changed)["file"], after.string());
    EXPECT_EQ((*changed)["commands_rules"], 3);
    EXPECT_EQ((*changed)["network_rules"], 0);
    EXPECT_EQ((*changed)["applied"], json::array({"commands", "network"}));

    // The pending request stayed pending through the change; the user still decides it.
    auto pending = sb.cli({"pending", id, "--json"}, withOptions({}, 30));
    ASSERT_EQ(pending.status, 0) << dump(pending);
    EXPECT_TRUE(contains(pending.out, "\"gate1\"")) << dump(pending);
    ASSERT_TRUE(allow(*gate1)) << describe();

    auto gate2 = gate("gate2");
    ASSERT_TRUE(gate2) << describe();
    // Invalid documents sent by a client: refused, and the policy in force stays.
    auto invalid =
        client->updatePolicy({{"version", 1},
                              {"commands", {{"default", "allow"}, {"rules", json::array()}}},
                              {"limits", {{"pids", -1}}}},
                             "");
    ASSERT_FALSE(invalid);
    EXPECT_NE(invalid.error().message.find("policy update from policy-update-test:"),
              std::string::npos)
        << invalid.error().message;
    EXPECT_NE(invalid.error().message.find("/limits/pids"), std::string::npos)
        << invalid.error().message;
    ASSERT_TRUE(allow(*gate2)) << describe();

    ASSERT_TRUE(next(sb::proto::MsgType::Exit)) << describe();
    const sbtest::RunResult r = run.get();
    ASSERT_EQ(r.status, 0) << describe(&r);
    EXPECT_TRUE(contains(r.out, "first curl=200\n")) << describe(&r);
    EXPECT_TRUE(contains(r.out, "first mkdir=0\n")) << describe(&r);
    EXPECT_TRUE(contains(r.out, "second curl=403\n")) << "the proxy took the new rules\n"
                                                      << describe(&r);
    EXPECT_TRUE(contains(r.out, "second mkdir=126\n")) << describe(&r);
    EXPECT_TRUE(contains(r.err, "Operation not permitted")) << describe(&r);
    EXPECT_TRUE(contains(r.out, "third mkdir=126\n")) << "the invalid update changed nothing\n"
                                                      << describe(&r);
    EXPECT_TRUE(contains(r.out, "done\n")) << describe(&r);
    EXPECT_FALSE(fs::exists(sb.upper(id) / "two"));

    // The recording keeps the change for timelines and replay.
    auto store = sb::RecordingStore::open(fs::path(sb.env().at("XDG_DATA_HOME")) / "sandbench" /
                                          "recordings.db");
    ASSERT_TRUE(store) << store.error().describe();
    std::vector<json> recorded;
    auto e = store->forEachStructuredEvent(id, [&](const sb::RecordedEvent& event) {
        if (event.kind == sb::EventKind::PolicyChange)
            recorded.push_back(json::parse(event.data, nullptr, false));
        return true;
    });
    ASSERT_FALSE(e) << e->describe();
    ASSERT_EQ(recorded.size(), 1u);
    EXPECT_EQ(recorded[0]["kind"], "policy");
    EXPECT_EQ(recorded[0]["by"], "sandbench-cli policy");
    EXPECT_EQ(recorded[0]["applied"], json::array({"commands", "network"}));
}

// Exec approval decides on a thread of its own while the session loop applies policy updates:
// the agent runs `true` as fast as it can while the rules change under it, twenty times between
// two policies that allow it and then to one that denies it. Every exec is decided by one whole
// policy: the loop ends at its first denied exec, every exec before it was allowed and recorded,
// and a client watching sees the same order.
TEST_F(PolicyUpdate, RuleChangesRacingALoopOfExecsTakeEffectWholeAndLoseNoExec)
{
    const std::string script = R"SH(
n=0
while /usr/bin/true; do n=$((n+1)); done
echo "loop ended after $n"
)SH";
    const std::string id = "policy-race-" + sbit::uniqueToken();
    const fs::path start = sb.writePolicy(policy("", ""));
    auto run = std::async(std::launch::async, [&] {
        return sb.run(id, {"bash", "-c", script}, withOptions({"--policy", start.string()}, 150));
    });
    ASSERT_TRUE(connect(id, run)) << "never connected\n" << dump(run.get());

    auto isTrue = [](const json& e) {
        return e.value("kind", "") == "command" && e.value("program", "") == "/usr/bin/true";
    };
    auto awaitTrues = [&](std::size_t count) { // `events` keeps every event received
        while (std::count_if(events.begin(), events.end(), isTrue) < std::ptrdiff_t(count))
            if (!next(sb::proto::MsgType::Event)) return false;
        return true;
    };
    ASSERT_TRUE(awaitTrues(100)) << describe();
    const std::string allowTrue = R"(, {"action": "allow", "match": "true"})";
    for (std::size_t i = 0; i < 20; ++i) {
        auto applied = client->updatePolicy(json::parse(policy("", i % 2 ? "" : allowTrue)), "");
        ASSERT_TRUE(applied) << applied.error().describe() << "\n" << describe();
        ASSERT_TRUE(awaitTrues(110 + 10 * i)) << describe(); // execs ran under these rules
    }
    auto denied = client->updatePolicy(
        json::parse(policy("", R"(, {"action": "deny", "match": "true"})")), "");
    ASSERT_TRUE(denied) << denied.error().describe() << "\n" << describe();
    ASSERT_TRUE(next(sb::proto::MsgType::Exit)) << describe();
    std::size_t allowedSeen = 0, deniedSeen = 0, seenAfterDeny = 0;
    for (const json& e : events) {
        if (!isTrue(e)) continue;
        if (deniedSeen > 0) ++seenAfterDeny;
        ++(e.value("decision", "") == "deny" ? deniedSeen : allowedSeen);
    }

    const sbtest::RunResult r = run.get();
    ASSERT_EQ(r.status, 0) << describe(&r);
    EXPECT_EQ(deniedSeen, 1u) << describe(&r);
    EXPECT_EQ(seenAfterDeny, 0u) << "an allowed exec after the denied one\n" << describe(&r);
    EXPECT_TRUE(contains(r.err, "Operation not permitted")) << describe(&r);
    const auto at = r.out.find("loop ended after ");
    ASSERT_NE(at, std::string::npos) << describe(&r);
    const long loops = std::stol(r.out.substr(at + 17));
    EXPECT_GE(loops, static_cast<long>(allowedSeen)) << describe(&r);

    // The recording has every exec: as many allowed ones as the loop counted, then the deny.
    auto store = sb::RecordingStore::open(fs::path(sb.env().at("XDG_DATA_HOME")) / "sandbench" /
                                          "recordings.db");
    ASSERT_TRUE(store) << store.error().describe();
    long allowed = 0, deniedRecorded = 0, allowedAfterDeny = 0;
    auto e = store->forEachStructuredEvent(id, [&](const sb::RecordedEvent& event) {
        if (event.kind != sb::EventKind::ExecDecision) return true;
        json c = json::parse(event.data, nullptr, false);
        if (c.value("program", "") != "/usr/bin/true") return true;
        if (c.value("decision", "") == "deny") {
            ++deniedRecorded;
            EXPECT_TRUE(contains(c.value("rule", ""), "commands.rules[2]")) << c.dump();
        } else {
            ++(deniedRecorded > 0 ? allowedAfterDeny : allowed);
        }
        return true;
    });
    ASSERT_FALSE(e) << e->describe();
    EXPECT_EQ(allowed, loops);
    EXPECT_EQ(deniedRecorded, 1);
    EXPECT_EQ(allowedAfterDeny, 0);
}
