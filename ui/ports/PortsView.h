// The Ports tab: servers listening inside the current session's sandbox (its own loopback, out
// of the host's reach) and their previews on this machine's 127.0.0.1. A listening port can be
// exposed, opened in the browser, its URL copied, its forward stopped. The list is asked of the
// supervisor every two seconds while a live session is shown (a read of /proc there).
#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <nlohmann/json.hpp>

class QLabel;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace sbui {

class SessionConnection;

class PortsView : public QWidget {
    Q_OBJECT
  public:
    explicit PortsView(QWidget* parent = nullptr);

    // The live session's connection, or null (a recorded session, or one whose supervisor
    // forwards no ports): then the view says why there is nothing.
    void setConnection(SessionConnection* connection);
    // Asks for the list now (the timer asks every two seconds).
    void refresh();

    QTreeWidget* table() const { return m_table; }
    int listeningCount() const { return m_listening; }
    // The preview URL of the selected row; empty when it is not exposed.
    QString selectedUrl() const;
    // The line under the list: what the last action did, or what the list shows.
    QString message() const;

  Q_SIGNALS:
    // How many ports something listens on inside (for the tab's title).
    void listeningCountChanged(int count);
    // Emitted instead of opening a browser when openHook is set (tests).
    void openRequested(const QUrl& url);

  public:
    bool openHook = false;

  private:
    void onReply(const nlohmann::json& reply);
    void showList(const nlohmann::json& reply);
    void exposeSelected();
    void exposePort(int port);
    void stopSelected();
    void openSelected();
    void copySelected();
    void updateButtons();
    int selectedPort() const;
    void setMessage(const QString& text);
    // What an action did (copied, no browser): kept for a while over the list's own message,
    // which every poll sets again.
    void setNotice(const QString& text);

    QPointer<SessionConnection> m_connection;
    QTimer m_poll;
    QLabel* m_message;
    QTimer m_notice; // running while a notice is shown
    QTreeWidget* m_table;
    QPushButton* m_expose;
    QPushButton* m_open;
    QPushButton* m_copy;
    QPushButton* m_stop;
    QSpinBox* m_otherPort;
    QPushButton* m_exposeOther;
    int m_listening = 0;
};

} // namespace sbui
