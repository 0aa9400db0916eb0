// The Hosts dock (issue 40): the remote hosts the window connects to, each with its
// connection's state and, when it failed or dropped, why (in ssh's and Sandbench's words for
// the user: an unknown host key, a refused login, no Sandbench there…). A host is added by its
// ssh:// URL or an alias of ~/.ssh/config, and kept in the settings (HostList).
#pragma once

#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace sbui {

class SessionHub;

class HostsView : public QWidget {
    Q_OBJECT
  public:
    explicit HostsView(SessionHub* hub, QWidget* parent = nullptr);

    // Adds the host `text` names (as typed into the field); false with the reason shown when
    // it names none.
    bool addHost(const QString& text);
    void removeHost(const QString& url);

    QLineEdit* field() const { return m_field; }
    QTreeWidget* list() const { return m_list; }
    // The message under the list: the selected host's last error, or why an addition failed.
    QString messageText() const;

  Q_SIGNALS:
    // Hosts were added or removed (the list, not their states).
    void hostsEdited();

  private:
    void update();
    void updateButtons(); // and the message, for the selected host
    void showMessage();

    SessionHub* m_hub;
    QLineEdit* m_field;
    QPushButton* m_add;
    QPushButton* m_remove;
    QPushButton* m_connect;
    QTreeWidget* m_list;
    QLabel* m_message;
    QString m_addError;
    QTimer m_countdown; // "trying again in N s"
};

} // namespace sbui
