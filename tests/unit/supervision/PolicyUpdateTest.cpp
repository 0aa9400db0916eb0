// A running session's policy changed by a client (policy_update): what RunningPolicy accepts,
// applies and defers, and what the control server answers, to a viewer as to anyone.
#include "control/ControlHarness.h"
#include "policy/PolicyJson.h"
#include "supervision/RunningPolicy.h"

using namespace sbtest;
using nlohmann::json;
using sb::ControlClient;
using sb::RuleAction;
using sb::proto::MsgType;
using sb::proto::Role;

namespace fs = std::filesystem;

namespace {

const char* const kStart = R"({"version": 1,
  "network": {"mode": "filtered", "default": "ask",
              "rules": [{"action": "allow", "host": "example.com", "ports": [443]}]},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "git push *"}]},
  "approvals": {"timeout_seconds": 60},
  "limits": {"memory_mb": 1024}})";

sb::Policy policyOf(const std::string& text)
{
    auto p = sb::parsePolicy(text, "test.json");
    EXPECT_TRUE(p) << p.error().message;
    return p ? *p : sb::Policy{};
}

// The starting document with `edit` applied to its JSON.
json document(const std::function<void(json&)>& edit = {})
{
    json j = json::parse(kStart);
    if (edit) edit(j);
    return j;
}

sb::RunningPolicy running(sb::PolicySource source = {}, sb::LearnedRules learned = {})
{
    return sb::RunningPolicy(policyOf(kStart), std::move(learned), std::move(source));
}

std::vector<std::string> names(std::initializer_list<const char*> list)
{
    return {list.begin(), list.end()};
}

} // namespace

TEST(RunningPolicy, RulesDefaultsAndApprovalsApplyAtOnce)
{
    auto p = running();
    auto change =
        p.prepare({document([](json& j) {
                       j["commands"]["rules"].push_back({{"action", "deny"}, {"match", "curl *"}});
                       j["network"]["default"] = "deny";
                       j["approvals"] = {{"on_timeout", "allow"}};
                   }),
                   ""},
                  "gui", true);
    ASSERT_TRUE(change) << change.error().message;
    EXPECT_EQ(change->applied, names({"commands", "network", "approvals"}));
    EXPECT_TRUE(change->deferred.empty());
    EXPECT_EQ(change->origin, "policy update from gui");
    EXPECT_EQ(p.merged().commands.rules.size(), 1u) << "prepare changes nothing";

    p.commit(std::move(*change));
    ASSERT_EQ(p.merged().commands.rules.size(), 2u);
    EXPECT_EQ(p.merged().commands.rules[1].match, "curl *");
    EXPECT_EQ(p.merged().network.defaultAction, RuleAction::Deny);
    EXPECT_EQ(p.merged().approvals.onTimeout, RuleAction::Allow);
    EXPECT_EQ(p.merged().approvals.timeoutSeconds, 120u) << "the document's default, not 60";
}

TEST(RunningPolicy, WhatARunningSessionCannotChangeIsDeferredAndKept)
{
    auto p = running();
    auto change = p.prepare({document([](json& j) {
                                 j["network"]["mode"] = "none";
                                 j["limits"]["memory_mb"] = 64;
                                 j["env"] = {{"pass", {"TOKEN"}}};
                                 j["filesystem"] = {{"expose", json::array()}};
                             }),
                             ""},
                            "cli", true);
    ASSERT_TRUE(change) << change.error().message;
    EXPECT_TRUE(change->applied.empty());
    // An empty expose list is the default: filesystem did not change.
    EXPECT_EQ(change->deferred, names({"network.mode", "limits", "env"}));
    p.commit(std::move(*change));
    EXPECT_EQ(p.user().network.mode, sb::NetworkMode::Filtered);
    EXPECT_EQ(p.user().limits.memoryMb, 1024u);
    EXPECT_TRUE(p.user().env.pass.empty());
}

TEST(RunningPolicy, WithoutAProxyNetworkRulesAreDeferred)
{
    auto p = running();
    auto change = p.prepare({document([](json& j) { j["network"]["rules"] = json::array(); }), ""},
                            "gui", /*networkLive=*/false);
    ASSERT_TRUE(change);
    EXPECT_TRUE(change->applied.empty());
    EXPECT_EQ(change->deferred, names({"network"}));
    EXPECT_EQ(change->merged.network.rules.size(), 1u) << "the session keeps what it enforces";
}

TEST(RunningPolicy, LearnedRulesAreReadAgainAndFollowTheNewFile)
{
    sbtest::TempDir dir;
    const fs::path oldLearned = dir / "old.learned.json";
    auto p = running({dir / "old.json", "", oldLearned});
    // Learned since the session started (another session's "always"): in force after an update.
    sb::LearnedRules learned;
    learned.commands = {{RuleAction::Allow, "git push --dry-run *", "learned"}};
    ASSERT_FALSE(sb::writeLearnedRules(oldLearned, learned));
    auto same = p.prepare({document(), ""}, "gui", true);
    ASSERT_TRUE(same) << same.error().message;
    EXPECT_EQ(same->applied, names({"commands"}));
    ASSERT_EQ(same->merged.commands.rules.size(), 2u);
    EXPECT_EQ(same->merged.commands.rules[0].match, "git push --dry-run *");
    EXPECT_EQ(same->user.commands.rules.size(), 1u) << "user rules apart from learned ones";

    // A document saved elsewhere brings its own learned rules (none yet) along.
    const fs::path file = dir / "new.json";
    auto moved = p.prepare({document(), file.string()}, "gui", true);
    ASSERT_TRUE(moved) << moved.error().message;
    EXPECT_EQ(moved->source.file, file);
    EXPECT_EQ(moved->source.learnedRulesFile, dir / "new.learned.json");
    EXPECT_EQ(moved->merged.commands.rules.size(), 1u);
    p.commit(std::move(*moved));

    sb::proto::SessionSummary s;
    p.describe(s);
    EXPECT_EQ(s.policyFile, file.string());
    EXPECT_EQ(s.policyPreset, "");
    EXPECT_EQ(s.learnedRulesFile, (dir / "new.learned.json").string());
    EXPECT_EQ(s.effectivePolicy, json(sb::policyToJson(p.user())));
    EXPECT_EQ(s.learnedRules, json({{"commands", json::array()}, {"network", json::array()}}));
    EXPECT_EQ(s.policy["commands"], "allow");
}

TEST(RunningPolicy, DescribeShowsTheLearnedRulesFileAsItIsNow)
{
    sbtest::TempDir dir;
    auto p = running({"", "generic", dir / "generic.learned.json"});
    sb::LearnedRules learned;
    learned.network = {{RuleAction::Allow, "pypi.org", {443}, ""}};
    ASSERT_FALSE(sb::writeLearnedRules(dir / "generic.learned.json", learned));
    sb::proto::SessionSummary s;
    p.describe(s);
    EXPECT_EQ(s.policyPreset, "generic");
    EXPECT_EQ(s.policyFile, "");
    ASSERT_EQ(s.learnedRules["network"].size(), 1u) << s.learnedRules.dump();
    EXPECT_EQ(s.learnedRules["network"][0]["host"], "pypi.org");
    EXPECT_EQ(s.effectivePolicy["network"]["rules"].size(), 1u) << "learned rules shown apart";
}

TEST(RunningPolicy, AnInvalidDocumentOrLearnedFileIsRefusedWithItsPosition)
{
    sbtest::TempDir dir;
    auto p = running({dir / "p.json", "", dir / "p.learned.json"});
    auto bad = p.prepare({document([](json& j) { j["commands"]["default"] = "sometimes"; }), ""},
                         "gui", true);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, sb::ErrorCode::InvalidInput);
    EXPECT_EQ(bad.error().message.rfind("policy update from gui:", 0), 0u) << bad.error().message;
    EXPECT_NE(bad.error().message.find("at /commands/default: unknown value 'sometimes'"),
              std::string::npos)
        << bad.error().message;

    sbtest::writeFile(dir / "p.learned.json", "{\"version\": 1, \"commands\": [{}]}");
    auto learned = p.prepare({document(), ""}, "gui", true);
    ASSERT_FALSE(learned);
    EXPECT_NE(learned.error().message.find("the policy was not changed"), std::string::npos)
        << learned.error().message;
    EXPECT_EQ(p.merged().commands.rules.size(), 1u);
}

TEST(ControlServer, AViewerUpdatesThePolicyAndNewClientsSeeIt)
{
    IsolatedXdg xdg;
    ServerHarness h;
    h.backend.policy.emplace(running({"/home/u/p.json", "", ""}));
    auto c = ControlClient::connectPath(h.socketPath(), "gui", Role::Viewer);
    ASSERT_TRUE(c) << c.error().describe();
    EXPECT_EQ((*c)->session().policyFile, "/home/u/p.json");
    EXPECT_EQ((*c)->session().effectivePolicy["commands"]["default"], "allow");

    auto result = (*c)->updatePolicy(document([](json& j) {
                                         j["commands"]["default"] = "deny";
                                         j["network"]["mode"] = "host";
                                     }),
                                     "");
    ASSERT_TRUE(result) << result.error().describe();
    EXPECT_EQ(result->applied, names({"commands"}));
    EXPECT_EQ(result->deferred, names({"network.mode"}));
    {
        std::lock_guard lock(h.backend.mu);
        EXPECT_EQ(h.backend.policyUpdates, names({"gui"}));
    }
    auto later = ControlClient::connectPath(h.socketPath(), "cli", Role::Viewer);
    ASSERT_TRUE(later);
    EXPECT_EQ((*later)->session().effectivePolicy["commands"]["default"], "deny");
    EXPECT_EQ((*later)->session().effectivePolicy["network"]["mode"], "filtered");
    EXPECT_EQ((*later)->session().policy["commands"], "deny");
}

TEST(ControlServer, InvalidPolicyUpdatesAreNonFatalErrorsAndChangeNothing)
{
    IsolatedXdg xdg;
    ServerHarness h;
    h.backend.policy.emplace(running());
    auto c = ControlClient::connectPath(h.socketPath(), "gui", Role::Interactive);
    ASSERT_TRUE(c) << c.error().describe();

    auto invalid =
        (*c)->updatePolicy(document([](json& j) { j["network"]["default"] = "maybe"; }), "");
    ASSERT_FALSE(invalid);
    EXPECT_EQ(invalid.error().code, sb::ErrorCode::InvalidInput);
    EXPECT_EQ(invalid.error().message.rfind("policy update from gui:", 0), 0u)
        << invalid.error().message;
    EXPECT_NE(invalid.error().message.find("/network/default"), std::string::npos);

    auto unknownKey =
        (*c)->updatePolicy(document([](json& j) { j["comands"] = json::object(); }), "");
    ASSERT_FALSE(unknownKey);
    EXPECT_NE(unknownKey.error().message.find("did you mean 'commands'"), std::string::npos)
        << unknownKey.error().message;

    auto relative = (*c)->updatePolicy(document(), "p.json");
    ASSERT_FALSE(relative);
    EXPECT_NE(relative.error().message.find("absolute path"), std::string::npos);

    // A body without a document, as only a broken client sends it: refused, still connected.
    ASSERT_FALSE((*c)->sendFrame(sb::proto::encodeJson(MsgType::PolicyUpdate, {{"file", "/x"}})));
    auto reply = waitFor(**c, MsgType::Error);
    ASSERT_TRUE(reply) << reply.error().describe();
    EXPECT_FALSE(reply->body["fatal"].get<bool>());
    EXPECT_EQ(reply->body["ref"], "policy_update");

    EXPECT_FALSE((*c)->stop(false)) << "the client is still served";
    std::lock_guard lock(h.backend.mu);
    EXPECT_TRUE(h.backend.policyUpdates.empty());
    EXPECT_EQ(h.backend.policy->merged().network.defaultAction, RuleAction::Ask);
    EXPECT_TRUE(h.logged("policy update from gui refused"));
}

TEST(ControlServer, ASessionThatCannotChangeItsPolicySaysSo)
{
    IsolatedXdg xdg;
    ServerHarness h; // no policy: the backend's default
    auto c = ControlClient::connectPath(h.socketPath(), "gui", Role::Viewer);
    ASSERT_TRUE(c);
    // The client knows from the welcome and does not send what the supervisor cannot read.
    auto local = (*c)->updatePolicy(document(), "");
    ASSERT_FALSE(local);
    EXPECT_EQ(local.error().code, sb::ErrorCode::Unsupported);

    ASSERT_FALSE((*c)->sendFrame(sb::proto::encodeJson(
        MsgType::PolicyUpdate, sb::proto::toJson(sb::proto::PolicyUpdate{document(), ""}))));
    auto reply = waitFor(**c, MsgType::Error);
    ASSERT_TRUE(reply) << reply.error().describe();
    EXPECT_EQ(reply->body["code"], "unsupported");
    EXPECT_FALSE(reply->body["fatal"].get<bool>());
}
