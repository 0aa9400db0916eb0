#include "MonospaceFont.h"

#include <QFontDatabase>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QStringList>
#include <cmath>

namespace sbui {

bool hasFixedAdvance(const QFont& font)
{
    const QFontMetricsF metrics(font);
    const qreal advance = metrics.horizontalAdvance(QLatin1Char('M'));
    if (advance <= 0) return false;
    for (const QChar c : QStringLiteral("iW0.l_"))
        if (std::abs(metrics.horizontalAdvance(c) - advance) > advance / 100) return false;
    return true;
}

bool isMonospaceFamily(const QString& family)
{
    if (!QFontDatabase::families().contains(family)) return false;
    QFont font(family);
    // A family of its own, not an alias of another ("Monospace" names the system's choice).
    if (QFontInfo(font).family() != family) return false;
    // Only this family: a character it lacks must not be measured in another one.
    font.setStyleStrategy(QFont::NoFontMerging);
    return hasFixedAdvance(font);
}

QFont monospaceFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setFamily(QFontInfo(font).family());
    if (hasFixedAdvance(font)) return font;
    for (const QString& family : QFontDatabase::families())
        if (!QFontDatabase::isPrivateFamily(family) && isMonospaceFamily(family)) {
            font.setFamily(family);
            return font;
        }
    return font;
}

} // namespace sbui
