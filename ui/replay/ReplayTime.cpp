#include "ReplayTime.h"

#include "recording/RecordingReplay.h"

#include <QStringList>
#include <cmath>

namespace sbui {
namespace {

// "m:ss", "h:mm:ss", the seconds possibly with a fraction.
std::optional<qint64> parseClock(const QString& text)
{
    const QStringList parts = text.split(u':');
    if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
    double seconds = 0;
    for (int i = 0; i < parts.size(); ++i) {
        bool ok = false;
        const bool last = i == parts.size() - 1;
        const double value = last ? parts[i].toDouble(&ok) : parts[i].toUInt(&ok);
        if (!ok || value < 0 || !std::isfinite(value)) return std::nullopt;
        // Only the leading field may exceed its unit ("90:00" is an hour and a half).
        if (i > 0 && value >= 60) return std::nullopt;
        seconds = seconds * 60 + value;
    }
    return static_cast<qint64>(std::llround(seconds * 1e9));
}

} // namespace

std::optional<qint64> parseReplayTime(const QString& text)
{
    const QString t = text.trimmed();
    if (t.isEmpty()) return std::nullopt;
    if (t.contains(u':')) return parseClock(t);
    auto ns = sb::parseDuration(t.toStdString());
    if (!ns) return std::nullopt;
    return *ns;
}

QString formatReplayTime(qint64 ns)
{
    const qint64 tenths = std::max<qint64>(0, ns) / 100'000'000;
    const qint64 seconds = tenths / 10;
    if (seconds >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(seconds / 3600)
            .arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'))
            .arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2.%3")
        .arg(seconds / 60)
        .arg(seconds % 60, 2, 10, QLatin1Char('0'))
        .arg(tenths % 10);
}

} // namespace sbui
