// Session → Snapshots…: the snapshots of the session shown, and take / restore / fork
// (workspace/SessionSnapshots.h). A stopped session's are taken here; a running one's are asked
// of its supervisor, which freezes the sandbox meanwhile. Restore and fork need the session
// stopped. Each copies only the session's changed files, so they run on the GUI thread.
#pragma once

#include <QDialog>
#include <QPointer>

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace sbui {

class SessionConnection;

class SnapshotsDialog : public QDialog {
    Q_OBJECT
  public:
    // `running`: the session's live connection, or null for a stopped session.
    SnapshotsDialog(const QString& sessionId, SessionConnection* running,
                    QWidget* parent = nullptr);

    QTreeWidget* table() const { return m_table; }
    QString selectedName() const;
    void reload();

  Q_SIGNALS:
    // A fork was made: the window shows it.
    void forked(const QString& newSessionId);
    // The session's changes were replaced (restore): the review reloads them.
    void restored();

  private:
    void take();
    void restore();
    void fork();
    void updateButtons();
    void checkNames();
    void setMessage(const QString& text, bool failed = false);

    QString m_id;
    QPointer<SessionConnection> m_running;
    QLabel* m_message;
    QString m_nameProblem, m_forkProblem; // what is wrong with the names typed, or empty
    bool m_showsNameProblem = false;
    QTreeWidget* m_table;
    QLineEdit* m_name;
    QPushButton* m_take;
    QPushButton* m_restore;
    QLineEdit* m_forkAs;
    QPushButton* m_fork;
};

} // namespace sbui
