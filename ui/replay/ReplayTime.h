// Times into a recording as people type and read them in the replay view.
#pragma once

#include <QString>
#include <QtGlobal>
#include <optional>

namespace sbui {

// Seconds ("90", "1.5"), units as the CLI takes them ("1m30s", "250ms", "1h2m") or a clock
// ("1:30", "1:02:03.5"); nanoseconds, or nullopt when the text is none of these.
std::optional<qint64> parseReplayTime(const QString& text);

// "0:05.3", "12:40.0"; past an hour "1:02:03".
QString formatReplayTime(qint64 ns);

} // namespace sbui
