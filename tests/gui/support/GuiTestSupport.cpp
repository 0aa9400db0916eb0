#include "GuiTestSupport.h"

#include "control/Protocol.h"
#include "main/Prompt.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QtGlobal>

namespace sbgt {

bool mustWork()
{
    return qEnvironmentVariable("SANDBENCH_MUST_WORK") == QStringLiteral("1");
}

QString cliPath()
{
    return QStringLiteral(SANDBENCH_CLI);
}

QString guiPath()
{
    return QStringLiteral(SANDBENCH_GUI);
}

QString sourceDir()
{
    return QStringLiteral(SANDBENCH_SOURCE_DIR);
}

TestWorld::TestWorld()
{
    QDir root(m_dir.path());
    for (const char* sub : {"home", "workspace", "xdg/state", "xdg/data", "xdg/config", "xdg/run"})
        root.mkpath(QString::fromLatin1(sub));
    QFile::setPermissions(root.filePath(QStringLiteral("xdg/run")),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    const std::pair<const char*, const char*> vars[] = {
        {"HOME", "home"},
        {"XDG_STATE_HOME", "xdg/state"},
        {"XDG_DATA_HOME", "xdg/data"},
        {"XDG_CONFIG_HOME", "xdg/config"},
        {"XDG_RUNTIME_DIR", "xdg/run"},
    };
    for (auto [name, sub] : vars) {
        m_saved[name] = qgetenv(name);
        qputenv(name, root.filePath(QString::fromLatin1(sub)).toLocal8Bit());
    }
    // The window starts sessions with the CLI of this build, and never blocks on a message box.
    m_saved["SANDBENCH_CLI"] = qgetenv("SANDBENCH_CLI");
    qputenv("SANDBENCH_CLI", cliPath().toLocal8Bit());
    sbui::prompt::setTesting(true);
}

TestWorld::~TestWorld()
{
    for (const auto& [name, value] : m_saved) {
        if (value.isEmpty())
            qunsetenv(name.constData());
        else
            qputenv(name.constData(), value);
    }
}

QString TestWorld::writePolicy(const QByteArray& json, const QString& name) const
{
    QString path = m_dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate)) file.write(json);
    return path;
}

std::unique_ptr<HeadlessSession> HeadlessSession::start(const TestWorld& world, const QString& id,
                                                        const QStringList& options,
                                                        const QStringList& command, QString* error)
{
    std::unique_ptr<HeadlessSession> session(new HeadlessSession);
    session->m_id = id;
    QStringList args{QStringLiteral("run"),          QStringLiteral("--headless"),
                     QStringLiteral("--session-id"), id,
                     QStringLiteral("--workspace"),  world.workspace()};
    args << options << QStringLiteral("--") << command;
    session->m_process.setProgram(cliPath());
    session->m_process.setArguments(args);
    session->m_process.setStandardInputFile(QProcess::nullDevice());
    session->m_process.setStandardOutputFile(QProcess::nullDevice());
    session->m_process.start();
    QString socket = QString::fromStdString(sb::proto::socketPath(id.toStdString()).string());
    bool up = QTest::qWaitFor(
        [&] {
            return QFileInfo::exists(socket) || session->m_process.state() == QProcess::NotRunning;
        },
        20000);
    if (!up || !QFileInfo::exists(socket)) {
        if (error)
            *error =
                QStringLiteral("session %1 did not come up: %2").arg(id, session->stderrText());
        return nullptr;
    }
    return session;
}

HeadlessSession::~HeadlessSession()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(10000);
    }
}

int HeadlessSession::waitForExit(int timeoutMs)
{
    if (!m_process.waitForFinished(timeoutMs) && m_process.state() != QProcess::NotRunning)
        return -1;
    return m_process.exitCode();
}

QString HeadlessSession::stderrText()
{
    m_stderr += m_process.readAllStandardError();
    return QString::fromLocal8Bit(m_stderr);
}

bool sandboxWorks(const TestWorld& world, QString* why)
{
    QProcess probe;
    probe.setProgram(cliPath());
    probe.setArguments({QStringLiteral("run"), QStringLiteral("--network"), QStringLiteral("none"),
                        QStringLiteral("--workspace"), world.workspace(), QStringLiteral("--"),
                        QStringLiteral("true")});
    probe.setStandardInputFile(QProcess::nullDevice());
    probe.start();
    if (!probe.waitForFinished(30000) || probe.exitCode() != 0) {
        if (why)
            *why = QStringLiteral("sandbench-cli run cannot start a sandbox here: ") +
                   QString::fromLocal8Bit(probe.readAllStandardError());
        return false;
    }
    return true;
}

} // namespace sbgt
