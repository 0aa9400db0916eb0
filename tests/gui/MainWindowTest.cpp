// The workbench window against real sessions: attaching to one started in another terminal,
// reattaching after a restart, approvals answered through the window, two windows at once, a
// session started from the New session dialog, stop and kill, and a killed GUI process that
// leaves its session running.
#include "main/MainWindow.h"

#include "Clipping.h"
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "activity/ActivityView.h"
#include "approvals/ApprovalCard.h"
#include "approvals/ApprovalPanel.h"
#include "control/ControlClient.h"
#include "files/DiffView.h"
#include "files/FileReviewPanel.h"
#include "image/ImageStore.h"
#include "main/DesktopNotifier.h"
#include "main/Prompt.h"
#include "main/WelcomeView.h"
#include "policy/NetworkPolicyPage.h"
#include "policy/PolicyEditor.h"
#include "policy/RuleListEditor.h"
#include "recording/RecordingStore.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionHub.h"
#include "sessions/SessionListModel.h"
#include "settings/Language.h"
#include "terminal/TerminalWidget.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unistd.h>

using namespace sbgt;
using sbui::MainWindow;

namespace {

const QByteArray kAskTouch = R"({
  "version": 1,
  "network": {"mode": "none"},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch *"}]},
  "approvals": {"timeout_seconds": 60, "on_timeout": "deny"}
})";

QStringList noNetwork()
{
    return {QStringLiteral("--network"), QStringLiteral("none")};
}

QStringList bash(const QString& script)
{
    return {QStringLiteral("bash"), QStringLiteral("-c"), script};
}

} // namespace

class MainWindowTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void init()
    {
        QSettings().clear();
        sbui::prompt::setNextAnswer(std::nullopt);
    }

    // A session started by `sandbench-cli run` in a terminal of its own (a pty from script(1)):
    // the window finds it, shows its screen and types into it.
    void attachesToASessionStartedInATerminal()
    {
        const QString id = QStringLiteral("win-tty");
        QProcess cli;
        cli.setProgram(QStringLiteral("script"));
        cli.setArguments({QStringLiteral("-qfec"),
                          QStringLiteral("%1 run --network none --session-id %2 --workspace %3 -- "
                                         "bash -c 'echo tty-ready; read line; echo typed:$line'")
                              .arg(cliPath(), id, m_world.workspace()),
                          QStringLiteral("/dev/null")});
        cli.start();
        QVERIFY(cli.waitForStarted());
        MainWindow window;
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(window.hub()->isLive(id), 20000);
        QVERIFY(window.selectSession(id));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("tty-ready")), 20000);
        QVERIFY(!window.terminal()->isReadOnly());
        QTest::keyClicks(window.terminal(), QStringLiteral("from-gui"));
        QTest::keyClick(window.terminal(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("typed:from-gui")), 20000);
        // The event loop turns while waiting: the window hears the exit, the supervisor ends.
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->isReadOnly(), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(cli.state(), QProcess::NotRunning, 20000);
        QCOMPARE(cli.exitCode(), 0);
    }

    // Closing the window and opening a new one shows the same running session again, with the
    // screen it had (the supervisor keeps the recent output).
    void reattachesAfterARestart()
    {
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("win-reattach"), noNetwork(),
                                   bash(QStringLiteral("echo before-restart; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        {
            MainWindow first;
            first.show();
            QVERIFY(first.selectSession(session->id()));
            QTRY_VERIFY_WITH_TIMEOUT(
                first.terminal()->screenText().contains(QLatin1String("before-restart")), 20000);
            first.close();
        }
        MainWindow second;
        second.show();
        QCOMPARE(second.currentSessionId(), session->id());
        QTRY_VERIFY_WITH_TIMEOUT(
            second.terminal()->screenText().contains(QLatin1String("before-restart")), 20000);
    }

    // A command held by an ask rule appears as a card in the window; Allow lets it run.
    void approvalAllowedThroughTheWindow()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("win-allow"),
            {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
            bash(QStringLiteral("touch allowed-file && echo touch=$?; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window;
        window.show();
        QVERIFY(window.selectSession(session->id()));
        QTRY_COMPARE_WITH_TIMEOUT(window.approvals()->pendingCount(), 1, 20000);
        QVERIFY(window.windowTitle().contains(QLatin1String("1")));
        sbui::ApprovalCard* card = window.approvals()->cards().front();
        QVERIFY2(card->countdownText().contains(QLatin1String("denied")),
                 qPrintable(card->countdownText()));
        QVERIFY2(card->subjectText().contains(QLatin1String("touch allowed-file")),
                 qPrintable(card->subjectText()));
        QTest::mouseClick(card->allowButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains(QLatin1String("touch=0")),
                                 20000);
        QTRY_COMPARE_WITH_TIMEOUT(window.approvals()->pendingCount(), 0, 20000);
        QVERIFY(!window.windowTitle().contains(QLatin1String("waiting")));
        QVERIFY(QFile::exists(
            m_world.root() +
            QStringLiteral("/xdg/state/sandbench/sessions/win-allow/upper/allowed-file")));
    }

    // Deny through the keyboard shortcut: the agent's exec fails with EPERM.
    void approvalDeniedByShortcut()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("win-deny"),
            {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
            bash(QStringLiteral("touch denied-file; echo touch=$?; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window;
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.selectSession(session->id()));
        QTRY_COMPARE_WITH_TIMEOUT(window.approvals()->pendingCount(), 1, 20000);
        QTest::keyClick(&window, Qt::Key_N, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains(QLatin1String("touch=1")),
                                 20000);
        QVERIFY(window.terminal()->screenText().contains(QLatin1String("not permitted")));
    }

    // Not looking: a request to a session that is not shown, in a window that is not active,
    // gives a desktop notification and a count in the title and the sessions list.
    void notifiesWhenNotLooking()
    {
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("win-notify"),
                                   {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
                                   bash(QStringLiteral("sleep 1; touch n; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window; // never shown, so never active
        QTRY_VERIFY_WITH_TIMEOUT(window.hub()->isLive(session->id()), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(window.notifier()->sentCount(), 1, 20000);
        QVERIFY2(window.windowTitle().startsWith(QLatin1String("(1 waiting)")),
                 qPrintable(window.windowTitle()));
        const int row = window.hub()->model()->rowOf(session->id());
        QCOMPARE(
            window.hub()->model()->index(row, 0).data(sbui::SessionListModel::PendingRole).toInt(),
            1);
        QVERIFY(window.hub()->model()->index(row, 0).data().toString().startsWith(
            QLatin1String("(1)")));
    }

    // Two windows on one session: both show the request; the first answer wins and the other
    // window's card goes with the outcome.
    void twoWindowsFirstAnswerWins()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("win-two"),
            {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
            bash(QStringLiteral("touch two; echo touch=$?; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow a, b;
        a.show();
        b.show();
        QVERIFY(a.selectSession(session->id()));
        QVERIFY(b.selectSession(session->id()));
        QTRY_COMPARE_WITH_TIMEOUT(a.approvals()->pendingCount(), 1, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(b.approvals()->pendingCount(), 1, 20000);
        QTest::mouseClick(b.approvals()->cards().front()->denyButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(a.approvals()->pendingCount(), 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(a.terminal()->screenText().contains(QLatin1String("touch=1")),
                                 20000);
        QVERIFY2(a.approvals()->lastOutcomeText().contains(QLatin1String("denied")),
                 qPrintable(a.approvals()->lastOutcomeText()));
    }

    // The New session dialog starts a supervisor of its own and the window shows it.
    void newSessionFromTheDialog()
    {
        MainWindow window;
        window.show();
        QFile::copy(sourceDir() + QStringLiteral("/README.md"),
                    m_world.workspace() + QStringLiteral("/README.md"));
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            dialog.setWorkspace(m_world.workspace());
            dialog.setPreset(QStringLiteral("offline"));
            dialog.setCommand(QStringLiteral("bash -c 'echo from-dialog; ls; sleep 600'"));
            if (!checked(dialog) || !dialog.isValid()) qWarning() << dialog.problem();
            return dialog.isValid();
        });
        QSignalSpy started(&window, &MainWindow::sessionStarted);
        window.newSession();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 20000);
        const QString id = started.at(0).at(0).toString();
        QCOMPARE(window.currentSessionId(), id);
        QVERIFY2(window.hub()->isLive(id),
                 qPrintable(sbui::prompt::lastError() + window.statusText()));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("from-dialog")), 20000);
        QVERIFY(window.terminal()->screenText().contains(QLatin1String("README.md")));
        QVERIFY(window.statusText().contains(id));
        // Sized once the window has settled, not at each step of its layout (the demo's
        // recording held 80 → 141 → 102 → 93 columns in its first 0.3 s: issue 37, item 9): the
        // size it started with, then at most one resize, each a change.
        auto recordedSizes = [&] {
            std::vector<std::pair<int, int>> sizes;
            auto store = sb::RecordingStore::open();
            if (!store) return sizes;
            auto record = store->session(id.toStdString());
            if (!record) return sizes;
            sizes.emplace_back(record->rows, record->cols);
            store->forEachEvent(id.toStdString(), 0, INT64_MAX, [&](const sb::RecordedEvent& e) {
                if (e.kind != sb::EventKind::Resize) return true;
                auto size = nlohmann::json::parse(e.data, nullptr, false);
                if (size.is_object())
                    sizes.emplace_back(size.value("rows", 0), size.value("cols", 0));
                return true;
            });
            return sizes;
        };
        const std::pair<int, int> shown{window.terminal()->rows(), window.terminal()->columns()};
        auto said = [&] {
            QStringList out;
            for (const auto& [rows, cols] : recordedSizes())
                out << QStringLiteral("%1x%2").arg(cols).arg(rows);
            return QStringLiteral("started at, then resized to: %1; shown %2x%3")
                .arg(out.join(u' '))
                .arg(shown.second)
                .arg(shown.first);
        };
        QTRY_VERIFY2_WITH_TIMEOUT(!recordedSizes().empty() && recordedSizes().back() == shown,
                                  qPrintable(said()), 20000);
        QTest::qWait(500); // a resize still to come would be a second one
        const auto sizes = recordedSizes();
        QVERIFY2(sizes.size() <= 2, qPrintable(said()));
        for (std::size_t i = 1; i < sizes.size(); ++i)
            QVERIFY2(sizes[i] != sizes[i - 1], qPrintable(said()));

        sbui::prompt::setNextAnswer(true); // "Kill the session?" → Kill
        window.killSession();
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(id), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->isReadOnly(), 20000);

        // The next dialog proposes the command started last, not the first on its list.
        QString proposed;
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            proposed = dialog.commandBox()->currentText();
            return false;
        });
        window.newSession();
        QCOMPARE(proposed, QStringLiteral("bash -c 'echo from-dialog; ls; sleep 600'"));
    }

    // An imported image is offered in the dialog as the session's system; chosen, the session
    // runs on it (busybox there, this machine's python3 not).
    void newSessionOnAnImportedImage()
    {
        if (!QFile::exists(QStringLiteral("/bin/busybox")))
            SBG_SKIP("busybox-static is not installed (scripts/deps.sh)");
        const QString rootfs = m_world.root() + QStringLiteral("/rootfs");
        QVERIFY(QDir().mkpath(rootfs + QStringLiteral("/bin")));
        QVERIFY(
            QFile::copy(QStringLiteral("/bin/busybox"), rootfs + QStringLiteral("/bin/busybox")));
        QVERIFY(QFile::link(QStringLiteral("busybox"), rootfs + QStringLiteral("/bin/sh")));
        auto imported = sb::importImage("tiny", rootfs.toStdString(), false);
        QVERIFY2(imported, imported ? "" : imported.error().describe().c_str());

        MainWindow window;
        window.show();
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            dialog.setWorkspace(m_world.workspace());
            dialog.setPreset(QStringLiteral("offline"));
            dialog.setCommand(QStringLiteral(
                "/bin/busybox sh -c 'test -e /usr/bin/python3 && echo host-python || "
                "echo on-the-image; sleep 600'"));
            QComboBox* system = dialog.systemBox();
            const int tiny = system->findData(QStringLiteral("image:tiny"));
            if (tiny < 0) return false;
            system->setCurrentIndex(tiny);
            if (!checked(dialog) || !dialog.isValid()) qWarning() << dialog.problem();
            if (!dialog.effectivePolicyText().contains(QLatin1String("\"root\": \"image:tiny\"")))
                return false;
            return sbui::launchArguments(dialog.request()).contains(QStringLiteral("image:tiny")) &&
                   dialog.isValid();
        });
        QSignalSpy started(&window, &MainWindow::sessionStarted);
        window.newSession();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 20000);
        const QString id = started.at(0).at(0).toString();
        QTRY_VERIFY2_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("on-the-image")),
            qPrintable(window.terminal()->screenText()), 20000);
        sbui::prompt::setNextAnswer(true);
        window.killSession();
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(id), 20000);
    }

    // Session > Resume on an ended session with changes: the dialog, bound to its folder,
    // starts a session that goes on with them; the ended one has none left to resume.
    void resumeAnEndedSessionWithChanges()
    {
        QString error;
        auto first = HeadlessSession::start(
            m_world, QStringLiteral("to-resume"), noNetwork(),
            bash(QStringLiteral("echo from-the-first > resumed.txt; sleep 1")), &error);
        QVERIFY2(first, qPrintable(error));
        QCOMPARE(first->waitForExit(30000), 0);
        MainWindow window;
        window.show();
        QVERIFY(window.selectSession(first->id()));
        QTRY_VERIFY_WITH_TIMEOUT(window.resumeAction()->isEnabled(), 10000);
        QString title;
        bool boundToItsFolder = false;
        QStringList args;
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            title = dialog.windowTitle();
            boundToItsFolder = dialog.request().workspace == m_world.workspace() &&
                               dialog.request().resumeFrom == first->id();
            dialog.setPreset(QStringLiteral("offline"));
            dialog.setCommand(QStringLiteral("bash -c 'cat resumed.txt; sleep 600'"));
            if (!checked(dialog) || !dialog.isValid()) qWarning() << dialog.problem();
            args = sbui::launchArguments(dialog.request());
            return dialog.isValid();
        });
        QSignalSpy started(&window, &MainWindow::sessionStarted);
        window.resumeAction()->trigger();
        QVERIFY2(title.contains(first->id()), qPrintable(title));
        QVERIFY(boundToItsFolder);
        QVERIFY2(args.contains(QStringLiteral("--resume")), qPrintable(args.join(u' ')));
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 20000);
        const QString second = started.at(0).at(0).toString();
        QTRY_VERIFY2_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("from-the-first")),
            qPrintable(window.terminal()->screenText()), 20000);
        QVERIFY(!window.resumeAction()->isEnabled()); // live
        QVERIFY(window.selectSession(first->id()));
        QTRY_COMPARE(window.files()->changeCount(), 0);
        QVERIFY(!window.resumeAction()->isEnabled()); // its changes went on
        sbui::prompt::setNextAnswer(true);
        QVERIFY(window.selectSession(second));
        window.killSession();
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(second), 20000);
    }

    // First run: no sessions yet, so the window shows the welcome view with the doctor's
    // results; "Try the demo" starts the demo agent, whose session the window then shows.
    void firstRunWelcomeStartsTheDemo()
    {
        TestWorld fresh; // no sessions, no recordings
        MainWindow window;
        window.show();
        QVERIFY(window.isShowingWelcome());
        QVERIFY(!window.welcome()->checks().empty());
        QSignalSpy started(&window, &MainWindow::sessionStarted);
        QTest::mouseClick(window.welcome()->demoButton(), Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(started.count() == 1, qPrintable(sbui::prompt::lastError()),
                                  20000);
        QVERIFY(!window.isShowingWelcome());
        QTRY_VERIFY2_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("[agent]")),
            qPrintable(window.terminal()->screenText()), 30000);
        const QString id = window.currentSessionId();
        window.hub()->kill(id);
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(id), 20000);
    }

    // A dialog that refuses: a workspace that is not a folder names the problem and cannot start.
    void newSessionDialogValidates()
    {
        sbui::NewSessionDialog dialog;
        dialog.setWorkspace(m_world.root() + QStringLiteral("/no-such-folder"));
        dialog.setCommand(QStringLiteral("bash"));
        QVERIFY(checked(dialog));
        QVERIFY(!dialog.isValid());
        QVERIFY2(dialog.problem().contains(QLatin1String("no-such-folder")),
                 qPrintable(dialog.problem()));
        QVERIFY(!dialog.startButton()->isEnabled());
        // A missing folder can be made from the dialog, which then checks again.
        QVERIFY(dialog.createFolderButton()->isVisibleTo(&dialog));
        dialog.createFolderButton()->click();
        QVERIFY(QFileInfo(m_world.root() + QStringLiteral("/no-such-folder")).isDir());
        QVERIFY(checked(dialog));
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
        QVERIFY(!dialog.createFolderButton()->isVisibleTo(&dialog));
        dialog.setWorkspace(m_world.workspace());
        QVERIFY(!dialog.isValid()); // not yet checked: it cannot start
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(checked(dialog));
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
        QVERIFY(dialog.startButton()->isEnabled());
        dialog.setNetwork(QStringLiteral("host"));
        QVERIFY(checked(dialog));
        QVERIFY(dialog.warning().contains(QLatin1String("host")));
        QVERIFY(dialog.effectivePolicyText().contains(QLatin1String("\"mode\": \"host\"")));
        dialog.setCommand(QStringLiteral("bash -c 'echo unterminated"));
        QVERIFY(checked(dialog));
        QVERIFY(!dialog.isValid());
        QVERIFY2(dialog.problem().contains(QLatin1String("unterminated ' quote")),
                 qPrintable(dialog.problem()));
        dialog.setCommand(QStringLiteral("bash -c 'echo a; echo b'"));
        QCOMPARE(dialog.request().command,
                 (QStringList{QStringLiteral("bash"), QStringLiteral("-c"),
                              QStringLiteral("echo a; echo b")}));
        QVERIFY(checked(dialog));
        QVERIFY(dialog.isValid());
        const QString bad = m_world.writePolicy(R"({"version": 1, "network": {"mode": "fltered"}})",
                                                QStringLiteral("bad.json"));
        dialog.setPolicyFile(bad);
        QVERIFY(checked(dialog));
        QVERIFY(!dialog.isValid());
        QVERIFY2(dialog.problem().contains(QLatin1String("bad.json:1:")),
                 qPrintable(dialog.problem()));
        QVERIFY(dialog.problem().contains(QLatin1String("did you mean 'filtered'")));
    }

    // Issue 26 (smells): the dialog's checks read files; they run on a thread of their own once
    // typing pauses, not on the GUI thread at every key.
    void newSessionDialogChecksOnceTypingPauses()
    {
        sbui::NewSessionDialog dialog;
        dialog.setCommand(QStringLiteral("bash"));
        QVERIFY(checked(dialog));
        const int before = dialog.checksRun();
        dialog.workspaceEdit()->clear();
        QTest::keyClicks(dialog.workspaceEdit(), m_world.workspace());
        QVERIFY(dialog.isChecking());
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(checked(dialog));
        QCOMPARE(dialog.checksRun() - before, 1);
        QVERIFY2(dialog.isValid(), qPrintable(dialog.problem()));
        QVERIFY(dialog.startButton()->isEnabled());
    }

    // Stop sends SIGTERM: the session ends and the window shows it recorded.
    void stopEndsTheSession()
    {
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("win-stop"), noNetwork(),
                                   {QStringLiteral("sleep"), QStringLiteral("600")}, &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window;
        window.show();
        QVERIFY(window.selectSession(session->id()));
        window.stopSession();
        QCOMPARE(session->waitForExit(20000), 128 + 15);
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(session->id()), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusText().contains(QLatin1String("143")), 20000);
    }

    // Stop on a program that ignores SIGTERM (an interactive shell does): the window says it
    // is still running and what comes next, and the supervisor kills it after the grace period.
    void stopOnAProgramThatIgnoresItSaysSo()
    {
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("win-stop-ignored"), noNetwork(),
                                   bash(QStringLiteral("trap '' TERM; echo ready; "
                                                       "while :; do sleep 1; done")),
                                   &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window;
        window.show();
        QVERIFY(window.selectSession(session->id()));
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains(QLatin1String("ready")),
                                 20000);
        window.stopSession();
        QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("Stopping")),
                 qPrintable(window.statusBar()->currentMessage()));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.statusBar()->currentMessage().contains(QLatin1String("still running")), 10000);
        QVERIFY(window.statusBar()->currentMessage().contains(QLatin1String("Kill")));
        QCOMPARE(session->waitForExit(20000), 128 + 9); // killed at the end of the grace period
    }

    // 1024x700, the smallest screen the window is made for: it keeps that size (no tab or
    // dock makes it grow), the empty Approvals dock folds so the terminal has the room and
    // opens for a card, every tab is reachable without scrolling, and the tables show rows.
    void layoutAt1024x700()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("win-small"),
            {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
            bash(QStringLiteral("echo ready; sleep 2; touch asked; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window;
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(session->id()));
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains(QLatin1String("ready")),
                                 20000);
        const QSize size(1024, 700);
        QCOMPARE(window.size(), size);
        QVERIFY(!window.approvals()->isVisible()); // nothing waits: folded
        // The timeline takes a fifth of the height, not a third (issue 37, item 13).
        QVERIFY2(window.activity()->height() <= size.height() / 4,
                 qPrintable(QString::number(window.activity()->height())));
        QVERIFY2(window.terminal()->width() >= 600,
                 qPrintable(QString::number(window.terminal()->width())));

        QTRY_COMPARE_WITH_TIMEOUT(window.approvals()->pendingCount(), 1, 20000);
        QTRY_VERIFY(window.approvals()->isVisible());
        QVERIFY(window.approvals()->width() >= 300);
        auto* bar = window.tabs()->tabBar();
        for (int i = 0; i < window.tabs()->count(); ++i) {
            if (!window.tabs()->isTabVisible(i)) continue; // Replay, while the session runs
            window.tabs()->setCurrentIndex(i);
            QTest::qWait(50);
            QCOMPARE(window.size(), size); // no page makes the window grow
            QVERIFY2(bar->rect().contains(bar->tabRect(i)),
                     qPrintable(window.tabs()->tabText(i) + QStringLiteral(" is cut off")));
        }
        QVERIFY(window.terminal()->width() >= 300);
        // The sessions list keeps its command readable: the folder column gives way.
        QTreeView* sessions = window.sessionsView();
        QVERIFY(sessions->isColumnHidden(sbui::SessionListModel::WorkspaceColumn));
        QVERIFY2(sessions->columnWidth(sbui::SessionListModel::SessionColumn) >=
                     12 * sessions->fontMetrics().averageCharWidth(),
                 qPrintable(QString::number(
                     sessions->columnWidth(sbui::SessionListModel::SessionColumn))));

        // Rows, not slivers: the timeline and the rule table show several.
        QTreeView* timeline = window.activity()->table();
        const int rowHeight = timeline->fontMetrics().height();
        QVERIFY2(timeline->viewport()->height() >= 4 * rowHeight,
                 qPrintable(QString::number(timeline->viewport()->height())));
        window.tabs()->setCurrentWidget(window.policy());
        QTest::qWait(50);
        QWidget* rules = window.policy()->networkPage()->rules()->view()->viewport();
        QVERIFY2(rules->height() >= 3 * rowHeight, qPrintable(QString::number(rules->height())));
        screenshot(window, QStringLiteral("layout-policy"));

        // The diff's header: its parts side by side, none drawn over another.
        window.tabs()->setCurrentWidget(window.files());
        QTest::qWait(50);
        QList<QWidget*> parts;
        for (QWidget* w : window.files()->diffView()->findChildren<QWidget*>(
                 QString(), Qt::FindDirectChildrenOnly))
            if (w->isVisible() && w->y() < 40) parts << w; // the header row
        QVERIFY(parts.size() >= 2);
        for (int i = 0; i < parts.size(); ++i)
            for (int j = i + 1; j < parts.size(); ++j)
                QVERIFY2(!parts[i]->geometry().intersects(parts[j]->geometry()),
                         qPrintable(parts[i]->metaObject()->className() +
                                    QStringLiteral(" overlaps ") +
                                    parts[j]->metaObject()->className()));
    }

    // Issue 37, item 10: without a saved size the window opens within the screen's room (it
    // opened at 1360x860 on a 1024x700 screen).
    void opensWithinTheScreen()
    {
        QCOMPARE(MainWindow::initialSize(QSize(1024, 700)), QSize(1024, 700));
        QCOMPARE(MainWindow::initialSize(QSize(1920, 1080)), QSize(1360, 860));
        MainWindow window;
        const QSize screen = window.screen()->availableGeometry().size();
        QCOMPARE(window.size(), MainWindow::initialSize(screen).expandedTo(window.minimumSize()));
    }

    // Legible at the usual widths and the smallest, in German (the longer words): with a card
    // waiting and a changed file shown, nothing on any tab is cut off.
    void nothingClippedInGerman()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("win-german"),
            {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
            bash(QStringLiteral("printf 'a\\nb\\n' > notes-for-the-reviewer.md; echo ready; "
                                "touch asked; sleep 600")),
            &error);
        QVERIFY2(session, qPrintable(error));
        QVERIFY(sbui::installTranslations(QStringLiteral("de")));
        auto english = qScopeGuard([] { sbui::installTranslations(QStringLiteral("en")); });
        MainWindow window;
        window.resize(1440, 900); // the docks take their share of the first size shown
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(session->id()));
        QTRY_COMPARE_WITH_TIMEOUT(window.approvals()->pendingCount(), 1, 20000);
        QTRY_VERIFY(window.files()->selectPath(QStringLiteral("notes-for-the-reviewer.md")));
        for (const QSize size : {QSize(1440, 900), QSize(1360, 850), QSize(1024, 700)}) {
            window.resize(size);
            if (size.width() == 1440) // the folder has room (and goes at 1024: layoutAt1024x700)
                QTRY_VERIFY(!window.sessionsView()->isColumnHidden(
                    sbui::SessionListModel::WorkspaceColumn));
            for (int i = 0; i < window.tabs()->count(); ++i) {
                if (!window.tabs()->isTabEnabled(i) || !window.tabs()->isTabVisible(i)) continue;
                window.tabs()->setCurrentIndex(i);
                // The Policy tab's two pages, each with its rule table and buttons.
                QTabWidget* pages = window.policy()->pages();
                const int pageCount =
                    window.tabs()->currentWidget() == window.policy() ? pages->count() : 1;
                for (int page = 0; page < pageCount; ++page) {
                    if (pageCount > 1) pages->setCurrentIndex(page);
                    QTest::qWait(100);
                    const QStringList clipped = clippedTexts(&window);
                    QVERIFY2(clipped.isEmpty(), qPrintable(QStringLiteral("%1x%2, %3: ")
                                                               .arg(size.width())
                                                               .arg(size.height())
                                                               .arg(window.tabs()->tabText(i)) +
                                                           clipped.join(QStringLiteral("; "))));
                }
            }
        }
        for (QWidget* tab :
             {static_cast<QWidget*>(window.policy()), static_cast<QWidget*>(window.files())}) {
            window.tabs()->setCurrentWidget(tab);
            screenshot(window, tab == window.files() ? QStringLiteral("clipping-changes")
                                                     : QStringLiteral("clipping-policy"));
        }
    }

    // The GUI process killed with SIGKILL: the session it started keeps running.
    void killedGuiLeavesItsSessionRunning()
    {
        QProcess gui;
        gui.setProgram(guiPath());
        gui.setArguments({QStringLiteral("--workspace"), m_world.workspace(),
                          QStringLiteral("--network"), QStringLiteral("none"), QStringLiteral("--"),
                          QStringLiteral("sleep"), QStringLiteral("600")});
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        gui.setProcessEnvironment(env);
        gui.start();
        QVERIFY(gui.waitForStarted());
        sbui::SessionHub hub;
        auto liveSleep = [&] {
            hub.refresh();
            for (int row = 0; row < hub.model()->rowCount(); ++row) {
                const auto& e = hub.model()->entryAt(row);
                if (hub.isLive(e.id) &&
                    e.command == QStringList{QStringLiteral("sleep"), QStringLiteral("600")})
                    return e.id;
            }
            return QString();
        };
        QTRY_VERIFY_WITH_TIMEOUT(!liveSleep().isEmpty(), 20000);
        const QString id = liveSleep();
        gui.kill();
        QVERIFY(gui.waitForFinished(10000));
        QTest::qWait(300);
        hub.refresh();
        QVERIFY2(hub.isLive(id), "the session died with the GUI");
        hub.kill(id);
        QTRY_VERIFY_WITH_TIMEOUT(!hub.isLive(id), 20000);
    }

    // The window is SIGKILLed while a card waits for an answer: the session keeps waiting (a
    // vanished window is no answer), and the next window shows the card, whose answer counts.
    void killedGuiWithACardPendingLeavesItForTheNextWindow()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("win-killed-card"),
            {QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)},
            bash(QStringLiteral("touch after-kill && echo touch=$?; sleep 600")), &error);
        QVERIFY2(session, qPrintable(error));
        const qint64 supervisor = session->process().processId();
        // The supervisor's sockets: each client adds one.
        auto sockets = [supervisor] {
            int n = 0;
            const QString folder = QStringLiteral("/proc/%1/fd").arg(supervisor);
            for (const QString& fd : QDir(folder).entryList(QDir::Files | QDir::System)) {
                char target[64] = {};
                const QByteArray link = (folder + u'/' + fd).toLocal8Bit();
                if (::readlink(link.constData(), target, sizeof target - 1) > 0)
                    n += std::string_view(target).starts_with("socket:");
            }
            return n;
        };
        auto pendingTouch = [&] {
            auto client = sb::ControlClient::connect(session->id().toStdString(), "test",
                                                     sb::proto::Role::Viewer);
            if (!client) return false;
            for (const sb::ApprovalRequest& r : client.value()->pendingAtWelcome())
                if (!r.argv.empty() && r.argv[0] == "touch") return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(pendingTouch(), 20000);
        QTest::qWait(200); // the probe client is gone
        const int alone = sockets();

        QProcess gui;
        gui.setProgram(guiPath());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        gui.setProcessEnvironment(env);
        gui.start();
        QVERIFY(gui.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(sockets() > alone, 20000); // the window has attached
        QTest::qWait(500);                                  // and shows the card
        ::kill(static_cast<pid_t>(gui.processId()), SIGKILL);
        QVERIFY(gui.waitForFinished(10000));
        QTRY_COMPARE_WITH_TIMEOUT(sockets(), alone, 20000); // the supervisor saw it go

        QVERIFY2(pendingTouch(), "the request went with the killed window");
        QVERIFY(
            !QFile::exists(m_world.root() + QStringLiteral("/xdg/state/sandbench/sessions/"
                                                           "win-killed-card/upper/after-kill")));
        MainWindow next;
        next.show();
        QVERIFY(next.selectSession(session->id()));
        QTRY_COMPARE_WITH_TIMEOUT(next.approvals()->pendingCount(), 1, 20000);
        sbui::ApprovalCard* card = next.approvals()->cards().front();
        QVERIFY2(card->subjectText().contains(QLatin1String("touch after-kill")),
                 qPrintable(card->subjectText()));
        QTest::mouseClick(card->allowButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(next.terminal()->screenText().contains(QLatin1String("touch=0")),
                                 20000);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(MainWindowTest)
#include "MainWindowTest.moc"
