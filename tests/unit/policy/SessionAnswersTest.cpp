// Answers given for the session, as rules: what they decide, and their round trip through the
// welcome's "session_rules".
#include "policy/SessionAnswers.h"

#include "control/Protocol.h"

#include <gtest/gtest.h>

namespace {

sb::LearnedRule answered(const sb::ApprovalRequest& request, bool allow, sb::ApprovalScope scope)
{
    sb::ApprovalAnswer answer;
    answer.allow = allow;
    answer.scope = scope;
    answer.duration = sb::ApprovalDuration::Session;
    auto rule = sb::ruleFromAnswer(request, answer);
    EXPECT_TRUE(rule) << rule.error().message;
    return *rule;
}

sb::ApprovalRequest connection(const std::string& host, std::uint16_t port)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Network;
    r.host = host;
    r.port = port;
    return r;
}

sb::ApprovalRequest command(std::vector<std::string> argv)
{
    sb::ApprovalRequest r;
    r.kind = sb::ApprovalKind::Command;
    r.program = "/usr/bin/" + argv.front();
    r.argv = std::move(argv);
    return r;
}

} // namespace

TEST(SessionAnswers, DecideAsTheSessionDoesADenyAmongTheMatchesWinning)
{
    sb::SessionAnswers answers;
    EXPECT_TRUE(answers.empty());
    answers.add(answered(connection("api.example.com", 443), true, sb::ApprovalScope::Domain));
    answers.add(answered(connection("tracker.example.com", 443), false, sb::ApprovalScope::Host));
    EXPECT_EQ(answers.decideConnection("api.example.com", 443), std::optional<bool>(true));
    EXPECT_EQ(answers.decideConnection("example.com", 8080), std::optional<bool>(true));
    EXPECT_EQ(answers.decideConnection("tracker.example.com", 443), std::optional<bool>(false));
    EXPECT_EQ(answers.decideConnection("badexample.com", 443), std::nullopt);
    EXPECT_EQ(answers.decideConnection("other.org", 443), std::nullopt);

    answers.add(answered(command({"git", "push", "origin"}), false, sb::ApprovalScope::Subcommand));
    answers.add(answered(command({"git", "status"}), true, sb::ApprovalScope::AnyArguments));
    EXPECT_EQ(answers.decideCommand("/usr/bin/git", {"git", "status"}), std::optional<bool>(true));
    EXPECT_EQ(answers.decideCommand("/usr/bin/git", {"git", "push", "main"}),
              std::optional<bool>(false));
    EXPECT_EQ(answers.decideCommand("/usr/bin/make", {"make"}), std::nullopt);
}

TEST(SessionAnswers, TravelInTheWelcomeAsRules)
{
    sb::SessionAnswers answers;
    answers.add(
        answered(connection("tracker.example.com", 443), false, sb::ApprovalScope::HostPort));
    answers.add(answered(command({"rm", "-rf", "build"}), true, sb::ApprovalScope::ExactCommand));
    sb::proto::SessionSummary summary;
    summary.id = "s";
    summary.sessionRules = answers.toJson();
    auto back = sb::proto::sessionSummaryFromJson(sb::proto::toJson(summary));
    ASSERT_TRUE(back) << back.error().message;
    const sb::SessionAnswers read = sb::SessionAnswers::fromJson(back->sessionRules);
    ASSERT_EQ(read.network().size(), 1u);
    ASSERT_EQ(read.commands().size(), 1u);
    EXPECT_EQ(read.decideConnection("tracker.example.com", 443), std::optional<bool>(false));
    EXPECT_EQ(read.decideConnection("tracker.example.com", 80), std::nullopt);
    EXPECT_EQ(read.decideCommand("/usr/bin/rm", {"rm", "-rf", "build"}), std::optional<bool>(true));
    // None yet: the field stays out of the welcome; nonsense reads as none.
    summary.sessionRules = nlohmann::json::object();
    EXPECT_FALSE(sb::proto::toJson(summary).contains("session_rules"));
    EXPECT_TRUE(sb::SessionAnswers::fromJson({{"network", "nonsense"}}).empty());
}
