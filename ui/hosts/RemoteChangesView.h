// The Changes of a remote session (issue 40): its layer of changes is a folder on its host, so
// the window asks the host, over the host's connection, what `sandbench-cli changes --json`
// lists there and what `diff` says of the selected file. Read-only: applying and discarding
// wait for the session to end there (sandbench-cli --host … apply / discard).
#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

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

    // Lists session `id`'s changes on `link`'s host (asked off the GUI thread).
    void showSession(RemoteHostLink* link, const QString& id);
    void clear();
    // Asks the host again.
    void refresh();
    // The session changed a file: asks again once such events settle.
    void fileChanged();

    QTreeWidget* list() const { return m_list; }
    QString diffText() const;
    QString messageText() const;
    int changeCount() const;

  Q_SIGNALS:
    // The list (changesLoaded) or the selected file's diff (diffLoaded) arrived.
    void changesLoaded(int count);
    void diffLoaded();

  private:
    void loadDiff();
    void showMessage(const QString& text);

    QPointer<RemoteHostLink> m_link;
    QString m_id;
    quint64 m_generation = 0; // an answer for another session or an older ask is dropped
    QTreeWidget* m_list;
    QPlainTextEdit* m_diff;
    QLabel* m_message;
    QPushButton* m_refresh;
    QTimer m_settle;
};

} // namespace sbui
