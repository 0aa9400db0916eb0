// Sessions made by hand for the workspace review's suites: sb::createSession over the test
// world's workspace, then files written into its upper layer as the overlay would leave them
// (whiteouts for deletions, user.overlay.opaque for replaced folders).
#pragma once

#include "GuiTestSupport.h"
#include "base/Session.h"

#include <QByteArray>
#include <QString>
#include <memory>

namespace sbgt {

void writeFile(const QString& path, const QByteArray& content);
QByteArray readFile(const QString& path);
// Writes `content` to `path` until its ctime is later than `ns`: file times come from a coarse
// clock that lags the one sessions are stamped with.
bool writeAfter(const QString& path, const QByteArray& content, qint64 ns);
// The files below `dir` (relative paths, sorted) with their contents, "path=content" a line.
QString folderText(const QString& dir);

class HandMadeSession {
  public:
    // Creates the session over the world's workspace as it is now. Null (with `error`) when
    // this machine cannot make whiteouts or opaque folders here.
    static std::unique_ptr<HandMadeSession> create(const TestWorld& world, const QString& id,
                                                   QString* error);

    const sb::SessionInfo& info() const { return m_info; }
    QString id() const { return QString::fromStdString(m_info.id); }
    QString upper() const;
    QString project() const;

    void write(const QString& rel, const QByteArray& content) const;
    bool whiteout(const QString& rel) const;
    bool makeOpaque(const QString& rel) const;

  private:
    sb::SessionInfo m_info;
};

} // namespace sbgt
