// One approval queue across sessions (issue 37, item 6): with an ended session shown, the cards
// of every running session wait in the Approvals dock, which unfolds for them; each card names
// its session (name, folder, command), an answer goes to the session that asked, and the
// Sessions list tells sessions running the same command apart.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "approvals/ApprovalCard.h"
#include "approvals/ApprovalPanel.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "sessions/SessionHub.h"
#include "sessions/SessionListModel.h"

#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>

using namespace sbgt;
using sbui::MainWindow;

namespace {

const QByteArray kAskTouch = R"({
  "version": 1,
  "network": {"mode": "none"},
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch *"}]},
  "approvals": {"timeout_seconds": 120, "on_timeout": "deny"}
})";

} // namespace

class ApprovalQueueTest : public QObject {
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

    void everySessionsCardsInOneQueue()
    {
        const QStringList options{QStringLiteral("--policy"), m_world.writePolicy(kAskTouch)};
        const QStringList asks{QStringLiteral("bash"), QStringLiteral("-c"),
                               QStringLiteral("echo agent; touch asked; echo touched=$?; "
                                              "sleep 600")};
        QString error;
        auto ended = HeadlessSession::start(
            m_world, QStringLiteral("queue-ended"), options,
            {QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("echo agent; sleep 1")},
            &error);
        QVERIFY2(ended, qPrintable(error));
        QCOMPARE(ended->waitForExit(30000), 0);
        auto first =
            HeadlessSession::start(m_world, QStringLiteral("queue-a"), options, asks, &error);
        QVERIFY2(first, qPrintable(error));
        auto second =
            HeadlessSession::start(m_world, QStringLiteral("queue-b"), options, asks, &error);
        QVERIFY2(second, qPrintable(error));

        MainWindow window;
        window.resize(1440, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(ended->id()));
        sbui::ApprovalPanel* panel = window.approvals();
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 2, 20000);
        QTRY_VERIFY(panel->isVisible()); // the dock unfolded for them

        for (const QString& id : {first->id(), second->id()}) {
            sbui::ApprovalCard* card = panel->card(id, 1);
            QVERIFY2(card, qPrintable(id));
            const QString source = card->sourceText();
            QVERIFY2(source.contains(id) && source.contains(QLatin1String("workspace")) &&
                         source.contains(QLatin1String("echo agent")),
                     qPrintable(source));
        }
        // Showing another session keeps them.
        QVERIFY(window.selectSession(first->id()));
        QCOMPARE(panel->pendingCount(), 2);
        QVERIFY(window.selectSession(ended->id()));
        QCOMPARE(panel->pendingCount(), 2);

        // The Sessions list: the two running the same command read differently.
        const auto* model = window.hub()->model();
        const auto text = [model](const QString& id) {
            return model->index(model->rowOf(id), sbui::SessionListModel::SessionColumn)
                .data()
                .toString();
        };
        QVERIFY2(text(first->id()) != text(second->id()), qPrintable(text(first->id())));
        QVERIFY2(text(first->id()).contains(first->id()), qPrintable(text(first->id())));
        screenshot(window, QStringLiteral("approval-queue"));

        // Deny the second session's card: its request is answered, the first one still waits.
        panel->card(second->id(), 1)->denyButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(window.hub()->pending(second->id()).empty(), 20000);
        QCOMPARE(window.hub()->pending(first->id()).size(), std::size_t(1));
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 1, 20000);
        QVERIFY(panel->card(first->id(), 1) && panel->card(first->id(), 1)->isAnswerable());

        window.hub()->kill(first->id());
        window.hub()->kill(second->id());
        // Ended, a session's cards go with it.
        QTRY_COMPARE_WITH_TIMEOUT(panel->pendingCount(), 0, 20000);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(ApprovalQueueTest)
#include "ApprovalQueueTest.moc"
