// The sessions list model: newest first, rows kept across refreshes, pending badges, and live
// durations that tick on their own (frozen and moved by hand where the test needs exact text).
#include "sessions/SessionListModel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using sbui::SessionEntry;
using sbui::SessionListModel;

namespace {

SessionEntry live(const QString& id, qint64 startedMs)
{
    SessionEntry e;
    e.id = id;
    e.command = {QStringLiteral("bash")};
    e.workspace = QStringLiteral("/home/dev/project");
    e.state = SessionEntry::State::Live;
    e.startedMs = startedMs;
    return e;
}

SessionEntry ended(const QString& id, qint64 startedMs, qint64 endedMs)
{
    SessionEntry e = live(id, startedMs);
    e.state = SessionEntry::State::Ended;
    e.endedMs = endedMs;
    e.exitStatus = 0;
    return e;
}

QString durationAt(const SessionListModel& model, const QString& id)
{
    return model.index(model.rowOf(id), SessionListModel::DurationColumn).data().toString();
}

} // namespace

class SessionListModelTest : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void newestFirstAndRowsKept()
    {
        SessionListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNow(100'000);
        model.update({ended(QStringLiteral("a"), 1'000, 5'000), live(QStringLiteral("b"), 2'000)});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.entryAt(0).id, QStringLiteral("b"));

        model.setPending(QStringLiteral("b"), 2);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.update({ended(QStringLiteral("a"), 1'000, 5'000), live(QStringLiteral("b"), 2'000),
                      live(QStringLiteral("c"), 3'000)});
        QCOMPARE(removed.count(), 0);
        QCOMPARE(model.entryAt(0).id, QStringLiteral("c"));
        QCOMPARE(model.entry(QStringLiteral("b"))->pending, 2); // kept across the refresh
        QCOMPARE(model.totalPending(), 2);
    }

    void frozenClockMovedByHand()
    {
        SessionListModel model;
        model.setNow(10'000);
        model.update({live(QStringLiteral("s"), 3'000), ended(QStringLiteral("e"), 0, 65'000)});
        QCOMPARE(durationAt(model, QStringLiteral("s")), QStringLiteral("7 s"));
        QCOMPARE(durationAt(model, QStringLiteral("e")), QStringLiteral("1 min 05 s"));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setNow(3'000 + 3'725'000);
        model.tick();
        QCOMPARE(changed.count(), 1); // the live row only
        const QModelIndex topLeft = changed.at(0).at(0).toModelIndex();
        QCOMPARE(topLeft.row(), model.rowOf(QStringLiteral("s")));
        QCOMPARE(topLeft.column(), int(SessionListModel::DurationColumn));
        QCOMPARE(durationAt(model, QStringLiteral("s")), QStringLiteral("1 h 02 min"));
        QCOMPARE(durationAt(model, QStringLiteral("e")), QStringLiteral("1 min 05 s"));
    }

    void liveDurationTicksOnItsOwn()
    {
        SessionListModel model;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        model.update({live(QStringLiteral("s"), now - 5'000)});
        const QString before = durationAt(model, QStringLiteral("s"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(changed.wait(3000));
        QTRY_VERIFY_WITH_TIMEOUT(durationAt(model, QStringLiteral("s")) != before, 3000);
    }

    void endedSessionsDoNotTick()
    {
        SessionListModel model;
        model.update({ended(QStringLiteral("e"), 0, 1'000)});
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(!changed.wait(1500));
    }
};

QTEST_MAIN(SessionListModelTest)
#include "SessionListModelTest.moc"
