// Which centre tab a session opens on (issue 37, item 8): a running session shows its terminal,
// whether the window came from the replay of an ended one or a session was just started.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "replay/ReplayView.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionHub.h"
#include "terminal/TerminalWidget.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

using namespace sbgt;
using sbui::MainWindow;

namespace {

QStringList bash(const QString& script)
{
    return {QStringLiteral("bash"), QStringLiteral("-c"), script};
}

QString tabOf(const MainWindow& window)
{
    return window.tabs()->tabText(window.tabs()->currentIndex());
}

} // namespace

class SessionTabsTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void init()
    {
        QSettings().clear();
        sbui::prompt::setNextAnswer(std::nullopt);
    }

    void runningSessionOpensOnItsTerminal()
    {
        QString error;
        const QStringList noNetwork{QStringLiteral("--network"), QStringLiteral("none")};
        auto ended = HeadlessSession::start(m_world, QStringLiteral("tabs-ended"), noNetwork,
                                            bash(QStringLiteral("echo was-here; sleep 1")), &error);
        QVERIFY2(ended, qPrintable(error));
        QCOMPARE(ended->waitForExit(30000), 0);
        auto live =
            HeadlessSession::start(m_world, QStringLiteral("tabs-live"), noNetwork,
                                   bash(QStringLiteral("echo live-ready; sleep 600")), &error);
        QVERIFY2(live, qPrintable(error));

        MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        // From the replay of the ended session to the running one.
        QVERIFY(window.selectSession(ended->id()));
        QTRY_VERIFY(!window.hub()->isLive(ended->id()));
        window.tabs()->setCurrentWidget(window.replay());
        QCOMPARE(window.tabs()->currentWidget(), window.replay());
        QVERIFY(window.selectSession(live->id()));
        QVERIFY2(window.tabs()->currentWidget() == window.terminal(), qPrintable(tabOf(window)));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("live-ready")), 20000);
        screenshot(window, QStringLiteral("from-replay-to-live"));

        // A session just started from the dialog, while the replay of the ended one was shown.
        QVERIFY(window.selectSession(ended->id()));
        window.tabs()->setCurrentWidget(window.replay());
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            dialog.setWorkspace(m_world.workspace());
            dialog.setPreset(QStringLiteral("offline"));
            dialog.setCommand(QStringLiteral("bash -c 'echo started-here; sleep 600'"));
            if (!checked(dialog) || !dialog.isValid()) qWarning() << dialog.problem();
            return dialog.isValid();
        });
        QSignalSpy started(&window, &MainWindow::sessionStarted);
        window.newSession();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 20000);
        const QString id = started.at(0).at(0).toString();
        QCOMPARE(window.currentSessionId(), id);
        QVERIFY2(window.tabs()->currentWidget() == window.terminal(), qPrintable(tabOf(window)));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.terminal()->screenText().contains(QLatin1String("started-here")), 20000);
        window.hub()->kill(id);
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(id), 20000);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(SessionTabsTest)
#include "SessionTabsTest.moc"
