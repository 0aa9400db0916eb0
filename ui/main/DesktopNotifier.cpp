#include "DesktopNotifier.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QVariantMap>

namespace sbui {

bool DesktopNotifier::notify(const QString& sessionId, const QString& title, const QString& body)
{
    if (!m_enabled) return false;
    ++m_sent;
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) return false;
    QDBusMessage call = QDBusMessage::createMethodCall(
        QStringLiteral("org.freedesktop.Notifications"),
        QStringLiteral("/org/freedesktop/Notifications"),
        QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("Notify"));
    QVariantMap hints{{QStringLiteral("urgency"), QVariant::fromValue<uchar>(2)},
                      {QStringLiteral("desktop-entry"), QStringLiteral("sandbench")}};
    call << QStringLiteral("Sandbench") << m_ids.value(sessionId, 0u) << QStringLiteral("sandbench")
         << title << body << QStringList() << hints << -1;
    // Asynchronous: a slow or missing notification service never stalls the window.
    auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(call, 5000), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this, sessionId, watcher] {
        QDBusPendingReply<uint> reply = *watcher;
        if (reply.isValid()) m_ids[sessionId] = reply.value();
        watcher->deleteLater();
    });
    return true;
}

} // namespace sbui
