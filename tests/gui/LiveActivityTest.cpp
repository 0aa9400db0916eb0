// The activity timeline over a real session, wired as the window wires it: a headless session
// changes files after a `touch gate` the policy asks about; the test's SessionConnection allows
// it once subscribed, and the ActivityModel shows each file event as it comes, then the same
// once from the recording (the end's net result is not shown a second time).
#include "GuiTestSupport.h"
#include "activity/ActivityFilterModel.h"
#include "activity/ActivityModel.h"
#include "sessions/SessionConnection.h"
#include "sessions/SessionHistory.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>

using namespace sbgt;
using sbui::ActivityModel;
using sbui::SessionConnection;

namespace {

constexpr int kWaitMs = 30000;

int rowsWithSummary(const ActivityModel& model, const QString& summary)
{
    int n = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.summary(r) == summary) ++n;
    return n;
}

} // namespace

class LiveActivityTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void fileChangesShowLiveAndFromTheRecording()
    {
        const QString policy = m_world.writePolicy(R"({"version": 1,
  "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch gate"}]},
  "approvals": {"timeout_seconds": 120, "on_timeout": "deny"}})");
        const QString id =
            QStringLiteral("live-activity-%1").arg(QCoreApplication::applicationPid());
        QString error;
        auto session = HeadlessSession::start(
            m_world, id,
            {QStringLiteral("--network"), QStringLiteral("none"), QStringLiteral("--policy"),
             policy},
            {QStringLiteral("bash"), QStringLiteral("-c"),
             QStringLiteral(
                 "touch gate && echo hi > notes.txt && mkdir docs && echo x > docs/a.md")},
            &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = SessionConnection::open(session->id(), &error);
        QVERIFY2(connection, qPrintable(error));

        ActivityModel live;
        sbui::ActivityFilterModel filter;
        filter.setSourceModel(&live);
        connect(connection.get(), &SessionConnection::activity, &live, &ActivityModel::addEvent);
        auto allow = [&connection](const sb::ApprovalRequest& request) {
            sb::ApprovalAnswer answer;
            answer.allow = true;
            answer.answeredBy = "gui";
            connection->answer(request.id, answer);
        };
        connect(connection.get(), &SessionConnection::approvalRequested, this, allow);
        QSignalSpy exited(connection.get(), &SessionConnection::exited);
        connection->subscribe();
        for (const sb::ApprovalRequest& request : connection->pending())
            allow(request);

        const QStringList expected = {
            QStringLiteral("added gate"), QStringLiteral("added notes.txt"),
            QStringLiteral("added folder docs"), QStringLiteral("added docs/a.md")};
        for (const QString& summary : expected)
            QTRY_VERIFY2_WITH_TIMEOUT(rowsWithSummary(live, summary) == 1, qPrintable(summary),
                                      kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, kWaitMs);
        live.flush();
        int files = 0;
        for (int r = 0; r < live.rowCount(); ++r)
            if (live.category(r) == ActivityModel::Category::File) ++files;
        QCOMPARE(files, expected.size());
        // The "Files" toggle hides them.
        const int all = filter.rowCount();
        filter.setCategoryShown(ActivityModel::Category::File, false);
        QCOMPARE(filter.rowCount(), all - files);

        QCOMPARE(session->waitForExit(), 0);
        auto history = sbui::loadSessionHistory(id, false, &error);
        QVERIFY2(history, qPrintable(error));
        ActivityModel replayed;
        for (const auto& event : history->events)
            replayed.addEvent(event);
        replayed.flush();
        for (const QString& summary : expected)
            QCOMPARE(rowsWithSummary(replayed, summary), 1);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(LiveActivityTest)
#include "LiveActivityTest.moc"
