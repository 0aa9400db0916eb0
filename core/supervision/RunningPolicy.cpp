#include "supervision/RunningPolicy.h"

#include "base/ActivityKinds.h"
#include "policy/PolicyJson.h"

namespace sb {
namespace {

using Json = nlohmann::ordered_json;

Policy withLearned(Policy policy, const LearnedRules& learned)
{
    mergeLearned(policy, learned);
    return policy;
}

nlohmann::json learnedJson(const LearnedRules& learned)
{
    Policy rules;
    rules.commands.rules = learned.commands;
    rules.network.rules = learned.network;
    const Json j = policyToJson(rules);
    return {{"commands", j["commands"]["rules"]}, {"network", j["network"]["rules"]}};
}

std::string sections(const std::vector<std::string>& names)
{
    std::string out;
    for (const std::string& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "nothing" : out;
}

} // namespace

nlohmann::json updateEvent(const PreparedPolicy& change, const std::string& client)
{
    return {{"kind", activity::kPolicy},
            {"type", "update"},
            {"by", client},
            {"origin", change.origin},
            {"file", change.source.file.string()},
            {"commands_rules", change.merged.commands.rules.size()},
            {"network_rules", change.merged.network.rules.size()},
            {"learned_rules", change.learned.commands.size() + change.learned.network.size()},
            {"applied", change.applied},
            {"deferred", change.deferred},
            // What the session runs from now on (an ended session's window shows the last).
            {"policy", policyToJson(change.user)}};
}

std::string describeUpdate(const proto::PolicyUpdateResult& result)
{
    return "applied " + sections(result.applied) +
           "; for new sessions only: " + sections(result.deferred);
}

RunningPolicy::RunningPolicy(Policy user, LearnedRules learned, PolicySource source)
    : m_user(std::move(user)), m_learned(std::move(learned)),
      m_merged(withLearned(m_user, m_learned)), m_source(std::move(source))
{
}

Result<PreparedPolicy> RunningPolicy::prepare(const proto::PolicyUpdate& update,
                                              const std::string& client, bool networkLive) const
{
    PreparedPolicy change;
    change.origin = "policy update from " + client;
    // Indented, so that a message's line and column point somewhere a person can find.
    auto next = parsePolicy(update.policy.dump(2), change.origin);
    if (!next) return next.error();

    change.source = m_source;
    if (!update.file.empty()) {
        change.source.file = update.file;
        change.source.preset.clear();
        change.source.learnedRulesFile = learnedRulesPath(update.file);
    }
    if (!change.source.learnedRulesFile.empty()) {
        auto learned = loadLearnedRules(change.source.learnedRulesFile);
        if (!learned) return learned.error().within("the policy was not changed");
        change.learned = std::move(*learned);
    }

    change.user = m_user;
    change.user.commands = next->commands;
    change.user.approvals = next->approvals;
    if (networkLive) {
        change.user.network.defaultAction = next->network.defaultAction;
        change.user.network.rules = next->network.rules;
    }
    change.merged = withLearned(change.user, change.learned);

    const Json before = policyToJson(m_merged), after = policyToJson(change.merged);
    const Json running = policyToJson(m_user), asked = policyToJson(*next);
    for (const char* section : {"commands", "network", "approvals"})
        if (before[section] != after[section]) change.applied.push_back(section);
    if (!networkLive && (running["network"]["default"] != asked["network"]["default"] ||
                         running["network"]["rules"] != asked["network"]["rules"]))
        change.deferred.push_back("network");
    if (next->network.mode != m_user.network.mode) change.deferred.push_back("network.mode");
    for (const char* section : {"filesystem", "limits", "env"})
        if (running[section] != asked[section]) change.deferred.push_back(section);
    return change;
}

void RunningPolicy::commit(PreparedPolicy change)
{
    m_user = std::move(change.user);
    m_learned = std::move(change.learned);
    m_merged = std::move(change.merged);
    m_source = std::move(change.source);
}

void RunningPolicy::describe(proto::SessionSummary& s) const
{
    s.policy = {{"network", toString(m_user.network.mode)},
                {"commands", toString(m_user.commands.defaultAction)},
                {"on_timeout", toString(m_user.approvals.onTimeout)}};
    s.policyFile = m_source.file.string();
    s.policyPreset = m_source.preset;
    s.learnedRulesFile = m_source.learnedRulesFile.string();
    s.effectivePolicy = policyToJson(m_user);
    // "Always" answers given since the last look are in the file already (and in force, as
    // answers of this session): an editor shows the file as it is.
    LearnedRules learned = m_learned;
    if (!m_source.learnedRulesFile.empty())
        if (auto now = loadLearnedRules(m_source.learnedRulesFile)) learned = std::move(*now);
    s.learnedRules = learnedJson(learned);
}

} // namespace sb
