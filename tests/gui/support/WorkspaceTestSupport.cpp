#include "WorkspaceTestSupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

namespace sbgt {

void writeFile(const QString& path, const QByteArray& content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate)) file.write(content);
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAfter(const QString& path, const QByteArray& content, qint64 ns)
{
    for (int i = 0; i < 1000; ++i) {
        writeFile(path, content);
        struct stat st {};
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0) return false;
        if (st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec > ns) return true;
        QTest::qWait(5);
    }
    return false;
}

QString folderText(const QString& dir)
{
    QStringList lines;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        lines << QDir(dir).relativeFilePath(path) + QLatin1Char('=') +
                     QString::fromUtf8(readFile(path)).trimmed();
    }
    lines.sort();
    return lines.join(QLatin1Char('\n'));
}

std::unique_ptr<HandMadeSession> HandMadeSession::create(const TestWorld& world, const QString& id,
                                                         QString* error)
{
    auto session = sb::createSession(QFile::encodeName(world.workspace()).toStdString(),
                                     {"hand-made"}, id.toStdString());
    if (!session) {
        if (error) *error = QString::fromStdString(session.error().describe());
        return nullptr;
    }
    std::unique_ptr<HandMadeSession> made(new HandMadeSession);
    made->m_info = *session;
    // Whiteouts need Linux >= 5.8 unprivileged, opaque folders user xattrs on this file system.
    const QString probe = made->upper() + QStringLiteral("/.probe");
    if (!made->whiteout(QStringLiteral(".probe"))) {
        if (error) *error = QStringLiteral("cannot create a whiteout (0/0 device) here");
        return nullptr;
    }
    QFile::remove(probe);
    QDir().mkpath(probe);
    if (!made->makeOpaque(QStringLiteral(".probe"))) {
        if (error) *error = QStringLiteral("no user xattrs in the session folder");
        return nullptr;
    }
    QDir().rmdir(probe);
    return made;
}

QString HandMadeSession::upper() const
{
    return QFile::decodeName(m_info.upperDir().c_str());
}

QString HandMadeSession::project() const
{
    return QFile::decodeName(m_info.project.c_str());
}

void HandMadeSession::write(const QString& rel, const QByteArray& content) const
{
    writeFile(upper() + QLatin1Char('/') + rel, content);
}

bool HandMadeSession::whiteout(const QString& rel) const
{
    const QString path = upper() + QLatin1Char('/') + rel;
    QDir().mkpath(QFileInfo(path).absolutePath());
    return ::mknod(QFile::encodeName(path).constData(), S_IFCHR | 0000, makedev(0, 0)) == 0;
}

bool HandMadeSession::makeOpaque(const QString& rel) const
{
    const QString path = upper() + QLatin1Char('/') + rel;
    QDir().mkpath(path);
    return ::setxattr(QFile::encodeName(path).constData(), "user.overlay.opaque", "y", 1, 0) == 0;
}

} // namespace sbgt
