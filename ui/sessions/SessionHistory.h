// What the recording knows of a session, in the shapes the window shows live: its activity
// events as the control socket would have sent them, and its terminal screen at the end.
#pragma once

#include <QByteArray>
#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace sb {
struct RecordedEvent;
}

namespace sbui {

struct SessionHistory {
    std::vector<nlohmann::json> events; // activity, oldest first
    QByteArray screen;                  // bytes that redraw the last screen
    unsigned rows = 24, cols = 80;
    qint64 startedMs = 0;
    nlohmann::json policy; // the recorded policy summary (network, limits; document, file)
};

// The policy the session ran under at its end: the document of its last policy update, else
// the one it started with. Null when the recording holds none (an older Sandbench's).
nlohmann::json policyRanUnder(const SessionHistory& history);

// A recorded event as the live activity event it was (time_unix_ms added from the session's
// start when it has none), or nothing for what the timeline does not show: terminal bytes,
// sizes, resource samples, the request half of a decided command or connection.
std::optional<nlohmann::json> activityEvent(const sb::RecordedEvent& event, qint64 startedMs);

// Reads the session from the recordings database; nullopt with `error` when it cannot.
// `withScreen` false skips the screen (a live session redraws from its own output buffer).
std::optional<SessionHistory> loadSessionHistory(const QString& sessionId, bool withScreen,
                                                 QString* error);

} // namespace sbui
