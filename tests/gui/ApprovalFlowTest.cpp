// The approval panel wired to a real session, as the window wires it: a headless session whose
// policy asks before `touch`, a SessionConnection, and the panel's answers going back to the
// supervisor. Allow lets the command run, Deny makes its exec fail with EPERM, and an unanswered
// request times out into the policy's on_timeout.
#include "GuiTestSupport.h"
#include "activity/ActivityModel.h"
#include "approvals/ApprovalCard.h"
#include "approvals/ApprovalPanel.h"
#include "base/Session.h"
#include "policy/PolicyTester.h"
#include "sessions/SessionConnection.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace sbgt;
using sbui::ActivityModel;
using sbui::ApprovalPanel;
using sbui::SessionConnection;

namespace {

constexpr int kWaitMs = 20000;

QByteArray askTouchPolicy(int timeoutSeconds)
{
    return QStringLiteral(R"({"version": 1,
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch *"}]},
  "approvals": {"timeout_seconds": %1, "on_timeout": "deny"}})")
        .arg(timeoutSeconds)
        .toUtf8();
}

QString upperFile(const QString& sessionId, const QString& name)
{
    sb::SessionInfo info;
    info.id = sessionId.toStdString();
    return QString::fromStdString((info.upperDir() / name.toStdString()).string());
}

} // namespace

class ApprovalFlowTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void cleanup()
    {
        m_connection.reset();
        m_session.reset();
    }

    void allowLetsTheCommandRun()
    {
        ApprovalPanel panel;
        panel.setResultLingerMs(0);
        ActivityModel activity;
        start(QStringLiteral("allow"), 120, panel, &activity);
        if (QTest::currentTestFailed()) return;
        QTRY_COMPARE_WITH_TIMEOUT(panel.pendingCount(), 1, kWaitMs);
        sbui::ApprovalCard* card = panel.cards().front();
        QCOMPARE(card->subjectText(), QStringLiteral("touch asked"));
        QCOMPARE(QString::fromStdString(card->request().program), QStringLiteral("/usr/bin/touch"));
        const std::uint64_t id = card->id();
        QSignalSpy removed(&panel, &ApprovalPanel::cardRemoved);

        QTest::mouseClick(card->allowButton(), Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(m_output.contains("touch=0"), m_output.constData(), kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(removed.count(), 1, kWaitMs);
        QCOMPARE(removed.at(0).at(0).value<std::uint64_t>(), id);
        QCOMPARE(panel.pendingCount(), 0);
        QVERIFY2(panel.lastOutcomeText().contains(QStringLiteral("allowed (once)")),
                 qPrintable(panel.lastOutcomeText()));
        QVERIFY(QFileInfo::exists(upperFile(m_session->id(), QStringLiteral("asked"))));

        // The timeline renders the supervisor's own outcome event.
        const QString outcome = QStringLiteral("approval #%1 allowed (once, by gui)").arg(id);
        QTRY_VERIFY_WITH_TIMEOUT(rowWithSummary(activity, outcome) >= 0, kWaitMs);
        QCOMPARE(activity.decision(rowWithSummary(activity, outcome)),
                 ActivityModel::Decision::Allowed);
    }

    void denyMakesTheExecFail()
    {
        ApprovalPanel panel;
        panel.setResultLingerMs(0);
        start(QStringLiteral("deny"), 120, panel);
        if (QTest::currentTestFailed()) return;
        QTRY_COMPARE_WITH_TIMEOUT(panel.pendingCount(), 1, kWaitMs);
        QTest::mouseClick(panel.cards().front()->denyButton(), Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(m_output.contains("touch=1"), m_output.constData(), kWaitMs);
        QVERIFY2(m_output.contains("Operation not permitted"), m_output.constData());
        QTRY_COMPARE_WITH_TIMEOUT(panel.cards().size(), std::size_t{0}, kWaitMs);
        QVERIFY2(panel.lastOutcomeText().contains(QStringLiteral("denied (once)")),
                 qPrintable(panel.lastOutcomeText()));
        QVERIFY(!QFileInfo::exists(upperFile(m_session->id(), QStringLiteral("asked"))));
    }

    // A denial "for this session" becomes the session's rule: the connection that heard it
    // knows it, a client connecting later hears it in the welcome, and the policy tester says
    // the session denies it (it said "asked" before).
    void aSessionAnswerIsKnownToTheTester()
    {
        ApprovalPanel panel;
        panel.setResultLingerMs(0);
        start(QStringLiteral("session-answer"), 120, panel, nullptr,
              QStringLiteral("touch asked; echo touch=$?; sleep 60"));
        if (QTest::currentTestFailed()) return;
        QTRY_COMPARE_WITH_TIMEOUT(panel.pendingCount(), 1, kWaitMs);
        const std::uint64_t id = panel.cards().front()->id();
        const std::vector<std::string> argv = {"touch", "asked"};
        QVERIFY(!m_connection->sessionAnswers().decideCommand("/usr/bin/touch", argv));
        QSignalSpy learned(m_connection.get(), &SessionConnection::sessionAnswersChanged);
        sb::ApprovalAnswer answer;
        answer.allow = false;
        answer.scope = sb::ApprovalScope::AnyArguments;
        answer.duration = sb::ApprovalDuration::Session;
        answer.answeredBy = "gui-test";
        m_connection->answer(id, answer);
        QTRY_COMPARE_WITH_TIMEOUT(learned.count(), 1, kWaitMs);
        QCOMPARE(m_connection->sessionAnswers().decideCommand("/usr/bin/touch", argv),
                 std::optional<bool>(false));
        QTRY_VERIFY2_WITH_TIMEOUT(m_output.contains("touch=1"), m_output.constData(), kWaitMs);

        QString error;
        auto later = SessionConnection::open(m_session->id(), &error, sb::proto::Role::Viewer);
        QVERIFY2(later, qPrintable(error));
        QCOMPARE(later->sessionAnswers().decideCommand("/usr/bin/touch", {"touch", "other"}),
                 std::optional<bool>(false));
        sb::CommandPolicy asks;
        asks.defaultAction = sb::RuleAction::Ask;
        const sbui::TestVerdict verdict = sbui::PolicyTester::testCommand(
            asks, {}, QStringLiteral("/usr/bin/touch x"), &later->sessionAnswers());
        QVERIFY(verdict.action == sb::RuleAction::Deny);
        QVERIFY2(verdict.reason.contains(QLatin1String("answer earlier in this session")),
                 qPrintable(verdict.reason));
    }

    void unansweredRequestTimesOut()
    {
        ApprovalPanel panel;
        panel.setOnTimeout(false);
        QSignalSpy removed(&panel, &ApprovalPanel::cardRemoved);
        start(QStringLiteral("timeout"), 2, panel);
        if (QTest::currentTestFailed()) return;
        QTRY_COMPARE_WITH_TIMEOUT(panel.pendingCount(), 1, kWaitMs);
        sbui::ApprovalCard* card = panel.cards().front();
        QVERIFY2(card->countdownText().endsWith(QStringLiteral("then denied")) || card->isExpired(),
                 qPrintable(card->countdownText()));
        QTRY_VERIFY_WITH_TIMEOUT(removed.count() == 1, kWaitMs);
        QCOMPARE(panel.pendingCount(), 0);
        QVERIFY2(panel.lastOutcomeText().contains(QStringLiteral("timed out, denied")),
                 qPrintable(panel.lastOutcomeText()));
        QTRY_VERIFY2_WITH_TIMEOUT(m_output.contains("touch=1"), m_output.constData(), kWaitMs);
    }

  private:
    // Starts `touch asked; echo touch=$?` under a policy that asks before touch, connects, and
    // wires the panel (and the activity model) to the connection as the window does.
    void start(const QString& name, int timeoutSeconds, ApprovalPanel& panel,
               ActivityModel* activity = nullptr,
               const QString& script = QStringLiteral("touch asked; echo touch=$?"))
    {
        const QString policy = m_world.writePolicy(askTouchPolicy(timeoutSeconds),
                                                   QStringLiteral("policy-%1.json").arg(name));
        // Unique per run: cgroups are named after sessions, machine-wide.
        const QString id =
            QStringLiteral("flow-%1-%2").arg(name).arg(QCoreApplication::applicationPid());
        QString error;
        m_session =
            HeadlessSession::start(m_world, id,
                                   {QStringLiteral("--network"), QStringLiteral("none"),
                                    QStringLiteral("--policy"), policy},
                                   {QStringLiteral("bash"), QStringLiteral("-c"), script}, &error);
        QVERIFY2(m_session, qPrintable(error));
        // On screen, as beside the terminal: clicks reach only shown widgets.
        panel.resize(420, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        m_connection = SessionConnection::open(m_session->id(), &error);
        QVERIFY2(m_connection, qPrintable(error));
        m_output.clear();
        connect(m_connection.get(), &SessionConnection::output, this,
                [this](const QByteArray& bytes) { m_output += bytes; });
        connect(m_connection.get(), &SessionConnection::approvalRequested, &panel,
                qOverload<const sb::ApprovalRequest&>(&ApprovalPanel::addRequest));
        connect(m_connection.get(), &SessionConnection::approvalResolved, &panel,
                qOverload<const sb::ApprovalOutcome&>(&ApprovalPanel::resolve));
        connect(&panel, &ApprovalPanel::answered, m_connection.get(), &SessionConnection::answer);
        if (activity)
            connect(m_connection.get(), &SessionConnection::activity, activity,
                    &ActivityModel::addEvent);
        // The request may have come before this client did: the welcome lists it.
        for (const sb::ApprovalRequest& request : m_connection->pending())
            panel.addRequest(request);
        m_connection->subscribe();
    }

    static int rowWithSummary(const ActivityModel& model, const QString& summary)
    {
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.summary(r) == summary) return r;
        return -1;
    }

    TestWorld m_world;
    std::unique_ptr<HeadlessSession> m_session;
    std::unique_ptr<SessionConnection> m_connection;
    QByteArray m_output;
};

QTEST_MAIN(ApprovalFlowTest)
#include "ApprovalFlowTest.moc"
