// The Ports tab over a real session: a server started in the sandbox shows as a listening port,
// Expose gives it a preview URL that serves the sandbox's page on this machine, Copy and Open
// hand that URL on, Stop forwarding takes it away, and the session's end empties the view.
#include "ports/PortsView.h"

#include "GuiTestSupport.h"
#include "sessions/SessionConnection.h"

#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QFile>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

using namespace sbgt;
using sbui::PortsView;
using sbui::SessionConnection;

namespace {

constexpr int kWaitMs = 20000;

QTreeWidgetItem* rowOf(const PortsView& view, int port)
{
    for (int i = 0; i < view.table()->topLevelItemCount(); ++i)
        if (view.table()->topLevelItem(i)->data(0, Qt::UserRole).toInt() == port)
            return view.table()->topLevelItem(i);
    return nullptr;
}

QByteArray fetch(const QUrl& url, const QString& path)
{
    QTcpSocket socket;
    socket.connectToHost(url.host(), static_cast<quint16>(url.port()));
    if (!socket.waitForConnected(5000)) return {};
    socket.write("GET " + path.toUtf8() +
                 " HTTP/1.1\r\nHost: preview\r\nConnection: close\r\n\r\n");
    QByteArray reply;
    while (socket.waitForReadyRead(5000))
        reply += socket.readAll();
    return reply + socket.readAll();
}

QPushButton* button(const PortsView& view, const char* name)
{
    return view.findChild<QPushButton*>(QString::fromLatin1(name));
}

} // namespace

class PortsViewTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        if (!sandboxWorks(m_world, &why)) SBG_SKIP(why);
    }

    void aServerInTheSandboxIsPreviewed()
    {
        QFile page(m_world.workspace() + QStringLiteral("/index.html"));
        QVERIFY(page.open(QIODevice::WriteOnly));
        page.write("<h1>served from the sandbox</h1>\n");
        page.close();
        const int port = static_cast<int>(20000 + QCoreApplication::applicationPid() % 20000);
        QString error;
        auto session = HeadlessSession::start(
            m_world, QStringLiteral("ports-%1").arg(QCoreApplication::applicationPid()),
            {QStringLiteral("--network"), QStringLiteral("none")},
            {QStringLiteral("python3"), QStringLiteral("-m"), QStringLiteral("http.server"),
             QString::number(port), QStringLiteral("--bind"), QStringLiteral("127.0.0.1")},
            &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = SessionConnection::open(session->id(), &error);
        QVERIFY2(connection, qPrintable(error));
        QVERIFY(connection->servesPorts());

        PortsView view;
        view.resize(900, 300);
        view.show();
        QSignalSpy counted(&view, &PortsView::listeningCountChanged);
        view.setConnection(connection.get());
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(view, port) != nullptr, kWaitMs);
        QCOMPARE(view.listeningCount(), 1);
        QVERIFY(!counted.isEmpty());
        QCOMPARE(rowOf(view, port)->text(1), QStringLiteral("127.0.0.1"));
        QVERIFY(!button(view, "ExposeButton")->isEnabled()); // nothing selected yet

        rowOf(view, port)->setSelected(true);
        QVERIFY(button(view, "ExposeButton")->isEnabled());
        QVERIFY(!button(view, "OpenButton")->isEnabled());
        QTest::mouseClick(button(view, "ExposeButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!view.selectedUrl().isEmpty(), kWaitMs);
        const QUrl url(view.selectedUrl());
        QCOMPARE(url.host(), QStringLiteral("127.0.0.1"));
        QVERIFY(url.port() > 0 && url.port() != port);
        QVERIFY(fetch(url, QStringLiteral("/index.html")).contains("served from the sandbox"));

        QTest::mouseClick(button(view, "CopyButton"), Qt::LeftButton);
        QCOMPARE(QApplication::clipboard()->text(), url.toString());
        // Said, and still said after the list was asked again (each answer set its own line).
        QCOMPARE(view.message(), QStringLiteral("Copied %1").arg(url.toString()));
        view.refresh();
        QTest::qWait(300);
        QCOMPARE(view.message(), QStringLiteral("Copied %1").arg(url.toString()));

        // Without a browser, xdg-open fails after it started: the view says so (issue 37, item
        // 13: it failed silently).
        QTemporaryDir bin;
        QFile fake(bin.filePath(QStringLiteral("xdg-open")));
        QVERIFY(fake.open(QIODevice::WriteOnly));
        fake.write("#!/bin/sh\necho 'xdg-open: no method available for opening' >&2\nexit 3\n");
        fake.close();
        fake.setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", bin.path().toLocal8Bit() + ':' + path);
        auto restorePath = qScopeGuard([&] { qputenv("PATH", path); });
        QTest::mouseClick(button(view, "OpenButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view.message().startsWith(QLatin1String("No browser opened")),
                                 kWaitMs);
        restorePath.dismiss();
        qputenv("PATH", path);

        view.openHook = true;
        QSignalSpy opened(&view, &PortsView::openRequested);
        QTest::mouseClick(button(view, "OpenButton"), Qt::LeftButton);
        QCOMPARE(opened.size(), 1);
        QCOMPARE(opened.first().first().toUrl(), url);
        // The connection shows in the row once the list is asked again.
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(view, port)->text(3).contains(QStringLiteral("1 in all")),
                                 kWaitMs);

        QTest::mouseClick(button(view, "StopButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view.selectedUrl().isEmpty(), kWaitMs);
        QVERIFY(rowOf(view, port) != nullptr); // still listening inside
        QVERIFY(fetch(url, QStringLiteral("/index.html")).isEmpty());

        connection->stop();
        QTRY_COMPARE_WITH_TIMEOUT(view.listeningCount(), 0, kWaitMs);
        QCOMPARE(view.table()->topLevelItemCount(), 0);
        QVERIFY(!button(view, "ExposeButton")->isEnabled());
    }

  private:
    TestWorld m_world;
};

QTEST_MAIN(PortsViewTest)
#include "PortsViewTest.moc"
