// SessionConnection against real headless sessions started by sandbench-cli, on a real event loop.
#include "sessions/SessionConnection.h"

#include "GuiTestSupport.h"
#include "control/Protocol.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

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

    // A request the supervisor sends right after the welcome can arrive in the same read as
    // the welcome, during the handshake: it must still be handed out, though the socket will
    // not signal those bytes again. A supervisor stands in here, writing both at once.
    void aRequestReadWithTheWelcomeIsHandedOut()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("fake.sock")).toStdString();
        int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        QVERIFY(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        QVERIFY(::listen(listener, 1) == 0);

        auto request = [](std::uint64_t id) {
            sb::ApprovalRequest r;
            r.id = id;
            r.kind = sb::ApprovalKind::Command;
            r.program = "/usr/bin/touch";
            r.argv = {"touch", "f" + std::to_string(id)};
            return r;
        };
        std::atomic<bool> done{false};
        std::thread supervisor([&] {
            int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            char hello[4096];
            (void)!::read(c, hello, sizeof hello);
            sb::proto::SessionSummary summary;
            summary.id = "fake";
            nlohmann::json welcome = {{"version", sb::proto::kVersion},
                                      {"session", sb::proto::toJson(summary)},
                                      {"role", "viewer"},
                                      {"output", {{"oldest_seq", 0}, {"next_seq", 0}}},
                                      {"pending", {sb::proto::toJson(request(1))}},
                                      {"exited", false}};
            // One write: the welcome, request 1 again (it was pending at the welcome) and 2.
            std::string bytes = sb::proto::encodeJson(sb::proto::MsgType::Welcome, welcome) +
                                sb::proto::encodeJson(sb::proto::MsgType::ApprovalRequest,
                                                      sb::proto::toJson(request(1))) +
                                sb::proto::encodeJson(sb::proto::MsgType::ApprovalRequest,
                                                      sb::proto::toJson(request(2)));
            (void)!::write(c, bytes.data(), bytes.size());
            while (!done)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            ::close(c);
        });

        QString error;
        auto connection = SessionConnection::open(
            QStringLiteral("fake"), &error, sb::proto::Role::Viewer, QString::fromStdString(path));
        QSignalSpy requested(connection.get(), &SessionConnection::approvalRequested);
        if (connection) QTRY_COMPARE_WITH_TIMEOUT(requested.count(), 1, 5000);
        done = true;
        supervisor.join();
        ::close(listener);
        QVERIFY2(connection, qPrintable(error));
        QCOMPARE(requested.at(0).at(0).value<sb::ApprovalRequest>().id, 2u);
        QCOMPARE(connection->pending().size(), 2u);
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(SessionConnectionTest)
#include "SessionConnectionTest.moc"
