#include "recording/RecordingTypes.h"

#include "base/ActivityKinds.h"
#include "base/Bytes.h"

#include <array>

namespace sb {
namespace {

constexpr std::array<std::string_view, kLastEventKind + 1> kKindNames = {
    "output",           "input",           "resize",           "lifecycle",       "exec_request",
    "exec_decision",    "network_request", "network_decision", "approval_prompt", "approval_answer",
    "workspace_change", "limit_hit",       "policy_change",    "dropped",         "resource_usage",
    "refusal",          "model_request",   "secret_leak",      "code_execution",
};

} // namespace

std::string_view eventKindName(EventKind kind)
{
    int i = static_cast<int>(kind);
    return i >= 0 && i <= kLastEventKind ? kKindNames[static_cast<size_t>(i)] : "unknown";
}

std::optional<EventKind> eventKindFromName(std::string_view name)
{
    for (size_t i = 0; i < kKindNames.size(); ++i)
        if (kKindNames[i] == name) return static_cast<EventKind>(i);
    return std::nullopt;
}

nlohmann::json toJson(const CommandRecord& c)
{
    nlohmann::json j = {
        {"kind", activity::kCommand}, {"id", c.id},     {"pid", c.pid},
        {"decision", c.decision},     {"rule", c.rule}, {"time_unix_ms", c.timeUnixMs}};
    putBytes(j, "program", c.program);
    putArgv(j, c.argv);
    putBytes(j, "cwd", c.cwd);
    if (c.wouldAsk) j["would_ask"] = true;
    if (!c.shadowDecision.empty())
        j["shadow"] = {{"decision", c.shadowDecision}, {"rule", c.shadowRule}};
    return j;
}

std::string_view recordStateName(RecordState state)
{
    switch (state) {
    case RecordState::Running:
        return "running";
    case RecordState::Ended:
        return "ended";
    case RecordState::Interrupted:
        return "interrupted";
    }
    return "ended";
}

std::optional<RecordState> recordStateFromName(std::string_view name)
{
    if (name == "running") return RecordState::Running;
    if (name == "ended") return RecordState::Ended;
    if (name == "interrupted") return RecordState::Interrupted;
    return std::nullopt;
}

} // namespace sb
