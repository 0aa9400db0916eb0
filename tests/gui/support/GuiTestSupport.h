// Shared helpers for the Qt Test suites: a private world (HOME, XDG folders, a workspace) and
// real sessions started headless by the built sandbench-cli, as the GUI starts them.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <memory>

namespace sbgt {

// With SANDBENCH_MUST_WORK=1 (set in CI) a skip is a failure.
bool mustWork();
#define SBG_SKIP(reason)                                                                           \
    do {                                                                                           \
        if (::sbgt::mustWork())                                                                    \
            QFAIL(qPrintable(QStringLiteral("would skip, but SANDBENCH_MUST_WORK=1: ") +           \
                             QString(reason)));                                                    \
        QSKIP(qPrintable(QString(reason)));                                                        \
    } while (0)

// Until a dialog's checks are done (the New session dialog runs them off the GUI thread once
// typing pauses).
template <class Dialog> bool checked(const Dialog& dialog, int timeoutMs = 10000)
{
    return QTest::qWaitFor([&] { return !dialog.isChecking(); }, timeoutMs);
}

QString cliPath();
QString guiPath();
QString sourceDir();

// One test's world under a temporary folder: home/, workspace/, xdg/{state,data,config,run}.
// The constructor points HOME and the XDG variables of this process at it (so sessions the
// test starts, and the GUI code under test, meet there) and the destructor restores them.
class TestWorld {
  public:
    TestWorld();
    ~TestWorld();
    TestWorld(const TestWorld&) = delete;
    TestWorld& operator=(const TestWorld&) = delete;

    bool isValid() const { return m_dir.isValid(); }
    QString root() const { return m_dir.path(); }
    QString workspace() const { return m_dir.filePath(QStringLiteral("workspace")); }
    QString home() const { return m_dir.filePath(QStringLiteral("home")); }
    QString runtimeDir() const { return m_dir.filePath(QStringLiteral("xdg/run")); }
    // Writes a policy document beside the workspace and returns its path.
    QString writePolicy(const QByteArray& json,
                        const QString& name = QStringLiteral("policy.json")) const;

  private:
    QTemporaryDir m_dir;
    std::map<QByteArray, QByteArray> m_saved;
};

// `sandbench-cli run --headless --session-id ID --workspace W OPTIONS -- COMMAND`, as a child
// of the test. Killed (the whole sandbox with it) on destruction.
class HeadlessSession {
  public:
    // Starts it and waits until its control socket accepts connections. On failure `error`
    // says why (with the CLI's stderr).
    static std::unique_ptr<HeadlessSession> start(const TestWorld& world, const QString& id,
                                                  const QStringList& options,
                                                  const QStringList& command, QString* error);
    ~HeadlessSession();
    const QString& id() const { return m_id; }
    QProcess& process() { return m_process; }
    // Waits for the CLI to exit; its exit code, or -1 on timeout.
    int waitForExit(int timeoutMs = 30000);
    QString stderrText();

  private:
    HeadlessSession() = default;
    QString m_id;
    QProcess m_process;
    QByteArray m_stderr;
};

// True when this machine can start a sandbox at all (a quick `run -- true`); `why` tells
// otherwise.
bool sandboxWorks(const TestWorld& world, QString* why);

} // namespace sbgt
