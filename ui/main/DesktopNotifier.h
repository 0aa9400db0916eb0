// Desktop notifications (the freedesktop.org Notifications service on the session bus) for
// approvals that arrive while the window is not active. Without a notification service the
// window's own badge and the taskbar alert still tell.
#pragma once

#include <QMap>
#include <QObject>
#include <QString>

namespace sbui {

class DesktopNotifier : public QObject {
    Q_OBJECT
  public:
    using QObject::QObject;
    // Shows (or replaces, per session) a notification. False when there is no session bus or
    // notifications are turned off.
    bool notify(const QString& sessionId, const QString& title, const QString& body);
    // How many notifications were sent (tests run without a bus).
    int sentCount() const { return m_sent; }
    // The user's setting (Settings…): off, notify() sends nothing.
    void setEnabled(bool enabled) { m_enabled = enabled; }
    bool isEnabled() const { return m_enabled; }

  private:
    QMap<QString, uint> m_ids; // session → notification id, so a new one replaces the old
    int m_sent = 0;
    bool m_enabled = true;
};

} // namespace sbui
