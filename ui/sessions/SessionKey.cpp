#include "SessionKey.h"

namespace sbui {

QString SessionKey::toString() const
{
    return host.isEmpty() ? id : host + QLatin1Char('/') + id;
}

SessionKey SessionKey::parse(const QString& text)
{
    const qsizetype slash = text.lastIndexOf(QLatin1Char('/'));
    if (slash < 0) return {QString(), text};
    return {text.left(slash), text.mid(slash + 1)};
}

} // namespace sbui
