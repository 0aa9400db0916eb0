// The workbench window: the sessions list (left), the selected session's terminal (centre),
// its approval cards (right) and activity timeline (bottom), with stop, kill and "open
// workspace folder". A client of the supervisors' control sockets, like sandbench-cli attach:
// closing or crashing the window never ends a session.
#pragma once

#include "approvals/ApprovalCard.h"
#include "base/Clock.h"
#include "policy/Approval.h"
#include "sessions/SessionLauncher.h"

#include <QMainWindow>
#include <QPointer>
#include <QTemporaryDir>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>

class QLabel;
class QStackedWidget;
class QTabWidget;
class QTreeView;
class QAction;

namespace sbui {

class ActivityView;
class ApprovalPanel;
class DesktopNotifier;
class FileReviewPanel;
class HostsView;
class RemoteChangesView;
class LeakBanner;
class ModelUsageView;
class ResultsView;
class NewSessionDialog;
class PolicyEditor;
class RecordingCleaner;
class PortsView;
class ReplayView;
class SnapshotsDialog;
class SessionConnection;
class SessionHub;
class SettingsDialog;
class TerminalWidget;
class WelcomeView;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(sb::Clock& clock = sb::Clock::system(), QWidget* parent = nullptr);
    ~MainWindow() override;

    // The size the window opens at without a saved one: 1360x860, or the screen's room when it
    // has less (a 1024x700 screen).
    static QSize initialSize(const QSize& available);

    // The session shown, or empty.
    QString currentSessionId() const { return m_current; }
    bool selectSession(const QString& id);
    // Starts a session as its own supervisor process and shows it once it is up; false (with
    // the reason shown) when it cannot start.
    bool startSession(LaunchRequest request);
    // Opens the New session dialog (or hands it to the test hook) and starts what it asks.
    void newSession();
    // The New session dialog set to go on with the shown session's changes (an ended session
    // that has some), and the session it asks for.
    void resumeSession();
    // Session → Snapshots…: the shown session's snapshots (take, restore, fork); a test hook
    // gets the dialog instead of exec().
    void showSnapshots();
    void setSnapshotsHook(std::function<void(SnapshotsDialog&)> hook);
    // The built-in demo: a scripted agent over a fresh copy of the demo project.
    void startDemo();
    void stopSession();
    void killSession();
    void openWorkspaceFolder();
    // File > Open policy…: a policy file in the Policy tab, without a session.
    void openPolicy();
    // Policy → Suggest from sessions… (MainWindowLearning.cpp).
    void suggestPolicy();
    // Settings… (or the test hook, which edits the dialog and returns whether to apply).
    void openSettings();

    // Tests: instead of exec(), the dialog is given to `hook`, which fills it and returns
    // whether to start.
    void setNewSessionHook(std::function<bool(NewSessionDialog&)> hook);
    void setSettingsHook(std::function<bool(SettingsDialog&)> hook);
    SessionHub* hub() const { return m_hub; }
    TerminalWidget* terminal() const { return m_terminal; }
    ApprovalPanel* approvals() const { return m_approvals; }
    ActivityView* activity() const { return m_activity; }
    FileReviewPanel* files() const { return m_files; }
    ReplayView* replay() const { return m_replay; }
    PortsView* ports() const { return m_ports; }
    // The Models tab, and the red bar over the tabs while the session has attempted leaks.
    ModelUsageView* models() const { return m_models; }
    ResultsView* results() const { return m_results; }
    LeakBanner* leakBanner() const { return m_leakBanner; }
    QAction* resumeAction() const { return m_resumeAction; }
    QAction* snapshotsAction() const { return m_snapshotsAction; }
    PolicyEditor* policy() const { return m_policy; }
    WelcomeView* welcome() const { return m_welcome; }
    // True while the first-run view is shown instead of the session tabs.
    bool isShowingWelcome() const;
    QTabWidget* tabs() const { return m_tabs; }
    QTreeView* sessionsView() const { return m_sessions; }
    DesktopNotifier* notifier() const { return m_notifier; }
    // The Hosts dock: remote hosts, their connections and last errors (issue 40).
    HostsView* hostsView() const { return m_hostsView; }
    // The Changes tab of a remote session (in place of files()).
    RemoteChangesView* remoteChanges() const { return m_remoteChanges; }
    // Deletes the recordings beyond the retention limits, at start and when they change.
    RecordingCleaner* recordingCleaner() const { return m_cleaner; }
    QString statusText() const;
    // The folder the last "open workspace folder" asked the desktop to open.
    QString lastOpenedFolder() const { return m_lastOpened; }

  Q_SIGNALS:
    void currentSessionChanged(const QString& id);
    // A session this window started is up and shown.
    void sessionStarted(const QString& id);
    void sessionStartFailed(const QString& reason);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void buildActions();
    void buildDocks();
    void buildCentre();
    void updateCentre();
    void onTabChanged(int index);
    void showTab(QWidget* page, bool shown);
    // The next (1) or previous (-1) tab that applies, round the end.
    void stepTab(int step);
    void showSession(const QString& id);
    void attachLive(const QString& id);
    void onApprovalRequested(const QString& id, const sb::ApprovalRequest& request);
    ApprovalSource approvalSource(const QString& id) const;
    void onSessionExited(int status);
    // The shown remote session's recording, fetched from its host into a file here off the GUI
    // thread (MainWindowRemote.cpp), in the Replay tab.
    // `asked`: the host's list of recorded sessions was asked for first (the size is in it).
    void openRemoteReplay(bool asked = false);
    void waitForLaunch();
    void updateTitle();
    void updateStatus();
    void updateActions();
    void restoreLastSession();
    void applySettings();

    sb::Clock& m_clock;
    SessionHub* m_hub;
    QTreeView* m_sessions;
    TerminalWidget* m_terminal;
    ApprovalPanel* m_approvals;
    ActivityView* m_activity;
    FileReviewPanel* m_files;
    PolicyEditor* m_policy;
    ReplayView* m_replay;
    PortsView* m_ports;
    ModelUsageView* m_models;
    ResultsView* m_results;
    LeakBanner* m_leakBanner;
    QWidget* m_sessionPane; // the leak banner over the tabs
    WelcomeView* m_welcome;
    QStackedWidget* m_centre;
    QTabWidget* m_tabs;
    DesktopNotifier* m_notifier;
    HostsView* m_hostsView = nullptr;
    RemoteChangesView* m_remoteChanges = nullptr;
    QLabel* m_stateLabel;
    QLabel* m_policyLabel;
    QAction *m_newAction, *m_stopAction, *m_killAction, *m_resumeAction, *m_openAction;
    QAction* m_snapshotsAction;
    std::unique_ptr<SessionConnection> m_view; // the shown live session's terminal and events
    bool m_layoutRestored = false;             // the user's dock layout came back from the settings
    bool m_sizedDocks = false;
    QString m_current;
    QString m_policyText;
    std::optional<int> m_exitStatus; // the shown session's, as its supervisor announced it
    QString m_terminalTitle;
    QString m_lastOpened;
    std::function<bool(NewSessionDialog&)> m_newSessionHook;
    std::function<bool(SettingsDialog&)> m_settingsHook;
    std::function<void(SnapshotsDialog&)> m_snapshotsHook;
    RecordingCleaner* m_cleaner;
    std::pair<int, int> m_appliedRetention{-1, -1}; // days, MB
    // A session being started: shown as soon as its supervisor answers.
    Launched m_launch;
    QTimer m_launchWait;
    qint64 m_launchDeadline = 0;
    // The terminal's size goes to the session once the layout has settled: a session starting
    // while docks and tabs find their places is resized once, not at every step.
    QTimer m_sizeSettle;
    // Remote recordings fetched for the Replay tab: the folder (made when first needed), the
    // file shown, whose session, and which fetch is the latest (an older one's answer is dropped).
    std::unique_ptr<QTemporaryDir> m_fetchDir;
    QString m_fetchedFile, m_fetchedKey;
    quint64 m_replayFetch = 0;
};

} // namespace sbui
