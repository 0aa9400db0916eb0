// Session → Resume… starts from what the ended session ran under (issue 37, item 2): its policy
// file (or a copy of the recorded policy when the file is gone) and its limits, and the dialog
// calls out any choice that loosens them.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "sessions/NewSessionDialog.h"
#include "sessions/SessionHub.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>

using namespace sbgt;
using sbui::MainWindow;
using sbui::NewSessionDialog;

namespace {

const QByteArray kPolicy = R"({
  "version": 1,
  "network": {"mode": "filtered", "default": "deny"},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch *"}]},
  "limits": {"memory_mb": 2048, "pids": 256}
})";

QString phrase(const char* text, int ran)
{
    return QCoreApplication::translate("sbui::ResumeBaseline", text).arg(QLocale().toString(ran));
}

} // namespace

class ResumeTest : public QObject {
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

    void resumeStartsFromWhatTheSessionRanUnder()
    {
        const QString path = m_world.writePolicy(kPolicy, QStringLiteral("own.json"));
        QString error;
        auto ended = HeadlessSession::start(m_world, QStringLiteral("resume-own"),
                                            {QStringLiteral("--policy"), path,
                                             QStringLiteral("--network"), QStringLiteral("none"),
                                             QStringLiteral("--timeout"), QStringLiteral("180")},
                                            {QStringLiteral("bash"), QStringLiteral("-c"),
                                             QStringLiteral("echo kept > kept.txt; sleep 1")},
                                            &error);
        QVERIFY2(ended, qPrintable(error));
        QCOMPARE(ended->waitForExit(30000), 0);

        MainWindow window;
        window.show();
        QVERIFY(window.selectSession(ended->id()));
        QTRY_VERIFY_WITH_TIMEOUT(window.resumeAction()->isEnabled(), 10000);

        sbui::LaunchRequest proposed;
        QString firstWarning, looser;
        window.setNewSessionHook([&](NewSessionDialog& dialog) {
            if (!checked(dialog)) return false;
            proposed = dialog.request();
            firstWarning = dialog.warning();
            screenshotAsIs(dialog, QStringLiteral("resume-dialog"));
            // Lifting the time limit and opening the network: both called out.
            dialog.wallBox()->setValue(0);
            dialog.setNetwork(QStringLiteral("host"));
            if (!checked(dialog)) return false;
            looser = dialog.warning();
            screenshotAsIs(dialog, QStringLiteral("resume-dialog-looser"));
            return false;
        });
        window.resumeAction()->trigger();
        QCOMPARE(proposed.policyFile, QFileInfo(path).absoluteFilePath());
        QCOMPARE(proposed.network, QStringLiteral("none"));
        QCOMPARE(proposed.wallSeconds, std::optional<unsigned>(180));
        QCOMPARE(proposed.memoryMb, std::optional<unsigned>(2048));
        QCOMPARE(proposed.pids, std::optional<unsigned>(256));
        QVERIFY2(firstWarning.isEmpty(), qPrintable(firstWarning));
        QVERIFY2(looser.contains(ended->id()), qPrintable(looser));
        QVERIFY2(looser.contains(phrase("no time limit (it ran with %1 s)", 180)),
                 qPrintable(looser));
        QVERIFY2(
            looser.contains(
                QCoreApplication::translate("sbui::ResumeBaseline", "network %1 (it ran with %2)")
                    .arg(QCoreApplication::translate("sbui::ResumeBaseline", "host"),
                         QCoreApplication::translate("sbui::ResumeBaseline", "none"))),
            qPrintable(looser));

        // Its file gone: a copy of what it ran under, with the same rules.
        QVERIFY(QFile::remove(path));
        window.setNewSessionHook([&](NewSessionDialog& dialog) {
            if (!checked(dialog)) return false;
            proposed = dialog.request();
            firstWarning = dialog.warning();
            return false;
        });
        window.resumeAction()->trigger();
        QVERIFY2(proposed.policyFile.endsWith(QLatin1String("/policy-ran-under.json")),
                 qPrintable(proposed.policyFile));
        QFile copy(proposed.policyFile);
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QVERIFY(copy.readAll().contains("touch *"));
        QCOMPARE(proposed.wallSeconds, std::optional<unsigned>(180));
        QVERIFY2(firstWarning.isEmpty(), qPrintable(firstWarning));
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(ResumeTest)
#include "ResumeTest.moc"
