// The review of a session's workspace: the tree of what the agent sees (live markers, change
// counts, a "changed only" filter), the diff of the selected entry, and apply / discard of a
// file, a folder or everything through the core's safe operations. A conflict (the project
// changed since the session started) is applied only after an explicit choice.
#pragma once

#include "TaskQueue.h"
#include "base/Session.h"

#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <optional>

class QAction;
class QBoxLayout;
class QLabel;
class QProgressBar;
class QToolBar;
class QTreeView;

namespace sbui {

class ChangedOnlyFilter;
class DiffView;
class WorkspaceEditor;
class WorkspaceModel;
struct EditOutcome;

class FileReviewPanel : public QWidget {
    Q_OBJECT

  public:
    explicit FileReviewPanel(QWidget* parent = nullptr);
    ~FileReviewPanel() override;

    // Loads the session (sb::loadSession) and shows its workspace, updated as the agent works.
    void showSession(const QString& sessionId);
    void clear();

    QString sessionId() const;
    int changeCount() const;
    bool isSessionLive() const { return m_live; }
    // An apply or discard is under way.
    bool isBusy() const;
    // The last outcome or error shown above the tree.
    QString messageText() const;

    // Selects `path` in the tree, expanding the folders on the way. False while it is not in
    // the tree (yet): folders on the way to a change are there at once, others once listed.
    bool selectPath(const QString& path);
    QString selectedPath() const;

    // Applies or discards `paths` (empty = everything); discard asks first when `ask`.
    void applyPaths(const QStringList& paths, bool force = false);
    void discardPaths(const QStringList& paths, bool ask = true);

    WorkspaceModel* model() const { return m_model; }
    ChangedOnlyFilter* filter() const { return m_filter; }
    QTreeView* tree() const { return m_tree; }
    DiffView* diffView() const { return m_diffView; }
    QWidget* conflictBar() const { return m_conflictBar; }
    QLabel* conflictLabel() const { return m_conflictLabel; }
    // Shown over the diff of a file that runs later, saying what it can run.
    QLabel* runLaterLabel() const { return m_runLaterLabel; }
    QProgressBar* progressBar() const { return m_progress; }
    QAction* applyAction() const { return m_apply; }
    QAction* discardAction() const { return m_discard; }
    QAction* applyAllAction() const { return m_applyAll; }
    QAction* discardAllAction() const { return m_discardAll; }
    QAction* keepRealAction() const { return m_keepReal; }
    QAction* takeAgentsAction() const { return m_takeAgents; }
    QAction* changedOnlyAction() const { return m_changedOnly; }
    QAction* refreshAction() const { return m_refresh; }

  Q_SIGNALS:
    void changeCountChanged(int count);
    // Paths now written into the real project.
    void applied(const QStringList& paths);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    void buildActions();
    void buildLayout();
    void onChangesUpdated(int count);
    void onCurrentChanged();
    void loadDiff();
    void updateActions();
    void updateConflictBar();
    void updateLiveState();
    void onEditFinished(const EditOutcome& outcome);
    void setBusy(bool busy);
    // `passing`: a plain report ("Applied 3 changes."), gone once the user moves on; the rest
    // (errors, what still needs a decision) stays until the next message.
    void showMessage(const QString& text, bool passing = false);
    QStringList selectionPaths() const; // what "Apply" and "Discard" act on

    WorkspaceModel* m_model = nullptr;
    ChangedOnlyFilter* m_filter = nullptr;
    WorkspaceEditor* m_editor = nullptr;
    QTreeView* m_tree = nullptr;
    DiffView* m_diffView = nullptr;
    QToolBar* m_viewBar = nullptr;
    QToolBar* m_editBar = nullptr;
    QBoxLayout* m_toolRow = nullptr;
    QLabel* m_countLabel = nullptr;
    QLabel* m_liveBanner = nullptr;
    QLabel* m_message = nullptr;
    QProgressBar* m_progress = nullptr;
    QWidget* m_conflictBar = nullptr;
    QLabel* m_conflictLabel = nullptr;
    QLabel* m_runLaterLabel = nullptr;
    bool m_messagePassing = false;
    QAction* m_apply = nullptr;
    QAction* m_discard = nullptr;
    QAction* m_applyAll = nullptr;
    QAction* m_discardAll = nullptr;
    QAction* m_keepReal = nullptr;
    QAction* m_takeAgents = nullptr;
    QAction* m_changedOnly = nullptr;
    QAction* m_refresh = nullptr;

    std::optional<sb::SessionInfo> m_session;
    bool m_live = false;
    int m_lastCount = 0;
    int m_readGeneration = 0;
    QTimer m_liveTimer;
    TaskQueue m_readQueue; // last: joined before the rest goes
};

} // namespace sbui
