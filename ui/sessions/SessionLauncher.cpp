#include "SessionLauncher.h"

#include "base/Paths.h"
#include "base/Session.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <unistd.h>

namespace sbui {

QStringList launchArguments(const LaunchRequest& r)
{
    const QString size = QStringLiteral("%1x%2").arg(r.rows).arg(r.cols);
    if (r.demo)
        return {QStringLiteral("demo"),         QStringLiteral("--headless"),
                QStringLiteral("--size"),       size,
                QStringLiteral("--session-id"), r.sessionId};
    QStringList args{QStringLiteral("run"),         QStringLiteral("--headless"),
                     QStringLiteral("--size"),      size,
                     QStringLiteral("--workspace"), r.workspace};
    if (!r.sessionId.isEmpty()) args << QStringLiteral("--session-id") << r.sessionId;
    if (!r.policyFile.isEmpty())
        args << QStringLiteral("--policy") << r.policyFile;
    else if (!r.preset.isEmpty())
        args << QStringLiteral("--preset") << r.preset;
    if (!r.network.isEmpty()) args << QStringLiteral("--network") << r.network;
    if (!r.root.isEmpty()) args << QStringLiteral("--root") << r.root;
    if (!r.resumeFrom.isEmpty()) args << QStringLiteral("--resume") << r.resumeFrom;
    auto number = [&](const char* option, const std::optional<unsigned>& value) {
        if (value) args << QString::fromLatin1(option) << QString::number(*value);
    };
    number("--timeout", r.wallSeconds);
    number("--memory", r.memoryMb);
    number("--pids", r.pids);
    number("--cpu", r.cpuPercent);
    number("--approval-timeout", r.approvalTimeoutSeconds);
    if (r.observe) args << QStringLiteral("--observe");
    args << QStringLiteral("--") << r.command;
    return args;
}

QString cliProgram()
{
    if (QString chosen = qEnvironmentVariable("SANDBENCH_CLI"); !chosen.isEmpty()) return chosen;
    QString beside =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("sandbench-cli"));
    if (QFileInfo(beside).isExecutable()) return beside;
    return QStandardPaths::findExecutable(QStringLiteral("sandbench-cli"));
}

std::optional<Launched> launchSession(LaunchRequest request, QString* error)
{
    const QString cli = cliProgram();
    if (cli.isEmpty()) {
        if (error) *error = QCoreApplication::translate("sbui", "sandbench-cli was not found");
        return std::nullopt;
    }
    if (request.sessionId.isEmpty()) request.sessionId = QString::fromStdString(sb::newSessionId());
    QDir logs(QString::fromStdString((sb::stateDirectory() / "logs").string()));
    logs.mkpath(QStringLiteral("."));
    Launched launched{request.sessionId, logs.filePath(request.sessionId + QStringLiteral(".log")),
                      0};

    QProcess process;
    process.setProgram(cli);
    process.setArguments(launchArguments(request));
    if (!request.workspace.isEmpty()) process.setWorkingDirectory(request.workspace);
    process.setStandardInputFile(QProcess::nullDevice());
    // The window's sessions are this machine's: SANDBENCH_HOST, meant for the command line,
    // would start them on another host (docs/remote.md).
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("SANDBENCH_HOST"));
    process.setProcessEnvironment(environment);
    process.setStandardOutputFile(launched.logFile);
    process.setStandardErrorFile(launched.logFile, QIODevice::Append);
    process.setChildProcessModifier([] { ::setsid(); });
    if (!process.startDetached(&launched.pid)) {
        if (error)
            *error = QCoreApplication::translate("sbui", "cannot start %1: %2")
                         .arg(cli, process.errorString());
        return std::nullopt;
    }
    return launched;
}

} // namespace sbui
