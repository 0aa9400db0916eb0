#include "SessionHistory.h"

#include "base/ActivityKinds.h"
#include "recording/RecordingStore.h"
#include "recording/ScreenModel.h"

#include <limits>

namespace sbui {

std::optional<nlohmann::json> activityEvent(const sb::RecordedEvent& event, qint64 startedMs)
{
    using sb::EventKind;
    auto json = nlohmann::json::parse(event.data, nullptr, false);
    if (!json.is_object()) return std::nullopt;
    switch (event.kind) {
    case EventKind::Output:
    case EventKind::Input:
    case EventKind::Resize:
    case EventKind::ExecRequest:
    case EventKind::ResourceUsage:
        return std::nullopt;
    case EventKind::NetworkRequest:
        if (json.value("type", "") == "decided") return std::nullopt;
        break;
    case EventKind::WorkspaceChange:
        // Live events are stored as sent. The net result at the end repeats them: left out.
        // (Recordings older than live events hold only that result, without "final".)
        if (json.contains("final") && json["final"] == true) return std::nullopt;
        if (json.value("kind", "") != sb::activity::kFile)
            json = {{"kind", sb::activity::kFile},
                    {"change", json.value("kind", "")},
                    {"path", json.value("path", "")}};
        break;
    case EventKind::LimitHit:
        json["kind"] = sb::activity::kLimit;
        break;
    case EventKind::PolicyChange:
        json["kind"] = sb::activity::kPolicy;
        break;
    case EventKind::Dropped:
        json["kind"] = sb::activity::kError;
        json["message"] = "the recording lost events here";
        break;
    default:
        break;
    }
    if (!json.contains("kind")) {
        json["kind"] = sb::activity::kLifecycle;
        if (json.contains("phase")) json["type"] = json["phase"];
    }
    if (!json.contains("time_unix_ms")) json["time_unix_ms"] = startedMs + event.tNs / 1'000'000;
    return json;
}

nlohmann::json policyRanUnder(const SessionHistory& history)
{
    for (auto it = history.events.rbegin(); it != history.events.rend(); ++it)
        if (it->value("kind", "") == sb::activity::kPolicy && it->value("type", "") == "update" &&
            it->contains("policy") && (*it)["policy"].is_object())
            return (*it)["policy"];
    if (history.policy.is_object() && history.policy.contains("document") &&
        history.policy["document"].is_object())
        return history.policy["document"];
    return nullptr;
}

std::optional<SessionHistory> loadSessionHistory(const QString& sessionId, bool withScreen,
                                                 QString* error)
{
    auto fail = [&](const sb::Error& e) -> std::optional<SessionHistory> {
        if (error) *error = QString::fromStdString(e.describe());
        return std::nullopt;
    };
    const std::string id = sessionId.toStdString();
    auto store = sb::RecordingStore::open();
    if (!store) return fail(store.error());
    auto record = store->session(id);
    if (!record) return fail(record.error());

    SessionHistory history;
    history.rows = record->rows;
    history.cols = record->cols;
    history.startedMs = record->startedNs / 1'000'000;
    history.policy = nlohmann::json::parse(record->policy, nullptr, false);
    if (auto e = store->forEachStructuredEvent(id, [&](const sb::RecordedEvent& event) {
            if (auto a = activityEvent(event, history.startedMs))
                history.events.push_back(std::move(*a));
            return true;
        }))
        return fail(*e);
    if (withScreen) {
        sb::ScreenModel screen(record->rows, record->cols);
        if (auto e = store->screenAt(id, std::numeric_limits<std::int64_t>::max(), screen))
            return fail(*e);
        std::string bytes = screen.snapshot();
        history.screen = QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size()));
    }
    return history;
}

} // namespace sbui
