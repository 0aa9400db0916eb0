#include "HostList.h"

#include "remote/SshTarget.h"

#include <QCoreApplication>
#include <QSettings>

namespace sbui {
namespace {

const QString kScheme = QStringLiteral("ssh://");
const QString kKey = QStringLiteral("remote/hosts");

} // namespace

QString HostList::normalize(const QString& text, QString* error)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        if (error) *error = QCoreApplication::translate("sbui", "Name a host.");
        return {};
    }
    const QString url = trimmed.contains(QStringLiteral("://")) ? trimmed : kScheme + trimmed;
    auto target = sb::remote::parseSshTarget(url.toStdString());
    if (!target) {
        if (error) *error = QString::fromStdString(target.error().message);
        return {};
    }
    return url;
}

QString HostList::displayName(const QString& url)
{
    return url.startsWith(kScheme) ? url.mid(kScheme.size()) : url;
}

QStringList HostList::load()
{
    QStringList hosts;
    // Only what still reads as a host: a hand-edited entry that does not is left out.
    for (const QString& url : QSettings().value(kKey).toStringList())
        if (!normalize(url).isEmpty() && !hosts.contains(url)) hosts << url;
    return hosts;
}

void HostList::save(const QStringList& hosts)
{
    QSettings().setValue(kKey, hosts);
}

QString HostList::add(const QString& text, QString* error)
{
    const QString url = normalize(text, error);
    if (url.isEmpty()) return {};
    QStringList hosts = load();
    if (!hosts.contains(url)) {
        hosts << url;
        save(hosts);
    }
    return url;
}

void HostList::remove(const QString& url)
{
    QStringList hosts = load();
    if (hosts.removeAll(url) > 0) save(hosts);
}

} // namespace sbui
