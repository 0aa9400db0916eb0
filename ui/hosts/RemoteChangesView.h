// The Changes of a remote session (issue 40): its layer of changes is a folder on its host, so
// the window asks the host, over the host's connection, what `sandbench-cli changes --json`
// lists there and what `diff` says of the selected file. Once the session ended, Apply all and
// Discard all run `apply` / `discard` there (the project is the host's folder); conflicts with
// edits made there since are shown as the local review shows them, to keep either version.
#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QFrame;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace sbui {

class RemoteHostLink;

class RemoteChangesView : public QWidget {
    Q_OBJECT
  public:
    explicit RemoteChangesView(QWidget* parent = nullptr);

    // Lists session `id`'s changes on `link`'s host (asked off the GUI thread); `ended`: they
    // can be applied and discarded.
    void showSession(RemoteHostLink* link, const QString& id, bool ended = false);
    // The session ended while shown.
    void setEnded(bool ended);
    // On the host: writes the changes (`paths`, or all) into its project, `force` over edits
    // made there since; drops them. Asked off the GUI thread; the list is read again after.
    void apply(const QStringList& paths = {}, bool force = false);
    void discard(const QStringList& paths = {});
    void clear();
    // Asks the host again.
    void refresh();
    // The session changed a file: asks again once such events settle.
    void fileChanged();

    QTreeWidget* list() const { return m_list; }
    QString diffText() const;
    QString messageText() const;
    int changeCount() const;
    // The paths the last apply found changed on the host since the session started.
    const QStringList& conflicts() const { return m_conflicts; }
    QPushButton* applyButton() const { return m_apply; }
    QPushButton* discardButton() const { return m_discard; }

  Q_SIGNALS:
    // The list (changesLoaded) or the selected file's diff (diffLoaded) arrived.
    void changesLoaded(int count);
    void diffLoaded();
    // An apply or discard on the host finished (its outcome in messageText()).
    void reviewDone();

  private:
    void loadDiff();
    void showMessage(const QString& text);
    void review(const QStringList& args, bool applying);
    void updateButtons();

    QPointer<RemoteHostLink> m_link;
    QString m_id;
    quint64 m_generation = 0; // an answer for another session or an older ask is dropped
    QTreeWidget* m_list;
    QPlainTextEdit* m_diff;
    QLabel* m_message;
    QPushButton* m_refresh;
    QPushButton* m_apply;
    QPushButton* m_discard;
    QFrame* m_conflictBar;
    QLabel* m_conflictLabel;
    QStringList m_conflicts;
    QString m_outcome; // of the last apply or discard, said before the list read after it
    bool m_ended = false;
    bool m_busy = false; // an apply or discard runs on the host
    QTimer m_settle;
};

} // namespace sbui
