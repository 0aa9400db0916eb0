// The Policy tab shows what the selected session enforces (issue 37, item 1): the rules it
// runs, not what its file says since another session saved it (with "Apply to this session"),
// and for an ended session the policy it ran under, read-only.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "policy/CommandPolicyPage.h"
#include "policy/CommandRulesModel.h"
#include "policy/MessageBar.h"
#include "policy/PolicyDocument.h"
#include "policy/PolicyEditor.h"
#include "sessions/SessionHub.h"
#include "terminal/TerminalWidget.h"

#include <QAction>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>

using namespace sbgt;
using sbui::CommandRulesModel;
using sbui::MainWindow;
using sbui::PolicyEditor;

namespace {

const QByteArray kAskTouch = R"({
  "version": 1,
  "network": {"mode": "none"},
  // the rule the sessions start with
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch *"}]},
  "approvals": {"timeout_seconds": 60, "on_timeout": "deny"}
})";

QString firstMatch(const PolicyEditor& editor)
{
    const CommandRulesModel* rules = editor.document()->commandRules();
    return rules->data(rules->index(0, CommandRulesModel::MatchColumn)).toString();
}

} // namespace

class PolicyInForceTest : public QObject {
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

    void sessionsShowTheRulesTheyRun()
    {
        const QString path = m_world.writePolicy(kAskTouch);
        const QStringList options{QStringLiteral("--policy"), path};
        const QStringList command{QStringLiteral("bash"), QStringLiteral("-c"),
                                  QStringLiteral("echo ready; sleep 600")};
        QString error;
        auto first =
            HeadlessSession::start(m_world, QStringLiteral("force-a"), options, command, &error);
        QVERIFY2(first, qPrintable(error));
        auto second =
            HeadlessSession::start(m_world, QStringLiteral("force-b"), options, command, &error);
        QVERIFY2(second, qPrintable(error));

        MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PolicyEditor* ed = window.policy();

        // The first session takes an edited rule from its file.
        QVERIFY(window.selectSession(first->id()));
        window.tabs()->setCurrentWidget(ed);
        QCOMPARE(firstMatch(*ed), QStringLiteral("touch *"));
        QVERIFY(ed->document()->fileDiffers().isEmpty());
        QVERIFY(ed->document()->commandRules()->setData(
            ed->document()->commandRules()->index(0, CommandRulesModel::MatchColumn),
            QStringLiteral("touch marker-*")));
        QSignalSpy updated(ed, &PolicyEditor::sessionUpdated);
        QVERIFY(ed->save());
        QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 1, 20000);

        // The second still runs "touch *": that is what its tab shows, and says why.
        QVERIFY(window.selectSession(second->id()));
        QCOMPARE(window.tabs()->currentWidget(), ed);
        QCOMPARE(ed->document()->sessionId(), second->id());
        QCOMPARE(firstMatch(*ed), QStringLiteral("touch *"));
        QVERIFY(ed->document()->isReadOnly());
        QCOMPARE(ed->document()->fileDiffers(), QFileInfo(path).absoluteFilePath());
        QVERIFY2(ed->messageText().contains(path), qPrintable(ed->messageText()));
        auto* bar = ed->findChild<sbui::MessageBar*>();
        QVERIFY(bar && bar->button()->isVisible());
        QCOMPARE(bar->button()->defaultAction(), ed->applyToSessionAction());
        ed->pages()->setCurrentWidget(ed->commandPage());
        screenshot(window, QStringLiteral("policy-file-differs"));

        // "Apply to this session" gives it the file's rules.
        bar->button()->click();
        QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 2, 20000);
        QCOMPARE(firstMatch(*ed), QStringLiteral("touch marker-*"));
        QVERIFY(ed->document()->fileDiffers().isEmpty());
        QVERIFY(!ed->document()->isReadOnly());
        QCOMPARE(ed->document()->filePath(), QFileInfo(path).absoluteFilePath());
        QVERIFY(!bar->button()->isVisible());

        // Ended, it shows the policy it ran under last, read-only: not "No policy open".
        window.hub()->stop(second->id());
        QVERIFY(second->waitForExit(20000) >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(second->id()), 20000);
        QVERIFY(window.selectSession(first->id()));
        QVERIFY(window.selectSession(second->id()));
        QVERIFY(ed->hasDocument());
        QVERIFY(ed->document()->isRecorded());
        QVERIFY(ed->document()->isReadOnly());
        QCOMPARE(ed->document()->sessionId(), second->id());
        QCOMPARE(firstMatch(*ed), QStringLiteral("touch marker-*"));
        QVERIFY2(ed->titleText().contains(second->id()), qPrintable(ed->titleText()));
        screenshot(window, QStringLiteral("policy-ended"));

        window.hub()->kill(first->id());
        QTRY_VERIFY_WITH_TIMEOUT(!window.hub()->isLive(first->id()), 20000);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(PolicyInForceTest)
#include "PolicyInForceTest.moc"
