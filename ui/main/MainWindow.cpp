#include "MainWindow.h"

#include "DesktopNotifier.h"
#include "Prompt.h"
#include "WelcomeView.h"
#include "activity/ActivityView.h"
#include "approvals/ApprovalPanel.h"
#include "control/Protocol.h"
#include "files/FileReviewPanel.h"
#include "hosts/HostList.h"
#include "hosts/RemoteChangesView.h"
#include "models/LeakBanner.h"
#include "models/ModelUsageView.h"
#include "policy/CommandRules.h"
#include "policy/PolicyEditor.h"
#include "ports/PortsView.h"
#include "replay/ReplayView.h"
#include "results/ResultsView.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionConnection.h"
#include "sessions/SessionHistory.h"
#include "sessions/SessionHub.h"
#include "sessions/SessionListView.h"
#include "sessions/SnapshotsDialog.h"
#include "settings/RecordingCleaner.h"
#include "settings/Settings.h"
#include "settings/SettingsDialog.h"
#include "terminal/TerminalWidget.h"

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <QUrl>

namespace sbui {

namespace {

const QString kLastCommandKey = QStringLiteral("new_session/last_command");
// Long enough for the docks and tabs of a session just shown to find their places.
constexpr int kSizeSettleMs = 250;

} // namespace

MainWindow::MainWindow(sb::Clock& clock, QWidget* parent)
    : QMainWindow(parent), m_clock(clock), m_hub(new SessionHub(this)),
      m_sessions(new SessionListView(m_hub->model())), m_terminal(new TerminalWidget),
      m_approvals(new ApprovalPanel(clock)), m_activity(new ActivityView),
      m_files(new FileReviewPanel), m_policy(new PolicyEditor),
      m_replay(new ReplayView(m_activity)), m_ports(new PortsView), m_models(new ModelUsageView),
      m_results(new ResultsView), m_leakBanner(new LeakBanner), m_sessionPane(new QWidget),
      m_welcome(new WelcomeView), m_centre(new QStackedWidget), m_tabs(new QTabWidget),
      m_notifier(new DesktopNotifier(this)), m_stateLabel(new QLabel), m_policyLabel(new QLabel),
      m_cleaner(new RecordingCleaner(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/sandbench.svg")));
    resize(initialSize(screen() ? screen()->availableGeometry().size() : QSize()));
    m_terminal->setReadOnly(true);

    buildActions();
    buildDocks();
    buildCentre();
    statusBar()->addWidget(m_stateLabel);
    statusBar()->addPermanentWidget(m_policyLabel);

    connect(m_hub, &SessionHub::approvalRequested, this, &MainWindow::onApprovalRequested);
    // One queue for every session's requests, whichever session is shown.
    connect(m_hub, &SessionHub::approvalResolved, m_approvals,
            qOverload<const QString&, const sb::ApprovalOutcome&>(&ApprovalPanel::resolve));
    connect(m_hub, &SessionHub::pendingChanged, this, &MainWindow::updateTitle);
    connect(m_hub, &SessionHub::refreshed, this, &MainWindow::updateCentre);
    // The shown remote session back after its host's connection dropped: attached again.
    connect(m_hub, &SessionHub::refreshed, this, [this] {
        if (SessionKey::parse(m_current).isRemote() && m_hub->isLive(m_current) &&
            !(m_view && m_view->isOpen()))
            selectSession(m_current);
    });
    connect(m_hub, &SessionHub::sessionEnded, this, [this](const QString& id) {
        m_approvals->clearSession(id);
        if (id == m_current) updateStatus(), updateActions();
    });
    connect(m_approvals, &ApprovalPanel::answeredFor, m_hub, &SessionHub::answer);
    // Remote hosts' sessions join the list (and their requests the queue) as each connects.
    m_hub->setHosts(HostList::load());
    // What already waited when the hub found the sessions, before these connections.
    for (int row = 0; row < m_hub->model()->rowCount(); ++row) {
        const QString id = m_hub->model()->entryAt(row).key();
        for (const auto& request : m_hub->pending(id))
            m_approvals->addRequest(approvalSource(id), request);
    }
    connect(m_terminal, &TerminalWidget::titleChanged, this, [this](const QString& title) {
        m_terminalTitle = title;
        updateTitle();
    });
    connect(m_terminal, &TerminalWidget::bell, this, [this] {
        if (!isActiveWindow()) QApplication::alert(this);
    });
    connect(m_sessions->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& index) {
                if (index.isValid()) showSession(index.data(SessionListModel::IdRole).toString());
            });
    m_launchWait.setInterval(100);
    connect(&m_launchWait, &QTimer::timeout, this, &MainWindow::waitForLaunch);
    m_sizeSettle.setSingleShot(true);
    m_sizeSettle.setInterval(kSizeSettleMs);
    connect(m_terminal, &TerminalWidget::sizeChanged, &m_sizeSettle, qOverload<>(&QTimer::start));
    connect(&m_sizeSettle, &QTimer::timeout, this, [this] {
        if (m_view && !m_terminal->isReadOnly())
            m_view->resize(m_terminal->rows(), m_terminal->columns());
    });
    connect(m_cleaner, &RecordingCleaner::finished, this, [this](const CleanupResult& result) {
        if (!result.error.isEmpty())
            statusBar()->showMessage(tr("Old recordings not deleted: %1").arg(result.error), 8000);
        if (result.removed.isEmpty()) return;
        statusBar()->showMessage(tr("Deleted %n old recording(s) (%1).", nullptr,
                                    static_cast<int>(result.removed.size()))
                                     .arg(RecordingCleaner::formatBytes(result.freedBytes)),
                                 8000);
        m_hub->refresh();
    });
    connect(&Settings::instance(), &Settings::changed, this, &MainWindow::applySettings);
    applySettings();

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    m_layoutRestored = restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    restoreLastSession();
    updateTitle();
    updateStatus();
    updateActions();
}

MainWindow::~MainWindow() = default;

QSize MainWindow::initialSize(const QSize& available)
{
    const QSize wanted(1360, 860);
    return available.isValid() ? wanted.boundedTo(available) : wanted;
}

bool MainWindow::isShowingWelcome() const
{
    return m_centre->currentWidget() == m_welcome;
}

void MainWindow::updateCentre()
{
    // The first-run view until there is a session to show (or one is starting).
    const bool nothing = m_hub->model()->rowCount() == 0 && m_current.isEmpty() &&
                         !m_launchWait.isActive() && !m_policy->hasDocument();
    m_centre->setCurrentWidget(nothing ? m_welcome : m_sessionPane);
}

void MainWindow::onTabChanged(int index)
{
    // A remote session's changes are read from its host when looked at.
    if (m_tabs->widget(index) == m_remoteChanges) return m_remoteChanges->refresh();
    // A replay opens when it is looked at: a long recording is not read for nothing.
    if (m_tabs->widget(index) != m_replay || m_current.isEmpty() || m_hub->isLive(m_current))
        return;
    // A remote session's recording is fetched from its host first.
    if (SessionKey::parse(m_current).isRemote()) return openRemoteReplay();
    // Open already: it stays where it was (where the Results tab may have sent it).
    if (m_replay->sessionId() == m_current) return;
    QString error;
    m_fetchedKey.clear();
    if (!m_replay->open(m_current, &error)) statusBar()->showMessage(error, 8000);
}

void MainWindow::startDemo()
{
    LaunchRequest request;
    request.demo = true;
    startSession(request);
}

void MainWindow::setNewSessionHook(std::function<bool(NewSessionDialog&)> hook)
{
    m_newSessionHook = std::move(hook);
}

void MainWindow::setSettingsHook(std::function<bool(SettingsDialog&)> hook)
{
    m_settingsHook = std::move(hook);
}

void MainWindow::openSettings()
{
    SettingsDialog dialog(Settings::instance(), this);
    if (m_settingsHook) {
        if (m_settingsHook(dialog)) dialog.apply();
        return;
    }
    dialog.exec(); // OK and Apply store the settings themselves
}

void MainWindow::applySettings()
{
    const SettingsValues& s = Settings::instance().values();
    for (TerminalWidget* terminal : {m_terminal, m_replay->terminal()}) {
        terminal->setTerminalFont(s.terminalFont());
        terminal->setScrollbackLines(s.scrollbackLines);
    }
    m_notifier->setEnabled(s.desktopNotifications);
    // Retention at start and whenever its limits change, on the cleaner's thread; not by
    // defaults standing in for limits that could not be read.
    if (const QString problem = Settings::instance().problem(); !problem.isEmpty()) {
        statusBar()->showMessage(tr("Old recordings not deleted: %1").arg(problem), 8000);
        return;
    }
    const std::pair<int, int> retention{s.keepDays, s.keepSizeMb};
    if (retention == m_appliedRetention) return;
    m_appliedRetention = retention;
    m_cleaner->clean(s.keepDays, s.keepSizeMb, false);
}

void MainWindow::newSession()
{
    NewSessionDialog dialog(this);
    if (const SessionEntry* e = m_hub->model()->entry(m_current)) dialog.setWorkspace(e->workspace);
    // The command last started from here, not the first agent on the list each time.
    QSettings settings;
    const QString lastCommand = settings.value(kLastCommandKey).toString();
    if (!lastCommand.isEmpty()) dialog.setCommand(lastCommand);
    bool start = m_newSessionHook ? m_newSessionHook(dialog) : dialog.exec() == QDialog::Accepted;
    if (start && dialog.isValid() && startSession(dialog.request()))
        settings.setValue(kLastCommandKey, dialog.commandBox()->currentText());
}

void MainWindow::resumeSession()
{
    const SessionEntry* e = m_hub->model()->entry(m_current);
    if (!e || !m_resumeAction->isEnabled()) return;
    NewSessionDialog dialog(this);
    dialog.setResume(e->id, e->workspace);
    // A fork did not run: it starts from what the session it was forked from ran under.
    const QString from = e->recorded ? e->id : e->forkedFrom.section(QLatin1Char('@'), 0, 0);
    QString error;
    if (!from.isEmpty())
        if (auto history = loadSessionHistory(from, false, &error))
            dialog.setResumeBaseline(resumeBaseline(from, *history));
    std::vector<std::string> command;
    for (const QString& word : e->command)
        command.push_back(word.toStdString());
    dialog.setCommand(QString::fromStdString(sb::quoteCommandLine(command)));
    const bool start =
        m_newSessionHook ? m_newSessionHook(dialog) : dialog.exec() == QDialog::Accepted;
    if (start && dialog.isValid()) startSession(dialog.request());
}

void MainWindow::setSnapshotsHook(std::function<void(SnapshotsDialog&)> hook)
{
    m_snapshotsHook = std::move(hook);
}

void MainWindow::showSnapshots()
{
    if (m_current.isEmpty() || !m_snapshotsAction->isEnabled()) return;
    const bool live = m_hub->isLive(m_current);
    SnapshotsDialog dialog(m_current, live ? m_view.get() : nullptr, this);
    connect(&dialog, &SnapshotsDialog::restored, m_files,
            [this] { m_files->showSession(m_current); });
    connect(&dialog, &SnapshotsDialog::forked, this, [this](const QString& id) {
        m_hub->refresh();
        statusBar()->showMessage(tr("Forked as %1: Session → Resume… goes on with it").arg(id),
                                 8000);
    });
    if (m_snapshotsHook)
        m_snapshotsHook(dialog);
    else
        dialog.exec();
}

void MainWindow::openPolicy()
{
    if (!m_policy->openFileDialog()) return;
    updateCentre();
    m_tabs->setCurrentWidget(m_policy);
}

void MainWindow::stopSession()
{
    if (!m_hub->isLive(m_current)) return;
    const QString id = m_current;
    m_hub->stop(id);
    constexpr int kGraceSeconds = static_cast<int>(sb::proto::kStopGraceMs / 1000);
    statusBar()->showMessage(tr("Stopping session %1: its programs were asked to end.").arg(id),
                             kGraceSeconds * 1000);
    // A program may ignore the request (an interactive shell does): say so, and what comes next.
    QTimer::singleShot(2000, this, [this, id] {
        if (!m_hub->isLive(id)) return;
        statusBar()->showMessage(
            tr("Session %1 is still running: a program ignores the request to end. It is killed "
               "%2 s after Stop, or use Kill now.")
                .arg(id)
                .arg(kGraceSeconds),
            kGraceSeconds * 1000);
    });
}

void MainWindow::killSession()
{
    if (!m_hub->isLive(m_current)) return;
    if (!prompt::confirm(this, tr("Kill the session?"),
                         tr("Every program of session %1 ends at once, without a chance to "
                            "save. Its workspace changes stay reviewable.")
                             .arg(m_current),
                         tr("&Kill")))
        return;
    m_hub->kill(m_current);
}

void MainWindow::openWorkspaceFolder()
{
    const SessionEntry* e = m_hub->model()->entry(m_current);
    if (!e || !e->host.isEmpty()) return; // a folder on another machine
    m_lastOpened = e->workspace;
    QDesktopServices::openUrl(QUrl::fromLocalFile(e->workspace));
}

void MainWindow::updateTitle()
{
    QString title = tr("Sandbench");
    if (const SessionEntry* e = m_hub->model()->entry(m_current))
        title = QStringLiteral("%1 — %2").arg(
            m_terminalTitle.isEmpty() ? e->command.join(QLatin1Char(' ')) : m_terminalTitle, title);
    const int pending = m_hub->model()->totalPending();
    if (pending > 0) title = tr("(%n waiting) ", nullptr, pending) + title;
    setWindowTitle(title);
}

void MainWindow::updateStatus()
{
    const SessionEntry* e = m_hub->model()->entry(m_current);
    QString text;
    if (!e) {
        text = m_hub->recordingsProblem().isEmpty()
                   ? tr("No session selected")
                   : tr("Recordings unreadable: %1").arg(m_hub->recordingsProblem());
    } else if (!e->host.isEmpty()) {
        text = m_hub->isLive(m_current) && !m_exitStatus
                   ? tr("Session %1 running in its sandbox on %2")
                         .arg(e->id, HostList::displayName(e->host))
                   : tr("Session %1 on %2 ended").arg(e->id, HostList::displayName(e->host));
    } else if (m_hub->isLive(m_current) && !m_exitStatus) {
        text = tr("Session %1 running in the sandbox").arg(m_current);
    } else if (!e->recorded) {
        text =
            e->forkedFrom.isEmpty()
                ? tr("Session %1 has no recording; its changes wait").arg(m_current)
                : tr("Session %1, forked from %2, has not run yet").arg(m_current, e->forkedFrom);
    } else if (e->state == SessionEntry::State::Interrupted) {
        text = tr("Session %1 was interrupted (recorded)").arg(m_current);
    } else {
        const int status = e->exitStatus >= 0 ? e->exitStatus : m_exitStatus.value_or(-1);
        text = status >= 0 ? tr("Session %1 ended, exit %2 (recorded)").arg(m_current).arg(status)
                           : tr("Session %1 ended (recorded)").arg(m_current);
    }
    m_stateLabel->setText(text);
    m_policyLabel->setText(m_policyText);
}

QString MainWindow::statusText() const
{
    return m_stateLabel->text();
}

void MainWindow::updateActions()
{
    const bool live = m_hub->isLive(m_current);
    m_stopAction->setEnabled(live);
    m_killAction->setEnabled(live);
    // A remote session's folder, changes and snapshots are on its host, not in reach here.
    const SessionEntry* e = m_hub->model()->entry(m_current);
    const bool local = e && e->host.isEmpty();
    m_openAction->setEnabled(local);
    // An ended session with changes waiting (a resumed one has none left).
    m_resumeAction->setEnabled(!live && local && m_files->changeCount() > 0);
    m_snapshotsAction->setEnabled(local);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (std::exchange(m_sizedDocks, true) || m_layoutRestored) return;
    // First show without a saved layout: the session list takes a share of the width it has
    // (its commands readable on a wide screen, the terminal's room kept on a small one).
    if (auto* sessions = findChild<QDockWidget*>(QStringLiteral("SessionsDock")))
        resizeDocks({sessions}, {std::clamp(width() * 22 / 100, 250, 420)}, Qt::Horizontal);
    // The timeline likewise of the height: a third of a 700 px window was too much (issue 37,
    // item 13), a fifth leaves the centre's tabs their room and still shows several rows.
    if (auto* activity = findChild<QDockWidget*>(QStringLiteral("ActivityDock")))
        resizeDocks({activity}, {std::clamp(height() * 22 / 100, 150, 230)}, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_policy->maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept(); // sessions are separate processes: they keep running
}

void MainWindow::changeEvent(QEvent* event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::ActivationChange) updateTitle();
}

} // namespace sbui
