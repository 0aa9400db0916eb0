// How the window is put together: its actions, menus and toolbar, the docks (sessions,
// approvals, activity) and the centre (welcome, or the Terminal / Changes / Policy / Replay tabs).
#include "DesktopNotifier.h"
#include "MainWindow.h"
#include "Prompt.h"
#include "WelcomeView.h"
#include "activity/ActivityView.h"
#include "approvals/ApprovalPanel.h"
#include "control/Protocol.h"
#include "files/FileReviewPanel.h"
#include "hosts/HostList.h"
#include "hosts/HostsView.h"
#include "hosts/RemoteChangesView.h"
#include "models/LeakBanner.h"
#include "models/ModelUsageView.h"
#include "policy/PolicyDocument.h"
#include "policy/PolicyEditor.h"
#include "ports/PortsView.h"
#include "replay/ReplayTime.h"
#include "replay/ReplayView.h"
#include "results/ResultsView.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionConnection.h"
#include "sessions/SessionHistory.h"
#include "sessions/SessionHub.h"
#include "settings/RecordingCleaner.h"
#include "settings/Settings.h"
#include "settings/SettingsDialog.h"
#include "terminal/TerminalWidget.h"

#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QShortcut>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace sbui {

void MainWindow::buildActions()
{
    m_newAction =
        new QAction(QIcon(QStringLiteral(":/icons/new-session.svg")), tr("&New session…"), this);
    m_newAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+T")));
    m_newAction->setToolTip(tr("Start an agent in a new sandbox (Ctrl+Shift+T)"));
    connect(m_newAction, &QAction::triggered, this, &MainWindow::newSession);

    m_stopAction = new QAction(QIcon(QStringLiteral(":/icons/stop.svg")), tr("&Stop"), this);
    m_stopAction->setToolTip(tr("Ask the session's programs to end (SIGTERM)"));
    connect(m_stopAction, &QAction::triggered, this, &MainWindow::stopSession);

    m_resumeAction = new QAction(tr("&Resume…"), this);
    m_resumeAction->setToolTip(
        tr("Start a new session that goes on with this ended session's changes"));
    connect(m_resumeAction, &QAction::triggered, this, &MainWindow::resumeSession);
    m_snapshotsAction = new QAction(tr("S&napshots…"), this);
    m_snapshotsAction->setToolTip(
        tr("Keep a copy of this session's changes, restore one, or fork a new session from it"));
    connect(m_snapshotsAction, &QAction::triggered, this, &MainWindow::showSnapshots);
    m_killAction = new QAction(QIcon(QStringLiteral(":/icons/kill.svg")), tr("&Kill"), this);
    m_killAction->setToolTip(tr("End the session's programs at once (SIGKILL)"));
    connect(m_killAction, &QAction::triggered, this, &MainWindow::killSession);

    m_openAction = new QAction(QIcon(QStringLiteral(":/icons/folder.svg")),
                               tr("Open &workspace folder"), this);
    m_openAction->setToolTip(tr("Open the real project folder in the file manager"));
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openWorkspaceFolder);

    auto* demo =
        new QAction(QIcon(QStringLiteral(":/icons/sandbench.svg")), tr("Start the &demo"), this);
    demo->setToolTip(tr("A scripted agent over a fresh copy of a small demo project"));
    connect(demo, &QAction::triggered, this, &MainWindow::startDemo);

    auto* quit = new QAction(tr("&Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    quit->setToolTip(tr("Close the window; sessions keep running"));
    connect(quit, &QAction::triggered, this, &QWidget::close);

    auto* settings = new QAction(tr("Se&ttings…"), this);
    settings->setShortcut(QKeySequence(QStringLiteral("Ctrl+,")));
    settings->setMenuRole(QAction::PreferencesRole);
    settings->setToolTip(tr("Terminal font, new session defaults, notifications, recordings, "
                            "language"));
    connect(settings, &QAction::triggered, this, &MainWindow::openSettings);

    // The desktop's order: File (starting things, and Quit), Edit, then the app's own menus.
    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addActions({m_newAction, demo});
    fileMenu->addSeparator();
    fileMenu->addAction(quit);
    QMenu* sessionMenu = new QMenu(tr("&Session"), menuBar());
    sessionMenu->setObjectName(QStringLiteral("SessionMenu")); // buildDocks adds Remote hosts
    sessionMenu->addActions(
        {m_stopAction, m_killAction, m_resumeAction, m_snapshotsAction, m_openAction});
    // Policies are files of their own: opened and saved without a session.
    QMenu* policyMenu = new QMenu(tr("&Policy"), menuBar());
    QAction* openPolicy = policyMenu->addAction(tr("Open &policy…"));
    openPolicy->setToolTip(tr("Open a policy file to edit its network and command rules"));
    connect(openPolicy, &QAction::triggered, this, &MainWindow::openPolicy);
    QAction* suggest = policyMenu->addAction(tr("&Suggest from sessions…"));
    suggest->setToolTip(tr("Propose a policy from recorded sessions: rules for what they did "
                           "that a policy would ask about, with their evidence"));
    connect(suggest, &QAction::triggered, this, &MainWindow::suggestPolicy);
    policyMenu->addActions(
        {m_policy->saveAction(), m_policy->saveAsAction(), m_policy->revertAction()});
    QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
    editMenu->addAction(settings);
    menuBar()->addMenu(sessionMenu);
    menuBar()->addMenu(policyMenu);

    // The Sessions list from anywhere (the terminal takes Tab).
    auto* toSessions = new QAction(tr("Go to the sessions &list"), this);
    toSessions->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+L")));
    toSessions->setShortcutContext(Qt::WindowShortcut);
    connect(toSessions, &QAction::triggered, this, [this] {
        if (auto* dock = findChild<QDockWidget*>(QStringLiteral("SessionsDock"))) dock->show();
        m_sessions->setFocus(Qt::ShortcutFocusReason);
    });
    sessionMenu->addSeparator();
    sessionMenu->addAction(toSessions);

    QToolBar* tools = addToolBar(tr("Session"));
    tools->setObjectName(QStringLiteral("SessionToolBar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tools->addActions({m_newAction, m_stopAction, m_killAction, m_openAction});
}

void MainWindow::stepTab(int step)
{
    const int count = m_tabs->count();
    for (int i = 1; i < count; ++i) {
        const int index = ((m_tabs->currentIndex() + step * i) % count + count) % count;
        if (m_tabs->isTabVisible(index) && m_tabs->isTabEnabled(index))
            return m_tabs->setCurrentIndex(index);
    }
}

void MainWindow::buildDocks()
{
    auto dock = [this](QWidget* widget, const QString& title, const char* name,
                       Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QString::fromLatin1(name));
        d->setWidget(widget);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
        addDockWidget(area, d);
        return d;
    };
    // Sized at the first show, to the window's width (MainWindow::showEvent).
    dock(m_sessions, tr("Sessions"), "SessionsDock", Qt::LeftDockWidgetArea);
    // Under the sessions; shown while there are hosts, else from Session → Remote hosts.
    m_hostsView = new HostsView(m_hub);
    QDockWidget* hosts = dock(m_hostsView, tr("Remote hosts"), "HostsDock", Qt::LeftDockWidgetArea);
    hosts->setFeatures(hosts->features() | QDockWidget::DockWidgetClosable);
    hosts->setVisible(!HostList::load().isEmpty());
    hosts->toggleViewAction()->setText(tr("Remote &hosts"));
    hosts->toggleViewAction()->setToolTip(
        tr("Hosts reached over ssh whose sessions this window shows and answers"));
    if (auto* menu = findChild<QMenu*>(QStringLiteral("SessionMenu"))) {
        menu->addSeparator();
        menu->addAction(hosts->toggleViewAction());
    }
    QDockWidget* approvals =
        dock(m_approvals, tr("Approvals"), "ApprovalsDock", Qt::RightDockWidgetArea);
    m_approvals->setTitleVisible(false);
    m_approvals->setMinimumWidth(300); // a card's buttons and choices side by side
    // Nothing waiting: the dock folds to a slim bar, and the terminal gets the room; the first
    // card opens it again (it stays open while an answered card shows its outcome).
    auto fold = [this, approvals] {
        const int count = m_approvals->pendingCount();
        approvals->setWindowTitle(count > 0 ? tr("Approvals (%1 waiting)").arg(count)
                                            : tr("Approvals: none waiting"));
        const bool open = !m_approvals->cards().empty();
        if (open == m_approvals->isVisibleTo(approvals)) return;
        const auto vertical = QDockWidget::DockWidgetVerticalTitleBar;
        approvals->setFeatures(open ? approvals->features() & ~vertical
                                    : approvals->features() | vertical);
        m_approvals->setVisible(open);
        if (open) resizeDocks({approvals}, {360}, Qt::Horizontal);
    };
    connect(m_approvals, &ApprovalPanel::pendingCountChanged, approvals, fold);
    connect(m_approvals, &ApprovalPanel::cardRemoved, approvals, fold, Qt::QueuedConnection);
    QDockWidget* activity =
        dock(m_activity, tr("Activity"), "ActivityDock", Qt::BottomDockWidgetArea);
    resizeDocks({activity}, {230}, Qt::Vertical);
    fold();
}

void MainWindow::buildCentre()
{
    m_tabs->setDocumentMode(true);
    // Narrow (1024 px, German, a card waiting), the tabs shorten their titles rather than hide
    // the last ones behind scroll arrows.
    m_tabs->setUsesScrollButtons(false);
    m_tabs->setElideMode(Qt::ElideRight);
    // The review and replay pages' toolbars must not set the window's minimum width: they
    // squeeze (their toolbars fold) so the terminal and the approval cards keep their room.
    for (QWidget* page : {static_cast<QWidget*>(m_files), static_cast<QWidget*>(m_replay),
                          static_cast<QWidget*>(m_policy)})
        page->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_tabs->addTab(m_terminal, QIcon(QStringLiteral(":/icons/command.svg")), tr("Terminal"));
    m_tabs->addTab(m_files, QIcon(QStringLiteral(":/icons/file.svg")), tr("Changes"));
    // A remote session's Changes, read over its host's connection; offered in place of the
    // local one's when one is shown.
    m_remoteChanges = new RemoteChangesView;
    m_remoteChanges->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_tabs->addTab(m_remoteChanges, QIcon(QStringLiteral(":/icons/file.svg")), tr("Changes"));
    showTab(m_remoteChanges, false);
    connect(m_remoteChanges, &RemoteChangesView::changesLoaded, this, [this](int count) {
        m_tabs->setTabText(m_tabs->indexOf(m_remoteChanges),
                           count > 0 ? tr("Changes (%1)").arg(count) : tr("Changes"));
    });
    m_tabs->addTab(m_policy, QIcon(QStringLiteral(":/icons/policy.svg")), tr("Policy"));
    m_policy->setActivitySource(m_activity->model());
    connect(m_policy, &PolicyEditor::documentChanged, this, &MainWindow::updateCentre);
    // A session whose policy was saved into a file (from the built-in one) can keep rules now.
    connect(m_policy, &PolicyEditor::sessionUpdated, this, [this] {
        m_approvals->setCanSaveRules(m_policy->document()->sessionId(),
                                     !m_policy->document()->learnedPath().isEmpty());
    });
    connect(m_policy, &PolicyEditor::modifiedChanged, this, [this](bool modified) {
        m_tabs->setTabText(m_tabs->indexOf(m_policy),
                           modified ? tr("Policy (modified)") : tr("Policy"));
    });
    m_tabs->addTab(m_ports, QIcon(QStringLiteral(":/icons/network.svg")), tr("Ports"));
    connect(m_ports, &PortsView::listeningCountChanged, this, [this](int count) {
        m_tabs->setTabText(m_tabs->indexOf(m_ports),
                           count > 0 ? tr("Ports (%1)").arg(count) : tr("Ports"));
    });
    m_tabs->addTab(m_replay, QIcon(QStringLiteral(":/icons/recorded.svg")), tr("Replay"));
    m_tabs->addTab(m_models, QIcon(QStringLiteral(":/icons/network.svg")), tr("Models"));
    connect(m_models, &ModelUsageView::countsChanged, this, [this](int requests, int leaks) {
        m_tabs->setTabText(m_tabs->indexOf(m_models),
                           leaks > 0      ? tr("Models (%n leak(s)!)", nullptr, leaks)
                           : requests > 0 ? tr("Models (%1)").arg(requests)
                                          : tr("Models"));
        m_leakBanner->setLeaks(m_models->totals().leaks());
        // Only a session that spoke to a model has the tab (a narrow centre keeps its titles).
        const bool shown = requests > 0 || leaks > 0;
        if (!shown && m_tabs->currentWidget() == m_models) m_tabs->setCurrentWidget(m_terminal);
        showTab(m_models, shown);
    });
    showTab(m_models, false); // until the session speaks to a model
    // What a code interpreter's code produced (charts, tables): only a session that ran code
    // has the tab.
    m_tabs->addTab(m_results, QIcon(QStringLiteral(":/icons/command.svg")), tr("Results"));
    // During a replay its title counts what had run at the position: "Results (3/7)".
    auto resultsTitle = [this] {
        const int executions = m_results->count();
        const std::optional<int> reached = m_results->reached();
        m_tabs->setTabText(m_tabs->indexOf(m_results),
                           executions == 0 ? tr("Results")
                           : reached       ? tr("Results (%1/%2)").arg(*reached).arg(executions)
                                           : tr("Results (%1)").arg(executions));
    };
    connect(m_results, &ResultsView::countChanged, this, [this, resultsTitle](int executions) {
        resultsTitle();
        if (executions == 0 && m_tabs->currentWidget() == m_results)
            m_tabs->setCurrentWidget(m_terminal);
        showTab(m_results, executions > 0);
    });
    showTab(m_results, false);
    // The tab follows the replay of the session it shows; a click on an execution goes there.
    connect(m_replay, &ReplayView::executionsReached, this,
            [this, resultsTitle](int executions, qint64 ns) {
                const std::optional<int> before = m_results->reached();
                m_results->setReached(executions, formatReplayTime(ns));
                if (m_results->reached() != before) resultsTitle();
            });
    connect(m_replay, &ReplayView::closed, this, [this, resultsTitle] {
        m_results->setReached(std::nullopt);
        resultsTitle();
    });
    connect(m_results, &ResultsView::executionActivated, m_replay, &ReplayView::seekToExecution);
    connect(m_leakBanner, &LeakBanner::detailsRequested, this,
            [this] { m_tabs->setCurrentWidget(m_models); });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);
    // Ctrl+PgUp / Ctrl+PgDn and Alt+1…5 between the tabs that apply (the terminal leaves them).
    auto shortcut = [this](const QKeySequence& keys, auto slot) {
        auto* s = new QShortcut(keys, this);
        s->setContext(Qt::WindowShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown), [this] { stepTab(1); });
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp), [this] { stepTab(-1); });
    for (int n = 1; n <= 5; ++n)
        shortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_0 + n)), [this, n] {
            int shown = 0;
            for (int i = 0; i < m_tabs->count(); ++i)
                if (m_tabs->isTabVisible(i) && m_tabs->isTabEnabled(i) && ++shown == n)
                    return m_tabs->setCurrentIndex(i);
        });
    connect(m_files, &FileReviewPanel::changeCountChanged, this, [this](int count) {
        m_tabs->setTabText(m_tabs->indexOf(m_files),
                           count > 0 ? tr("Changes (%1)").arg(count) : tr("Changes"));
        updateActions(); // Resume needs changes to go on with
    });
    connect(m_welcome, &WelcomeView::demoRequested, this, &MainWindow::startDemo);
    connect(m_welcome, &WelcomeView::newSessionRequested, this, &MainWindow::newSession);
    m_centre->addWidget(m_welcome);
    auto* pane = new QVBoxLayout(m_sessionPane);
    pane->setContentsMargins(0, 0, 0, 0);
    pane->setSpacing(0);
    pane->addWidget(m_leakBanner);
    pane->addWidget(m_tabs, 1);
    m_centre->addWidget(m_sessionPane);
    setCentralWidget(m_centre);
}

} // namespace sbui
