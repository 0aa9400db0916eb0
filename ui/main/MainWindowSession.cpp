// Showing one session: starting one and waiting for its supervisor, selecting one, attaching
// a live one (terminal, approvals, activity, policy) or showing a recorded one, and finding the
// session to show when the window opens.
#include "DesktopNotifier.h"
#include "MainWindow.h"
#include "Prompt.h"
#include "activity/ActivityView.h"
#include "approvals/ApprovalPanel.h"
#include "base/ActivityKinds.h"
#include "control/Protocol.h"
#include "files/FileReviewPanel.h"
#include "hosts/HostList.h"
#include "hosts/RemoteChangesView.h"
#include "models/ModelUsageView.h"
#include "policy/PolicyEditor.h"
#include "ports/PortsView.h"
#include "replay/ReplayView.h"
#include "results/ResultsView.h"
#include "sessions/SessionConnection.h"
#include "sessions/SessionHistory.h"
#include "sessions/SessionHub.h"
#include "terminal/TerminalWidget.h"

#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeView>

namespace sbui {

namespace {

constexpr int kLaunchTimeoutMs = 20000;

QString limitText(const nlohmann::json& policy, const char* key, const QString& unit)
{
    if (!policy.is_object() || !policy.contains(key) || !policy[key].is_number()) return {};
    auto value = policy[key].get<std::uint64_t>();
    return value == 0 ? QCoreApplication::translate("sbui", "none")
                      : QLocale().toString(static_cast<qulonglong>(value)) + unit;
}

// The policy summary's words as the status bar says them.
QString modeText(const std::string& mode)
{
    if (mode == "none") return QCoreApplication::translate("sbui", "none", "network mode");
    if (mode == "filtered") return QCoreApplication::translate("sbui", "filtered");
    if (mode == "host") return QCoreApplication::translate("sbui", "host");
    return QString::fromStdString(mode);
}

QString actionText(const std::string& action)
{
    if (action == "allow") return QCoreApplication::translate("sbui", "allow");
    if (action == "ask") return QCoreApplication::translate("sbui", "ask");
    if (action == "deny") return QCoreApplication::translate("sbui", "deny");
    return QString::fromStdString(action);
}

} // namespace

void MainWindow::showTab(QWidget* page, bool shown)
{
    // A tab that does not apply (Replay while the session runs, Ports once it ended) goes, so
    // that the others keep their whole titles in a narrow centre.
    const int index = m_tabs->indexOf(page);
    m_tabs->setTabEnabled(index, shown);
    m_tabs->setTabVisible(index, shown);
}

bool MainWindow::startSession(LaunchRequest request)
{
    request.rows = m_terminal->rows() > 0 ? m_terminal->rows() : 24;
    request.cols = m_terminal->columns() > 0 ? m_terminal->columns() : 80;
    QString error;
    auto launched = launchSession(std::move(request), &error);
    if (!launched) {
        prompt::error(this, tr("The session did not start"), error);
        Q_EMIT sessionStartFailed(error);
        return false;
    }
    m_launch = *launched;
    m_launchDeadline = m_clock.monotonicMs() + kLaunchTimeoutMs;
    m_stateLabel->setText(tr("Starting session %1…").arg(m_launch.sessionId));
    m_launchWait.start();
    updateCentre();
    return true;
}

void MainWindow::waitForLaunch()
{
    m_hub->refresh();
    if (m_hub->isLive(m_launch.sessionId)) {
        m_launchWait.stop();
        selectSession(m_launch.sessionId);
        m_tabs->setCurrentWidget(m_terminal); // what a session just started is doing
        Q_EMIT sessionStarted(m_launch.sessionId);
        return;
    }
    // The supervisor writes why it stopped into its log; it exits at once when it cannot start.
    QFile log(m_launch.logFile);
    QString text =
        log.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(log.readAll()) : QString();
    const bool gone =
        m_launch.pid > 0 && !QFileInfo::exists(QStringLiteral("/proc/%1").arg(m_launch.pid));
    const bool gaveUp = gone || m_clock.monotonicMs() > m_launchDeadline;
    if (!gaveUp) return;
    m_launchWait.stop();
    if (m_hub->model()->entry(m_launch.sessionId)) { // it ran and already ended
        selectSession(m_launch.sessionId);
        return;
    }
    QString reason =
        text.trimmed().isEmpty()
            ? tr("The supervisor did not answer within %1 s.").arg(kLaunchTimeoutMs / 1000)
            : text.trimmed();
    updateStatus();
    prompt::error(this, tr("The session did not start"), reason);
    Q_EMIT sessionStartFailed(reason);
}

bool MainWindow::selectSession(const QString& id)
{
    int row = m_hub->model()->rowOf(id);
    if (row < 0) {
        m_hub->refresh();
        row = m_hub->model()->rowOf(id);
    }
    if (row < 0) return false;
    if (id != m_current && !m_policy->maybeSave()) return false;
    m_sessions->setCurrentIndex(m_hub->model()->index(row, 0));
    showSession(id); // when it was already the current row
    return true;
}

void MainWindow::showSession(const QString& id)
{
    // Shown already, unless its connection ended while it still runs (a remote host's dropped
    // and came back): then it is attached again.
    if (id == m_current && ((m_view && m_view->isOpen()) || !m_hub->isLive(id))) return;
    if (id != m_current && !m_policy->maybeSave()) {
        // Unsaved policy changes keep the session they belong to on show.
        const int row = m_hub->model()->rowOf(m_current);
        if (row >= 0) m_sessions->setCurrentIndex(m_hub->model()->index(row, 0));
        return;
    }
    m_view.reset();
    m_current = id;
    m_exitStatus.reset();
    m_terminalTitle.clear();
    m_terminal->reset();
    m_activity->clear();
    m_models->clear();
    m_results->clear();
    m_replay->close();

    const bool live = m_hub->isLive(id);
    // A remote session's folder and recording are on its host: the window sees what its
    // connection carries (terminal, approvals, activity from now on, policy), not those yet.
    const SessionKey key = SessionKey::parse(id);
    const bool remote = key.isRemote();
    // Its changes are a folder on its host: read from there, in a tab of their own.
    QWidget* changesShown = remote ? static_cast<QWidget*>(m_remoteChanges) : m_files;
    QWidget* changesHidden = remote ? static_cast<QWidget*>(m_files) : m_remoteChanges;
    const bool changesWereCurrent = m_tabs->currentWidget() == changesHidden;
    showTab(changesShown, true);
    if (changesWereCurrent) m_tabs->setCurrentWidget(changesShown);
    showTab(changesHidden, false);
    if (remote) {
        m_files->clear();
        m_remoteChanges->showSession(m_hub->host(key.host), key.id, !live);
    } else {
        m_remoteChanges->clear();
        m_files->showSession(id);
    }
    const SessionEntry* entry = m_hub->model()->entry(id);
    const bool recorded = !entry || entry->recorded; // a fork has nothing to replay
    // Before the Replay tab goes: a disabled current tab hands over to its neighbour (Policy).
    if ((live || !recorded) && m_tabs->currentWidget() == m_replay)
        m_tabs->setCurrentWidget(m_terminal);
    showTab(m_replay, !live && recorded);
    QString error;
    auto history = remote ? std::nullopt : loadSessionHistory(id, !live, &error);
    m_policyText.clear();
    if (history) {
        m_activity->model()->setSessionStart(history->startedMs);
        m_models->setSessionStart(history->startedMs);
        for (const auto& event : history->events) {
            m_activity->addEvent(event);
            m_models->addEvent(event);
            m_results->addEvent(event);
        }
        const auto& p = history->policy;
        if (p.is_object())
            m_policyText =
                tr("network %1 · commands %2 · memory %3 · processes %4 · time limit %5")
                    .arg(modeText(p.value("network", "?")),
                         actionText(p.value("commands_default", "?")),
                         limitText(p, "memory_mb", tr(" MB")), limitText(p, "pids", QString()),
                         limitText(p, "wall_seconds", tr(" s")));
    }
    // The replay, when it is looked at, fills the timeline with the same events.
    if (!live && m_tabs->currentWidget() == m_replay) onTabChanged(m_tabs->currentIndex());
    if (live) {
        attachLive(id);
    } else {
        m_terminal->setReadOnly(true);
        if (history)
            m_terminal->feed(history->screen);
        else if (!recorded)
            m_terminal->feed(
                (entry->forkedFrom.isEmpty()
                     ? tr("Session %1 has no recording, but changes waiting: review them in "
                          "Changes, or go on with them with Session → Resume….")
                           .arg(id)
                     : tr("Session %1 is a fork of %2 and has not run yet: review its changes in "
                          "Changes, or go on with them with Session → Resume….")
                           .arg(id, entry->forkedFrom))
                    .toLocal8Bit());
        else if (remote)
            m_terminal->feed(tr("Session %1 on %2 has ended: its terminal plays in Replay, read "
                                "from there, and its changes are in Changes.")
                                 .arg(key.id, HostList::displayName(key.host))
                                 .toLocal8Bit());
        else if (!error.isEmpty())
            m_terminal->feed(error.toLocal8Bit());
    }
    // A remote session's policy file is a path on its host: the editor, which reads and saves
    // files here, is not offered for it.
    if (remote)
        m_policy->showSession(nullptr);
    else if (live || !history)
        m_policy->showSession(m_view.get()); // the policy a live session runs
    else
        m_policy->showRecorded(id, policyRanUnder(*history));
    if (remote && m_tabs->currentWidget() == m_policy) m_tabs->setCurrentWidget(m_terminal);
    showTab(m_policy, !remote);
    // Port previews open this machine's loopback: a remote session's ports are on its host.
    m_ports->setConnection(remote ? nullptr : m_view.get());
    const bool ports = !remote && m_view && m_view->servesPorts();
    if (!ports && m_tabs->currentWidget() == m_ports) m_tabs->setCurrentWidget(m_terminal);
    showTab(m_ports, ports);
    QSettings().setValue(QStringLiteral("session/last"), id);
    updateCentre();
    updateTitle();
    updateStatus();
    updateActions();
    Q_EMIT currentSessionChanged(id);
}

void MainWindow::attachLive(const QString& id)
{
    QString error;
    m_view = m_hub->openInteractive(id, &error);
    if (!m_view) {
        m_terminal->setReadOnly(true);
        m_terminal->feed(tr("Cannot attach: %1\r\n").arg(error).toLocal8Bit());
        return;
    }
    SessionConnection* view = m_view.get();
    connect(view, &SessionConnection::output, m_terminal, &TerminalWidget::feed);
    connect(view, &SessionConnection::activity, m_activity, &ActivityView::addEvent);
    connect(view, &SessionConnection::activity, m_models, &ModelUsageView::addEvent);
    if (SessionKey::parse(id).isRemote())
        connect(view, &SessionConnection::activity, m_remoteChanges,
                [this](const nlohmann::json& event) {
                    if (event.value("kind", "") == sb::activity::kFile)
                        m_remoteChanges->fileChanged();
                });
    connect(view, &SessionConnection::activity, m_results, &ResultsView::addEvent);
    connect(view, &SessionConnection::exited, this, &MainWindow::onSessionExited);
    connect(view, &SessionConnection::refused, this,
            [this](const QString& message) { statusBar()->showMessage(message, 8000); });
    connect(m_terminal, &TerminalWidget::inputReady, view, &SessionConnection::sendInput);
    m_terminal->setReadOnly(false);
    view->subscribe();
    m_sizeSettle.start(); // the terminal's size, once the layout has settled
}

void MainWindow::onSessionExited(int status)
{
    m_terminal->setReadOnly(true);
    if (m_tabs->currentWidget() == m_ports) m_tabs->setCurrentWidget(m_terminal);
    showTab(m_ports, false);
    showTab(m_replay, true); // a remote one's is fetched from its host
    if (SessionKey::parse(m_current).isRemote()) m_remoteChanges->setEnded(true);
    m_exitStatus = status; // before the recording says so
    updateStatus();
    updateActions();
}

ApprovalSource MainWindow::approvalSource(const QString& id) const
{
    ApprovalSource source;
    source.sessionId = id;
    const sb::proto::SessionSummary* s = m_hub->summary(id);
    if (!s) return source;
    const SessionKey key = SessionKey::parse(id);
    QStringList words;
    for (const std::string& word : s->command)
        words << QString::fromStdString(word);
    QString command = words.join(QLatin1Char(' '));
    const QString workspace = QString::fromStdString(s->workspace);
    const QString folder = QFileInfo(workspace).fileName();
    // The session's name, its folder and what it runs: enough to tell five sessions apart.
    source.label = tr("Session %1 · %2 · %3")
                       .arg(key.id, folder.isEmpty() ? workspace : folder,
                            command.size() > 60 ? command.left(59) + QChar(0x2026) : command);
    source.details = tr("Session %1\nin %2\n%3").arg(key.id, workspace, command);
    if (key.isRemote()) { // the host first: the same session name may run on two machines
        source.label = tr("%1: %2").arg(HostList::displayName(key.host), source.label);
        source.details = tr("On %1\n%2").arg(key.host, source.details);
    }
    // The cards can say what an unanswered request becomes: the supervisor decides it.
    const std::string onTimeout = s->policy.value("on_timeout", "");
    source.onTimeoutAllows =
        onTimeout.empty() ? std::nullopt : std::optional<bool>(onTimeout == "allow");
    source.canSaveRules = !s->learnedRulesFile.empty();
    return source;
}

void MainWindow::onApprovalRequested(const QString& id, const sb::ApprovalRequest& request)
{
    m_approvals->addRequest(approvalSource(id), request);
    updateTitle();
    if (isActiveWindow()) return;
    const SessionEntry* e = m_hub->model()->entry(id);
    QString session = e ? e->command.join(QLatin1Char(' ')) : id;
    // The host and session by name: the notification is all the user sees of the request.
    if (e && !e->host.isEmpty())
        session = tr("%1 on %2 (%3)").arg(e->id, HostList::displayName(e->host), session);
    m_notifier->notify(
        id, tr("Approval needed: %1").arg(session),
        tr("%1 wants to run or reach: %2")
            .arg(session, QString::fromStdString(sb::proto::describeRequest(request))));
    QApplication::alert(this);
}

void MainWindow::restoreLastSession()
{
    // Reattach: the session shown last time if it still runs, else the newest one waiting for
    // an answer, else the newest live one.
    QString last = QSettings().value(QStringLiteral("session/last")).toString();
    if (!last.isEmpty() && m_hub->isLive(last) && selectSession(last)) return;
    const SessionListModel* model = m_hub->model();
    QString newestLive;
    for (int row = 0; row < model->rowCount(); ++row) {
        const SessionEntry& e = model->entryAt(row);
        if (!m_hub->isLive(e.key())) continue;
        if (!m_hub->pending(e.key()).empty()) {
            selectSession(e.key());
            return;
        }
        if (newestLive.isEmpty()) newestLive = e.key();
    }
    if (!newestLive.isEmpty()) selectSession(newestLive);
}

} // namespace sbui
