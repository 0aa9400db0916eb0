// The window starts its sessions on this machine even when SANDBENCH_HOST, which sends the
// command line's commands to another host (docs/remote.md), is set in its environment.
#include "sessions/SessionLauncher.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

class SessionLauncherTest : public QObject {
    Q_OBJECT

  private slots:
    void theWindowsSessionsStayOnThisMachine()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // A stand-in for sandbench-cli that writes down the environment it was started with.
        const QString cli = dir.filePath(QStringLiteral("sandbench-cli"));
        const QString seen = dir.filePath(QStringLiteral("environment"));
        QFile script(cli);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(
            QStringLiteral("#!/bin/sh\nenv > '%1.part' && mv '%1.part' '%1'\n").arg(seen).toUtf8());
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        qputenv("SANDBENCH_CLI", cli.toUtf8());
        qputenv("SANDBENCH_HOST", "ssh://elsewhere");
        qputenv("XDG_STATE_HOME", dir.filePath(QStringLiteral("state")).toUtf8());

        sbui::LaunchRequest request;
        request.workspace = dir.path();
        request.preset = QStringLiteral("generic");
        request.command = {QStringLiteral("true")};
        QString error;
        QVERIFY2(sbui::launchSession(request, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(seen), 10000);
        QFile written(seen);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray environment = written.readAll();
        QVERIFY(environment.contains("SANDBENCH_CLI="));
        QVERIFY2(!environment.contains("SANDBENCH_HOST="), environment.constData());
    }
};

QTEST_MAIN(SessionLauncherTest)
#include "SessionLauncherTest.moc"
