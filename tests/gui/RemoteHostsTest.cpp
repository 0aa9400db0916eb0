// The window's remote hosts (issue 40): a real sshd on loopback (tests/support/TestSshServer.h)
// whose login has folders of its own, so the "remote" host's sessions are not this window's
// local ones. The window lists a remote session with its host named, shows its terminal, queues
// its approval card beside local ones and answers it (the remote supervisor runs the command);
// when the ssh process dies, the host is dialed again after a wait and the request still pending
// there is offered again. A session that ended there is listed, its recording fetched and
// replayed, and its changes applied there (a conflict's agent version taken with force).
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "TestSshServer.h"
#include "approvals/ApprovalCard.h"
#include "approvals/ApprovalPanel.h"
#include "files/FileReviewPanel.h"
#include "hosts/HostList.h"
#include "hosts/HostsView.h"
#include "hosts/RemoteChangesView.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "policy/PolicyEditor.h"
#include "replay/ReplayView.h"
#include "sessions/SessionHub.h"
#include "sessions/SessionListModel.h"
#include "terminal/TerminalWidget.h"

#include <QDir>
#include <QDockWidget>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>
#include <csignal>

using namespace sbgt;
using sbui::MainWindow;

namespace {

const QByteArray kAskTouch = R"({
  "version": 1,
  "network": {"mode": "none"},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch asked*"}]},
  "approvals": {"timeout_seconds": 600, "on_timeout": "deny"}
})";

const QString kHost = QStringLiteral("ssh://sbtest");
const QString kKey = QStringLiteral("ssh://sbtest/remote-a");

} // namespace

class RemoteHostsTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
        // The remote host's own folders: its sessions' sockets are not in this window's.
        const QDir root(m_remote.path());
        for (const char* sub : {"state", "data", "config", "run", "home", "workspace", "sshd"})
            QVERIFY(root.mkpath(QString::fromLatin1(sub)));
        QFile file(root.filePath(QStringLiteral("workspace/README")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("remote project\n");
        file.close();
        QFile::setPermissions(root.filePath(QStringLiteral("run")), QFileDevice::ReadOwner |
                                                                        QFileDevice::WriteOwner |
                                                                        QFileDevice::ExeOwner);
        m_env = {{"HOME", path("home").toStdString()},
                 {"XDG_STATE_HOME", path("state").toStdString()},
                 {"XDG_DATA_HOME", path("data").toStdString()},
                 {"XDG_CONFIG_HOME", path("config").toStdString()},
                 {"XDG_RUNTIME_DIR", path("run").toStdString()}};
        const std::string problem =
            m_sshd.start(path("sshd").toStdString(), cliPath().toStdString(), m_env);
        if (!problem.empty()) SBG_SKIP(QString::fromStdString(problem));
        qputenv("SANDBENCH_SSH", "ssh -F " + QByteArray::fromStdString(m_sshd.sshConfig()));
    }

    void init()
    {
        QSettings().clear();
        sbui::prompt::setNextAnswer(std::nullopt);
    }

    void aRemoteSessionIsListedAnsweredAndOfferedAgainAfterADrop()
    {
        QFile policy(QDir(m_remote.path()).filePath(QStringLiteral("policy.json")));
        QVERIFY(policy.open(QIODevice::WriteOnly));
        policy.write(kAskTouch);
        policy.close();
        QProcess session;
        session.setProcessEnvironment(remoteEnvironment());
        session.setStandardInputFile(QProcess::nullDevice());
        session.setStandardOutputFile(QProcess::nullDevice());
        session.start(cliPath(),
                      {QStringLiteral("run"), QStringLiteral("--headless"),
                       QStringLiteral("--session-id"), QStringLiteral("remote-a"),
                       QStringLiteral("--workspace"), path("workspace"), QStringLiteral("--policy"),
                       policy.fileName(), QStringLiteral("--"), QStringLiteral("bash"),
                       QStringLiteral("-c"), QStringLiteral("echo remote-agent-here; sleep 600")});
        QVERIFY(session.waitForStarted());
        QVERIFY2(
            QTest::qWaitFor(
                [&] {
                    return remoteCli({QStringLiteral("ls")}).contains(QLatin1String("remote-a"));
                },
                20000),
            session.readAllStandardError().constData());

        QVERIFY(!sbui::HostList::add(QStringLiteral("ftp://sbtest")).size());
        MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        sbui::HostsView* hosts = window.hostsView();
        window.findChild<QDockWidget*>(QStringLiteral("HostsDock"))->show();
        // Added by its ~/.ssh/config alias, as a user types it.
        QTest::keyClicks(hosts->field(), QStringLiteral("sbtest"));
        QTest::keyClick(hosts->field(), Qt::Key_Return);
        QCOMPARE(sbui::HostList::load(), QStringList{kHost});
        QCOMPARE(hosts->list()->topLevelItemCount(), 1);

        // Listed with its host named; the window's terminal shows it over the connection.
        const sbui::SessionListModel* model = window.hub()->model();
        QTRY_VERIFY_WITH_TIMEOUT(model->rowOf(kKey) >= 0, 30000);
        QVERIFY(model->rowOf(QStringLiteral("remote-a")) < 0); // not a session of this machine
        const QString text = model->index(model->rowOf(kKey), sbui::SessionListModel::SessionColumn)
                                 .data()
                                 .toString();
        QVERIFY2(text.contains(QLatin1String("sbtest")) && text.contains(QLatin1String("remote-a")),
                 qPrintable(text));
        // The dock says the host is connected, with its one session.
        QCOMPARE(window.hub()->host(kHost)->state(), sbui::RemoteHostLink::State::Connected);
        QTRY_COMPARE(hosts->list()->topLevelItem(0)->text(1),
                     sbui::RemoteHostLink::tr("connected, %n session(s)", nullptr, 1));
        QVERIFY(window.selectSession(kKey));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("remote-agent-here")), 20000);
        QVERIFY2(window.statusText().contains(QLatin1String("sbtest")),
                 qPrintable(window.statusText()));
        // Its policy file, folder and recording are on its host: not offered as local ones.
        QVERIFY(!window.tabs()->isTabVisible(window.tabs()->indexOf(window.policy())));
        QVERIFY(!window.tabs()->isTabVisible(window.tabs()->indexOf(window.replay())));
        QVERIFY(!window.tabs()->isTabVisible(window.tabs()->indexOf(window.files())));
        QVERIFY(window.tabs()->isTabVisible(window.tabs()->indexOf(window.remoteChanges())));

        // Its approval in the one queue, naming the host; answered here, run there.
        QCOMPARE(remoteExec(QStringLiteral("asked-1")), 0);
        sbui::ApprovalPanel* panel = window.approvals();
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 1, 30000);
        sbui::ApprovalCard* card = panel->cards().front();
        QCOMPARE(card->sessionId(), kKey);
        QVERIFY2(card->sourceText().contains(QLatin1String("sbtest")),
                 qPrintable(card->sourceText()));
        screenshot(window, QStringLiteral("remote-hosts"));
        card->allowButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(remoteCli({QStringLiteral("changes"), QStringLiteral("remote-a")})
                                     .contains(QLatin1String("asked-1")),
                                 30000);

        // Its changes, read from its host: the file the answered command made, and its diff.
        sbui::RemoteChangesView* changes = window.remoteChanges();
        window.tabs()->setCurrentWidget(window.terminal());
        window.tabs()->setCurrentWidget(changes);
        QTRY_VERIFY2_WITH_TIMEOUT(
            !changes->list()->findItems(QStringLiteral("asked-1"), Qt::MatchExactly).isEmpty(),
            qPrintable(changes->messageText()), 30000);
        changes->list()->setCurrentItem(
            changes->list()->findItems(QStringLiteral("asked-1"), Qt::MatchExactly).front());
        QTRY_VERIFY_WITH_TIMEOUT(changes->diffText().contains(QLatin1String("asked-1")), 30000);
        screenshot(window, QStringLiteral("remote-changes"));
        window.tabs()->setCurrentWidget(window.terminal());

        // A second request; then the ssh connection dies under it.
        QCOMPARE(remoteExec(QStringLiteral("asked-2")), 0);
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 1, 30000);
        sbui::RemoteHostLink* link = window.hub()->host(kHost);
        QVERIFY(link);
        QList<sbui::RemoteHostLink::State> states;
        connect(link, &sbui::RemoteHostLink::stateChanged, this, [&] { states << link->state(); });
        const int pid = link->transportPid();
        QVERIFY(pid > 0);
        QCOMPARE(::kill(pid, SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(states.contains(sbui::RemoteHostLink::State::Waiting), 30000);
        QVERIFY(!link->lastError().isEmpty());
        // Dialed again: the session, and its request still pending there, are back.
        QTRY_VERIFY_WITH_TIMEOUT(link->state() == sbui::RemoteHostLink::State::Connected &&
                                     link->transportPid() != pid,
                                 60000);
        QTRY_VERIFY_WITH_TIMEOUT(window.hub()->isLive(kKey), 30000);
        // Its terminal is attached again over the new connection.
        QVERIFY(window.selectSession(kKey));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("remote-agent-here")), 20000);
        QVERIFY(!window.terminal()->isReadOnly());
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 1, 30000);
        card = panel->card(kKey, window.hub()->pending(kKey).front().id);
        QVERIFY(card && card->isAnswerable());
        card->allowButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(remoteCli({QStringLiteral("changes"), QStringLiteral("remote-a")})
                                     .contains(QLatin1String("asked-2")),
                                 30000);

        // It ends while shown: its replay is fetched from the host.
        remoteCli({QStringLiteral("kill"), QStringLiteral("remote-a")});
        QVERIFY(session.waitForFinished(20000));
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(kKey) && model->rowOf(kKey) >= 0, 30000);
        QVERIFY(window.selectSession(kKey));
        QTRY_VERIFY(window.tabs()->isTabVisible(window.tabs()->indexOf(window.replay())));
        window.tabs()->setCurrentWidget(window.replay());
        sbui::ReplayView* replay = window.replay();
        QTRY_VERIFY2_WITH_TIMEOUT(replay->sessionId() == QLatin1String("remote-a"),
                                  qPrintable(replay->statusText()), 60000);
        replay->seek(replay->durationNs());
        QTRY_VERIFY_WITH_TIMEOUT(
            replay->terminal()->screenText().contains(QLatin1String("remote-agent-here")), 20000);

        // Removed, the host's sessions leave the list (they are kept there).
        hosts->removeHost(kHost);
        QTRY_VERIFY_WITH_TIMEOUT(model->rowOf(kKey) < 0, 20000);
    }

    // A session of the host that ended is listed; its replay is fetched from there and plays
    // its output; Apply all writes its change into the project on the host.
    void anEndedRemoteSessionIsReplayedAndApplied()
    {
        QVERIFY(QDir(m_remote.path()).mkpath(QStringLiteral("project-b")));
        QProcess session;
        session.setProcessEnvironment(remoteEnvironment());
        session.setStandardInputFile(QProcess::nullDevice());
        session.start(cliPath(),
                      {QStringLiteral("run"), QStringLiteral("--headless"),
                       QStringLiteral("--session-id"), QStringLiteral("remote-b"),
                       QStringLiteral("--workspace"), path("project-b"), QStringLiteral("--"),
                       QStringLiteral("bash"), QStringLiteral("-c"),
                       QStringLiteral("echo replayed-output-here; echo made-there > made.txt; "
                                      "echo agents > clash.txt")});
        QVERIFY(session.waitForFinished(60000));
        QVERIFY2(remoteCli({QStringLiteral("changes"), QStringLiteral("remote-b")})
                     .contains(QLatin1String("made.txt")),
                 session.readAllStandardError().constData());

        QCOMPARE(sbui::HostList::add(kHost), kHost);
        MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString key = QStringLiteral("ssh://sbtest/remote-b");
        const sbui::SessionListModel* model = window.hub()->model();
        QTRY_VERIFY_WITH_TIMEOUT(model->rowOf(key) >= 0, 30000);
        QCOMPARE(model->entry(key)->state, sbui::SessionEntry::State::Ended);
        QVERIFY(!window.hub()->isLive(key));
        QVERIFY(window.selectSession(key));
        // Made in the project there since the session started: a conflict.
        QFile clash(QDir(path("project-b")).filePath(QStringLiteral("clash.txt")));
        QVERIFY(clash.open(QIODevice::WriteOnly));
        clash.write("the project's own\n");
        clash.close();

        // Its recording, fetched from the host, plays as a local one's.
        QVERIFY(window.tabs()->isTabVisible(window.tabs()->indexOf(window.replay())));
        window.tabs()->setCurrentWidget(window.replay());
        sbui::ReplayView* replay = window.replay();
        QTRY_VERIFY2_WITH_TIMEOUT(replay->sessionId() == QLatin1String("remote-b"),
                                  qPrintable(replay->statusText()), 60000);
        QVERIFY2(replay->statusText().contains(key), qPrintable(replay->statusText()));
        replay->seek(replay->durationNs());
        QTRY_VERIFY_WITH_TIMEOUT(
            replay->terminal()->screenText().contains(QLatin1String("replayed-output-here")),
            20000);
        screenshot(window, QStringLiteral("remote-replay"));

        // Its changes, applied there from the Changes tab; the conflict offered as locally.
        sbui::RemoteChangesView* changes = window.remoteChanges();
        window.tabs()->setCurrentWidget(changes);
        QTRY_VERIFY2_WITH_TIMEOUT(
            !changes->list()->findItems(QStringLiteral("made.txt"), Qt::MatchExactly).isEmpty(),
            qPrintable(changes->messageText()), 30000);
        QTRY_VERIFY(changes->applyButton()->isEnabled());
        screenshot(window, QStringLiteral("remote-changes-ended"));
        QSignalSpy done(changes, &sbui::RemoteChangesView::reviewDone);
        changes->applyButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QCOMPARE(changes->conflicts(), QStringList{QStringLiteral("clash.txt")});
        QTRY_COMPARE_WITH_TIMEOUT(changes->changeCount(), 1, 30000);
        QFile made(QDir(path("project-b")).filePath(QStringLiteral("made.txt")));
        QVERIFY2(made.open(QIODevice::ReadOnly), qPrintable(changes->messageText()));
        QCOMPARE(made.readAll(), QByteArray("made-there\n"));
        screenshot(window, QStringLiteral("remote-changes-conflict"));
        // The agent's version taken: written with force.
        changes->apply(changes->conflicts(), true);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(changes->changeCount(), 0, 30000);
        QVERIFY2(changes->conflicts().isEmpty(), qPrintable(changes->messageText()));
        QVERIFY(clash.open(QIODevice::ReadOnly));
        QCOMPARE(clash.readAll(), QByteArray("agents\n"));
        QVERIFY2(changes->messageText().contains(QLatin1String("sbtest")),
                 qPrintable(changes->messageText()));
    }

    void aHostThatCannotBeReachedSaysWhy()
    {
        QVERIFY(!sbui::HostList::add(QStringLiteral("ssh://sbtest:1")).isEmpty());
        MainWindow window;
        window.resize(1024, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        sbui::RemoteHostLink* link = window.hub()->host(QStringLiteral("ssh://sbtest:1"));
        QVERIFY(link);
        QTRY_VERIFY_WITH_TIMEOUT(link->state() == sbui::RemoteHostLink::State::Waiting, 30000);
        QVERIFY2(link->lastError().contains(QLatin1String("could not reach")),
                 qPrintable(link->lastError()));
        QVERIFY2(window.hostsView()->messageText().contains(QLatin1String("sbtest:1")),
                 qPrintable(window.hostsView()->messageText()));
        QVERIFY(window.hostsView()->isVisible()); // hosts kept: the dock is shown
        screenshot(window, QStringLiteral("remote-host-unreachable"));
    }

  private:
    QString path(const char* sub) const
    {
        return QDir(m_remote.path()).filePath(QString::fromLatin1(sub));
    }

    QProcessEnvironment remoteEnvironment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const auto& [name, value] : m_env)
            env.insert(QString::fromStdString(name), QString::fromStdString(value));
        return env;
    }
    // sandbench-cli on the "remote" host, run there directly; its stdout.
    QString remoteCli(const QStringList& args) const
    {
        QProcess cli;
        cli.setProcessEnvironment(remoteEnvironment());
        cli.start(cliPath(), args);
        cli.waitForFinished(60000);
        return QString::fromLocal8Bit(cli.readAllStandardOutput());
    }
    int remoteExec(const QString& file) const
    {
        QProcess cli;
        cli.setProcessEnvironment(remoteEnvironment());
        cli.start(cliPath(),
                  {QStringLiteral("exec"), QStringLiteral("--detach"), QStringLiteral("remote-a"),
                   QStringLiteral("--"), QStringLiteral("touch"), file});
        cli.waitForFinished(60000);
        return cli.exitCode();
    }

    TestWorld m_world;
    QTemporaryDir m_remote;
    std::map<std::string, std::string> m_env;
    sbtest::TestSshServer m_sshd;
};

QTEST_MAIN(RemoteHostsTest)
#include "RemoteHostsTest.moc"
