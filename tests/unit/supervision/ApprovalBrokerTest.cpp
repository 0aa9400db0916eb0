#include "supervision/ApprovalBroker.h"

#include "TestSupport.h"

#include <atomic>
#include <mutex>
#include <thread>

namespace fs = std::filesystem;

namespace {

sb::ApprovalRequest command(std::vector<std::string> argv)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Command;
    r.program = "/usr/bin/" + argv.at(0);
    r.argv = std::move(argv);
    r.cwd = "/src/project";
    r.rule = "commands.default";
    return r;
}

sb::ApprovalRequest connection(std::string host, std::uint16_t port)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Network;
    r.host = std::move(host);
    r.port = port;
    r.protocol = "connect";
    return r;
}

sb::ApprovalAnswer reply(bool allow, sb::ApprovalScope scope = sb::ApprovalScope::ExactCommand,
                         sb::ApprovalDuration duration = sb::ApprovalDuration::Once,
                         std::string by = "gui")
{
    return sb::ApprovalAnswer{allow, scope, duration, std::move(by)};
}

// Collects every outcome a request's `done` receives, with the thread it came from.
struct Outcomes {
    std::mutex mutex;
    std::vector<sb::ApprovalOutcome> seen;
    std::vector<std::thread::id> threads;

    sb::ApprovalBroker::Done callback()
    {
        return [this](const sb::ApprovalOutcome& o) {
            std::lock_guard lock(mutex);
            seen.push_back(o);
            threads.push_back(std::this_thread::get_id());
        };
    }
};

sb::ApprovalPolicy policy(std::uint32_t timeoutSeconds = 120,
                          sb::RuleAction onTimeout = sb::RuleAction::Deny)
{
    return sb::ApprovalPolicy{timeoutSeconds, onTimeout};
}

} // namespace

TEST(ApprovalBroker, AnsweredAllowAndDeny)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    Outcomes outcomes;
    const std::int64_t start = clock.unixMs();
    const auto a = broker.submit(command({"git", "push"}), outcomes.callback());
    const auto b = broker.submit(command({"rm", "-rf", "build"}), outcomes.callback());
    EXPECT_NE(a, b);

    const auto waiting = broker.pending();
    ASSERT_EQ(waiting.size(), 2u);
    EXPECT_EQ(waiting[0].id, a);
    EXPECT_EQ(waiting[0].deadlineUnixMs, start + 120'000);
    EXPECT_EQ(waiting[0].argv, (std::vector<std::string>{"git", "push"}));
    EXPECT_EQ(waiting[1].id, b);

    clock.advance(1500);
    EXPECT_FALSE(broker.answer(a, reply(true)));
    EXPECT_FALSE(broker.answer(
        b, reply(false, sb::ApprovalScope::ExactCommand, sb::ApprovalDuration::Once, "cli")));
    ASSERT_EQ(outcomes.seen.size(), 2u);
    EXPECT_EQ(outcomes.seen[0].id, a);
    EXPECT_TRUE(outcomes.seen[0].allow);
    EXPECT_FALSE(outcomes.seen[0].timedOut);
    EXPECT_EQ(outcomes.seen[0].latencyMs, 1500);
    EXPECT_EQ(outcomes.seen[0].answer.answeredBy, "gui");
    EXPECT_EQ(outcomes.seen[1].id, b);
    EXPECT_FALSE(outcomes.seen[1].allow);
    EXPECT_EQ(outcomes.seen[1].answer.answeredBy, "cli");
    EXPECT_TRUE(broker.pending().empty());
    EXPECT_EQ(broker.nextDeadlineMs(), -1);
    // "Once" teaches nothing.
    EXPECT_EQ(broker.decidedBySession(command({"git", "push"})), std::nullopt);
}

TEST(ApprovalBroker, TimeoutAppliesOnTimeoutAndNeverBecomesARule)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(10, sb::RuleAction::Deny), clock);
    Outcomes outcomes;
    int persisted = 0;
    broker.setPersistHook([&](const sb::ApprovalRequest&, const sb::ApprovalAnswer&) {
        ++persisted;
        return sb::Status{};
    });
    const auto id = broker.submit(command({"curl", "x"}), outcomes.callback());
    EXPECT_EQ(broker.nextDeadlineMs(), 10'000);
    clock.advance(4000);
    EXPECT_EQ(broker.nextDeadlineMs(), 6000);
    const auto later = broker.submit(command({"wget", "y"}), outcomes.callback());

    clock.advance(5999);
    EXPECT_EQ(broker.expire(), 0);
    EXPECT_TRUE(outcomes.seen.empty());
    clock.advance(1);
    EXPECT_EQ(broker.nextDeadlineMs(), 0);
    EXPECT_EQ(broker.expire(), 1);
    ASSERT_EQ(outcomes.seen.size(), 1u);
    EXPECT_EQ(outcomes.seen[0].id, id);
    EXPECT_TRUE(outcomes.seen[0].timedOut);
    EXPECT_FALSE(outcomes.seen[0].allow);
    EXPECT_EQ(outcomes.seen[0].latencyMs, 10'000);
    EXPECT_EQ(broker.nextDeadlineMs(), 4000); // the later request's deadline

    // A late answer is refused and leaves no trace: no rule, nothing persisted.
    auto late = broker.answer(
        id, reply(true, sb::ApprovalScope::AnyArguments, sb::ApprovalDuration::Always));
    ASSERT_TRUE(late);
    EXPECT_EQ(late->code, sb::ErrorCode::Conflict);
    EXPECT_EQ(late->message, "approval request 1 already answered (timed out and was denied)");
    EXPECT_EQ(broker.decidedBySession(command({"curl", "x"})), std::nullopt);
    EXPECT_EQ(persisted, 0);
    EXPECT_EQ(broker.pending().size(), 1u);
    EXPECT_EQ(broker.pending()[0].id, later);
}

TEST(ApprovalBroker, AnswerPastTheDeadlineTimesOutEvenBeforeExpireRuns)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(5, sb::RuleAction::Allow), clock);
    Outcomes outcomes;
    const auto id = broker.submit(connection("example.com", 443), outcomes.callback());
    clock.advance(5000);
    auto late =
        broker.answer(id, reply(false, sb::ApprovalScope::Host, sb::ApprovalDuration::Session));
    ASSERT_TRUE(late);
    EXPECT_EQ(late->code, sb::ErrorCode::Conflict);
    EXPECT_EQ(late->message, "approval request 1 already answered (timed out and was allowed)");
    ASSERT_EQ(outcomes.seen.size(), 1u);
    EXPECT_TRUE(outcomes.seen[0].timedOut);
    EXPECT_TRUE(outcomes.seen[0].allow); // on_timeout: allow
    EXPECT_EQ(broker.decidedBySession(connection("example.com", 443)), std::nullopt);
    EXPECT_EQ(broker.expire(), 0);
}

TEST(ApprovalBroker, WallClockJumpsDoNotExpireRequests)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(60), clock);
    Outcomes outcomes;
    broker.submit(command({"make"}), outcomes.callback());
    clock.setUnixMs(clock.unixMs() + 3'600'000); // the user sets the clock an hour ahead
    EXPECT_EQ(broker.expire(), 0);
    EXPECT_EQ(broker.nextDeadlineMs(), 60'000);
}

TEST(ApprovalBroker, SecondAnswerConflictsAndUnknownIdIsNotFound)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    Outcomes outcomes;
    const auto id = broker.submit(command({"git", "push"}), outcomes.callback());
    EXPECT_FALSE(broker.answer(
        id, reply(false, sb::ApprovalScope::ExactCommand, sb::ApprovalDuration::Once, "tty")));
    auto second = broker.answer(id, reply(true));
    ASSERT_TRUE(second);
    EXPECT_EQ(second->code, sb::ErrorCode::Conflict);
    EXPECT_EQ(second->message, "approval request 1 already answered (denied by tty)");
    ASSERT_EQ(outcomes.seen.size(), 1u);
    EXPECT_FALSE(outcomes.seen[0].allow);

    auto unknown = broker.answer(77, reply(true));
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->code, sb::ErrorCode::NotFound);
    EXPECT_EQ(unknown->message, "no approval request 77");
}

TEST(ApprovalBroker, FirstOfTwoRacingAnswersWins)
{
    for (int round = 0; round < 200; ++round) {
        sb::MockClock clock;
        sb::ApprovalBroker broker(policy(), clock);
        Outcomes outcomes;
        const auto id = broker.submit(command({"git", "push"}), outcomes.callback());
        std::atomic<bool> go{false};
        sb::Status results[2];
        auto client = [&](int which) {
            while (!go.load()) {
            }
            results[which] =
                broker.answer(id, reply(which == 0, sb::ApprovalScope::ExactCommand,
                                        sb::ApprovalDuration::Once, which == 0 ? "gui" : "cli"));
        };
        std::thread gui(client, 0), cli(client, 1);
        go = true;
        gui.join();
        cli.join();

        ASSERT_EQ(outcomes.seen.size(), 1u) << "round " << round;
        const int winner = outcomes.seen[0].allow ? 0 : 1;
        EXPECT_EQ(outcomes.seen[0].answer.answeredBy, winner == 0 ? "gui" : "cli");
        EXPECT_FALSE(results[winner]);
        ASSERT_TRUE(results[1 - winner]);
        EXPECT_EQ(results[1 - winner]->code, sb::ErrorCode::Conflict);
        // `done` ran on the winning client's thread, not on the test's.
        EXPECT_NE(outcomes.threads[0], std::this_thread::get_id());
    }
}

TEST(ApprovalBroker, SessionAnswersDecideTheNextIdenticalRequest)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    Outcomes outcomes;
    auto id = broker.submit(command({"git", "push", "origin"}), outcomes.callback());
    ASSERT_FALSE(broker.answer(
        id, reply(true, sb::ApprovalScope::Subcommand, sb::ApprovalDuration::Session)));
    EXPECT_EQ(broker.decidedBySession(command({"git", "push", "origin"})), true);
    EXPECT_EQ(broker.decidedBySession(command({"git", "push", "upstream", "-f"})), true);
    EXPECT_EQ(broker.decidedBySession(command({"git", "pull"})), std::nullopt);

    // An exact deny, also for the session, beats the broader allow.
    id = broker.submit(command({"git", "push", "--force"}), outcomes.callback());
    ASSERT_FALSE(broker.answer(
        id, reply(false, sb::ApprovalScope::ExactCommand, sb::ApprovalDuration::Session)));
    EXPECT_EQ(broker.decidedBySession(command({"git", "push", "--force"})), false);
    EXPECT_EQ(broker.decidedBySession(command({"git", "push", "origin"})), true);

    // Connections: host and port, host, domain.
    id = broker.submit(connection("api.github.com", 443), outcomes.callback());
    ASSERT_FALSE(
        broker.answer(id, reply(true, sb::ApprovalScope::Domain, sb::ApprovalDuration::Session)));
    EXPECT_EQ(broker.decidedBySession(connection("API.github.com.", 443)), true);
    EXPECT_EQ(broker.decidedBySession(connection("codeload.github.com", 22)), true);
    EXPECT_EQ(broker.decidedBySession(connection("github.com", 443)), true);
    EXPECT_EQ(broker.decidedBySession(connection("notgithub.com", 443)), std::nullopt);

    id = broker.submit(connection("example.org", 80), outcomes.callback());
    ASSERT_FALSE(broker.answer(
        id, reply(false, sb::ApprovalScope::HostPort, sb::ApprovalDuration::Session)));
    EXPECT_EQ(broker.decidedBySession(connection("example.org", 80)), false);
    EXPECT_EQ(broker.decidedBySession(connection("example.org", 443)), std::nullopt);
    // A command answer says nothing about connections, nor the other way round.
    EXPECT_EQ(broker.decidedBySession(command({"example.org"})), std::nullopt);
}

// Issue 34: an answer for this program only decides that program's later connections, no
// other's, and none whose process is unknown; a request without a process cannot have one.
TEST(ApprovalBroker, AnAnswerForThisProgramOnlyDecidesItsConnectionsOnly)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    Outcomes outcomes;
    auto from = [](std::string program) {
        auto r = connection("git.example.net", 22);
        r.process = {sb::ProcessInfo{7, std::move(program), {"ssh", "git@git.example.net"}},
                     sb::ProcessInfo{5, "/usr/bin/git", {"git", "push"}}};
        return r;
    };
    auto onlyThis = reply(true, sb::ApprovalScope::HostPort, sb::ApprovalDuration::Session);
    onlyThis.programOnly = true;
    ASSERT_FALSE(broker.answer(broker.submit(from("/usr/bin/ssh"), outcomes.callback()), onlyThis));
    EXPECT_EQ(broker.decidedBySession(from("/usr/bin/ssh")), true);
    EXPECT_EQ(broker.decidedBySession(from("/usr/bin/curl")), std::nullopt);
    EXPECT_EQ(broker.decidedBySession(connection("git.example.net", 22)), std::nullopt);
    ASSERT_EQ(broker.sessionAnswers().network().size(), 1u);
    EXPECT_EQ(broker.sessionAnswers().network()[0].program, "/usr/bin/ssh");

    const auto unknown = broker.submit(connection("git.example.net", 22), outcomes.callback());
    auto refused = broker.answer(unknown, onlyThis);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, sb::ErrorCode::InvalidInput);
}

TEST(ApprovalBroker, AScopeThatDoesNotFitIsRefusedAndTheRequestStaysPending)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    Outcomes outcomes;
    const auto id = broker.submit(command({"ls"}), outcomes.callback());
    auto refused = broker.answer(
        id, reply(true, sb::ApprovalScope::Subcommand, sb::ApprovalDuration::Session));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, sb::ErrorCode::InvalidInput);
    EXPECT_TRUE(outcomes.seen.empty());
    EXPECT_EQ(broker.pending().size(), 1u);
    EXPECT_FALSE(broker.answer(
        id, reply(true, sb::ApprovalScope::AnyArguments, sb::ApprovalDuration::Session)));
    EXPECT_EQ(outcomes.seen.size(), 1u);
}

TEST(ApprovalBroker, ListenerSeesRequestsAndOutcomes)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(30), clock);
    std::vector<std::string> events;
    broker.setListener([&](const sb::ApprovalRequest* request, const sb::ApprovalOutcome* outcome) {
        ASSERT_NE(request == nullptr, outcome == nullptr);
        if (request)
            events.push_back("request " + std::to_string(request->id) + " " + request->argv.at(0) +
                             " by " + request->rule + " until " +
                             std::to_string(request->deadlineUnixMs - 1'700'000'000'000));
        else
            events.push_back("outcome " + std::to_string(outcome->id) +
                             (outcome->allow ? " allow" : " deny") +
                             (outcome->timedOut ? " timed out" : ""));
    });
    const auto a = broker.submit(command({"make"}), nullptr);
    broker.submit(command({"npm", "test"}), nullptr);
    EXPECT_FALSE(broker.answer(a, reply(true)));
    clock.advance(30'000);
    EXPECT_EQ(broker.expire(), 1);
    EXPECT_EQ(events, (std::vector<std::string>{"request 1 make by commands.default until 30000",
                                                "request 2 npm by commands.default until 30000",
                                                "outcome 1 allow", "outcome 2 deny timed out"}));
}

TEST(ApprovalBroker, CancelAllDeniesEverythingPendingAndLater)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    Outcomes outcomes;
    broker.submit(command({"a"}), outcomes.callback());
    broker.submit(connection("example.com", 443), outcomes.callback());
    broker.cancelAll();
    ASSERT_EQ(outcomes.seen.size(), 2u);
    for (const auto& o : outcomes.seen) {
        EXPECT_FALSE(o.allow);
        EXPECT_TRUE(o.cancelled);
        EXPECT_FALSE(o.timedOut);
    }
    EXPECT_TRUE(broker.pending().empty());
    EXPECT_EQ(broker.nextDeadlineMs(), -1);
    auto late = broker.answer(outcomes.seen[0].id, reply(true));
    ASSERT_TRUE(late);
    EXPECT_EQ(late->message, "approval request 1 already answered (cancelled)");

    broker.submit(command({"b"}), outcomes.callback()); // a request racing the shutdown
    ASSERT_EQ(outcomes.seen.size(), 3u);
    EXPECT_TRUE(outcomes.seen[2].cancelled);
    EXPECT_FALSE(outcomes.seen[2].allow);
    EXPECT_TRUE(broker.pending().empty());
}

TEST(ApprovalBroker, PersistFailuresAreReportedNotFatal)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(), clock);
    std::vector<sb::ApprovalOutcome> seen;
    broker.setListener([&](const sb::ApprovalRequest*, const sb::ApprovalOutcome* o) {
        if (o) seen.push_back(*o);
    });
    Outcomes outcomes;
    broker.setPersistHook([](const sb::ApprovalRequest&, const sb::ApprovalAnswer&) -> sb::Status {
        return sb::sysError("write /ro/p.learned.json", EROFS);
    });
    auto id = broker.submit(command({"make", "test"}), outcomes.callback());
    EXPECT_FALSE(broker.answer(
        id, reply(true, sb::ApprovalScope::AnyArguments, sb::ApprovalDuration::Always)));
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_TRUE(seen[0].allow);
    EXPECT_EQ(seen[0].persistError, "write /ro/p.learned.json: Read-only file system");
    EXPECT_EQ(broker.decidedBySession(command({"make", "all"})), true); // still holds this session

    broker.setPersistHook([](const sb::ApprovalRequest&, const sb::ApprovalAnswer&) -> sb::Status {
        throw std::runtime_error("disk on fire");
    });
    id = broker.submit(command({"npm", "ci"}), outcomes.callback());
    EXPECT_FALSE(broker.answer(
        id, reply(true, sb::ApprovalScope::AnyArguments, sb::ApprovalDuration::Always)));
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].persistError, "saving the rule failed: disk on fire");
    EXPECT_EQ(outcomes.seen.size(), 2u);

    // No learned-rules file at all (a policy in no file): said, not silently dropped.
    broker.setPersistHook(nullptr);
    id = broker.submit(command({"cargo", "build"}), outcomes.callback());
    EXPECT_FALSE(broker.answer(
        id, reply(true, sb::ApprovalScope::AnyArguments, sb::ApprovalDuration::Always)));
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[2].persistError, "the session's policy is in no file, so the rule could not be "
                                    "saved; the answer holds for this session");
    EXPECT_EQ(broker.decidedBySession(command({"cargo", "test"})), true);
}

// "Always" end to end: the answer is written beside the policy, and a new session (a new broker,
// the policy loaded again) decides the same command without asking.
TEST(ApprovalBroker, AlwaysAnswersSurviveIntoANewSession)
{
    sbtest::TempDir dir;
    const fs::path policyFile = dir / "team.json";
    const std::string policyText = "{\n  // ask before anything\n  \"version\": 1,\n"
                                   "  \"commands\": {\"default\": \"ask\"}\n}\n";
    sbtest::writeFile(policyFile, policyText);
    {
        auto policy = sb::loadPolicyWithLearned(policyFile);
        ASSERT_TRUE(policy) << policy.error().message;
        const sb::CommandMatcher matcher(policy->commands);
        EXPECT_EQ(matcher.decide("/usr/bin/cargo", {"cargo", "build"}).action, sb::RuleAction::Ask);

        sb::MockClock clock;
        sb::ApprovalBroker broker(policy->approvals, clock);
        broker.setPersistHook(
            sb::ApprovalBroker::learnedRulesWriter(sb::learnedRulesPath(policyFile)));
        std::string persistError = "(no outcome)";
        broker.setListener([&](const sb::ApprovalRequest*, const sb::ApprovalOutcome* o) {
            if (o) persistError = o->persistError;
        });
        Outcomes outcomes;
        const auto id = broker.submit(command({"cargo", "build"}), outcomes.callback());
        ASSERT_FALSE(broker.answer(
            id, reply(true, sb::ApprovalScope::Subcommand, sb::ApprovalDuration::Always)));
        EXPECT_EQ(persistError, "");
        ASSERT_EQ(outcomes.seen.size(), 1u);
        EXPECT_TRUE(outcomes.seen[0].allow);
    }
    EXPECT_EQ(sbtest::readFile(policyFile), policyText);

    auto policy = sb::loadPolicyWithLearned(policyFile);
    ASSERT_TRUE(policy) << policy.error().message;
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy->approvals, clock);
    EXPECT_EQ(broker.decidedBySession(command({"cargo", "build", "--release"})), std::nullopt);
    const sb::CommandMatcher matcher(policy->commands);
    const auto decision = matcher.decide("/usr/bin/cargo", {"cargo", "build", "--release"});
    EXPECT_EQ(decision.action, sb::RuleAction::Allow);
    EXPECT_EQ(decision.rule, "commands.rules[0] (allow \"cargo build *\": learned: allowed always "
                             "by gui when asked about /usr/bin/cargo build)")
        << "the learned rule says where it came from";
    EXPECT_EQ(matcher.decide("/usr/bin/cargo", {"cargo", "publish"}).action, sb::RuleAction::Ask);
}

TEST(ApprovalBroker, ANewApprovalPolicyAppliesToLaterRequestsOnly)
{
    sb::MockClock clock;
    sb::ApprovalBroker broker(policy(10, sb::RuleAction::Deny), clock);
    Outcomes outcomes;
    const auto before = broker.submit(command({"curl", "x"}), outcomes.callback());
    broker.setApprovalPolicy(policy(30, sb::RuleAction::Allow));
    const auto after = broker.submit(command({"wget", "y"}), outcomes.callback());
    EXPECT_EQ(broker.pending().at(0).deadlineUnixMs, clock.unixMs() + 10'000);
    EXPECT_EQ(broker.pending().at(1).deadlineUnixMs, clock.unixMs() + 30'000);

    clock.advance(10'000);
    EXPECT_EQ(broker.expire(), 1);
    clock.advance(20'000);
    EXPECT_EQ(broker.expire(), 1);
    ASSERT_EQ(outcomes.seen.size(), 2u);
    EXPECT_EQ(outcomes.seen[0].id, before);
    EXPECT_FALSE(outcomes.seen[0].allow) << "asked under on_timeout deny, and keeps it";
    EXPECT_EQ(outcomes.seen[1].id, after);
    EXPECT_TRUE(outcomes.seen[1].allow);
}
