// A fork can be reached (issue 37, item 3): `fork --as fork-demo` makes a session with changes
// and no recording; it is listed by `sandbench-cli sessions` (text and JSON) and in the window's
// Sessions list, which shows its changes and resumes it from the policy its origin ran under.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "files/FileReviewPanel.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionHub.h"
#include "sessions/SessionListModel.h"
#include "terminal/TerminalWidget.h"

#include <QAction>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>

using namespace sbgt;
using sbui::MainWindow;

namespace {

QString cli(const QStringList& arguments, int* status = nullptr)
{
    QProcess p;
    p.start(cliPath(), arguments);
    p.waitForFinished(30000);
    if (status) *status = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
}

} // namespace

class ForkListedTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        installShotLanguage();
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void init() { QSettings().clear(); }

    void forkIsListedAndResumable()
    {
        const QString policy = m_world.writePolicy(R"({
  "version": 1, "network": {"mode": "none"}, "limits": {"wall_seconds": 180}
})");
        QString error;
        auto ended = HeadlessSession::start(m_world, QStringLiteral("fork-origin"),
                                            {QStringLiteral("--policy"), policy},
                                            {QStringLiteral("bash"), QStringLiteral("-c"),
                                             QStringLiteral("echo forked > forked.txt; sleep 1")},
                                            &error);
        QVERIFY2(ended, qPrintable(error));
        QCOMPARE(ended->waitForExit(30000), 0);
        int status = -1;
        QString out = cli({QStringLiteral("fork"), ended->id(), QStringLiteral("--as"),
                           QStringLiteral("fork-demo")},
                          &status);
        QVERIFY2(status == 0, qPrintable(out));

        // The command line lists it, marked as a fork of its origin.
        out = cli({QStringLiteral("sessions")}, &status);
        QCOMPARE(status, 0);
        QVERIFY2(out.contains(QLatin1String("fork-demo")), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("fork of fork-origin")), qPrintable(out));
        out = cli({QStringLiteral("sessions"), QStringLiteral("--json")}, &status);
        QJsonObject fork;
        for (const QJsonValue v : QJsonDocument::fromJson(out.toUtf8()).array())
            if (v[QStringLiteral("id")] == QStringLiteral("fork-demo")) fork = v.toObject();
        QCOMPARE(fork[QStringLiteral("state")].toString(), QStringLiteral("forked"));
        QCOMPARE(fork[QStringLiteral("forked_from")].toString(), QStringLiteral("fork-origin"));
        out = cli({QStringLiteral("sessions"), QStringLiteral("--state"), QStringLiteral("ended")});
        QVERIFY2(!out.contains(QLatin1String("fork-demo")), qPrintable(out));

        // The window lists it; selected, it shows its change and Resume goes on from its
        // origin's policy.
        MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(QStringLiteral("fork-demo")));
        const sbui::SessionEntry* entry = window.hub()->model()->entry(QStringLiteral("fork-demo"));
        QVERIFY(entry && !entry->recorded);
        QCOMPARE(entry->forkedFrom, QStringLiteral("fork-origin"));
        QTRY_COMPARE_WITH_TIMEOUT(window.files()->changeCount(), 1, 10000);
        QVERIFY2(window.terminal()->screenText().contains(QLatin1String("fork-origin")),
                 qPrintable(window.terminal()->screenText()));
        QTRY_VERIFY(window.resumeAction()->isEnabled());
        screenshot(window, QStringLiteral("fork-listed"));

        sbui::LaunchRequest proposed;
        window.setNewSessionHook([&](sbui::NewSessionDialog& dialog) {
            if (!checked(dialog)) return false;
            proposed = dialog.request();
            return false;
        });
        window.resumeAction()->trigger();
        QCOMPARE(proposed.resumeFrom, QStringLiteral("fork-demo"));
        QCOMPARE(proposed.policyFile, QFileInfo(policy).absoluteFilePath());
        QCOMPARE(proposed.wallSeconds, std::optional<unsigned>(180));
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(ForkListedTest)
#include "ForkListedTest.moc"
