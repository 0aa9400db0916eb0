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
    // Shows (or replaces, per session) a notification. False when there is no session bus.
    bool notify(const QString& sessionId, const QString& title, const QString& body);
    // How many notifications were sent (tests run without a bus).
    int sentCount() const { return m_sent; }

  private:
    QMap<QString, uint> m_ids; // session → notification id, so a new one replaces the old
    int m_sent = 0;
};

} // namespace sbui
