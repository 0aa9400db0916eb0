// SessionConnection against real headless sessions started by sandbench-cli, on a real event loop.
#include "sessions/SessionConnection.h"

#include "GuiTestSupport.h"

#include <QSignalSpy>
#include <QTest>

using namespace sbgt;
using sbui::SessionConnection;

class SessionConnectionTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void outputInputAndExit()
    {
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("conn-io"),
            {QStringLiteral("--network"), QStringLiteral("none")},
            {QStringLiteral("bash"), QStringLiteral("-c"),
             QStringLiteral("stty size; echo ready; read line; echo \"got:$line\"; exit 7")},
            &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = SessionConnection::open(session->id(), &error);
        QVERIFY2(connection, qPrintable(error));
        QCOMPARE(connection->summary().rows, 24u);
        QCOMPARE(connection->summary().cols, 80u);

        QByteArray seen;
        connect(connection.get(), &SessionConnection::output, this,
                [&](const QByteArray& bytes) { seen += bytes; });
        QSignalSpy exited(connection.get(), &SessionConnection::exited);
        QSignalSpy closed(connection.get(), &SessionConnection::closed);
        connection->subscribe();
        QTRY_VERIFY_WITH_TIMEOUT(seen.contains("ready"), 20000);
        QVERIFY2(seen.contains("24 80"), seen.constData()); // the headless pty's default size
        connection->sendInput("hello there\r");
        QTRY_VERIFY_WITH_TIMEOUT(seen.contains("got:hello there"), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, 20000);
        QCOMPARE(exited.at(0).at(0).toInt(), 7);
        QTRY_COMPARE_WITH_TIMEOUT(closed.count(), 1, 20000);
        QVERIFY(!connection->isOpen());
        QCOMPARE(session->waitForExit(), 7);
    }

    void resizeReachesTheCommand()
    {
        QString error;
        auto session = HeadlessSession::start(m_world, QStringLiteral("conn-resize"),
                                              {QStringLiteral("--network"), QStringLiteral("none"),
                                               QStringLiteral("--size"), QStringLiteral("30x100")},
                                              {QStringLiteral("bash"), QStringLiteral("-c"),
                                               QStringLiteral("stty size; read line; stty size")},
                                              &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = SessionConnection::open(session->id(), &error);
        QVERIFY2(connection, qPrintable(error));
        QByteArray seen;
        connect(connection.get(), &SessionConnection::output, this,
                [&](const QByteArray& bytes) { seen += bytes; });
        connection->subscribe();
        QTRY_VERIFY_WITH_TIMEOUT(seen.contains("30 100"), 20000);
        connection->resize(40, 120);
        connection->sendInput("\r");
        QTRY_VERIFY_WITH_TIMEOUT(seen.contains("40 120"), 20000);
    }

    void stopEndsTheSession()
    {
        QString error;
        auto session =
            HeadlessSession::start(m_world, QStringLiteral("conn-stop"),
                                   {QStringLiteral("--network"), QStringLiteral("none")},
                                   {QStringLiteral("sleep"), QStringLiteral("600")}, &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = SessionConnection::open(session->id(), &error);
        QVERIFY2(connection, qPrintable(error));
        QSignalSpy exited(connection.get(), &SessionConnection::exited);
        connection->subscribe();
        connection->stop();
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, 20000);
        QCOMPARE(exited.at(0).at(0).toInt(), 128 + 15);
    }

    void missingSessionIsAClearError()
    {
        QString error;
        auto connection = SessionConnection::open(QStringLiteral("no-such-session"), &error);
        QVERIFY(!connection);
        QVERIFY2(error.contains(QStringLiteral("no-such-session")), qPrintable(error));
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(SessionConnectionTest)
#include "SessionConnectionTest.moc"
