// The remote hosts the window connects to (issue 40): each as `ssh://[USER@]HOST[:PORT]`, HOST
// possibly an alias of ~/.ssh/config, kept in the window's settings (QSettings, key
// remote/hosts) in the order they were added.
#pragma once

#include <QString>
#include <QStringList>

namespace sbui {

class HostList {
  public:
    // The host as stored, from what the user typed: an ssh:// URL, or an alias (or
    // [USER@]HOST[:PORT]) that gets ssh:// before it. Empty with `error` set when it is not one
    // (another scheme, a path, an option-like name…, as sandbench-cli --host refuses them).
    static QString normalize(const QString& text, QString* error = nullptr);
    // How the window names a host: the URL without its ssh://.
    static QString displayName(const QString& url);

    static QStringList load();
    static void save(const QStringList& hosts);
    // Adds `text` (normalized) unless it is there already; the stored form, or empty with
    // `error` set.
    static QString add(const QString& text, QString* error = nullptr);
    static void remove(const QString& url);
};

} // namespace sbui
