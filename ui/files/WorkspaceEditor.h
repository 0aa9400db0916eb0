// Applies or discards a session's changes through the core (applyChanges, discardChanges) on
// a worker thread, with progress. Like `sandbench-cli apply --no-wait`, it refuses while the
// session runs (the core's checkWorkspaceEditable) and holds the session's lock meanwhile, so
// no supervisor starts over the layer it edits.
#pragma once

#include "TaskQueue.h"
#include "base/Session.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

namespace sbui {

struct EditIssue {
    QString path;
    QString reason;
};

struct EditOutcome {
    enum class Operation { Apply, Discard };
    Operation operation = Operation::Apply;
    bool forced = false;
    QString error;    // the core's message when nothing could be done at all
    QStringList done; // the paths applied or discarded
    QList<EditIssue> conflicts;
    QList<EditIssue> skipped;
    QList<EditIssue> held; // files that run later, left in the session (the reason: what they run)
};

class WorkspaceEditor : public QObject {
    Q_OBJECT

  public:
    explicit WorkspaceEditor(QObject* parent = nullptr);
    ~WorkspaceEditor() override;

    // Empty `paths` = every change; a folder means everything in it. Files that run later
    // are held back unless `runLater` is set, which needs `paths` (the user confirmed them).
    void apply(const sb::SessionInfo& session, const QStringList& paths, bool force,
               bool runLater = false);
    void discard(const sb::SessionInfo& session, const QStringList& paths);
    bool isBusy() const { return m_busy; }

  Q_SIGNALS:
    // Entries done of those selected; at most once per percent.
    void progress(int done, int total);
    void finished(const sbui::EditOutcome& outcome);

  private:
    void finish(EditOutcome outcome);

    bool m_busy = false;
    TaskQueue m_queue; // last: joined before the rest goes
};

} // namespace sbui
