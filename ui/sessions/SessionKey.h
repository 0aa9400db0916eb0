// How the window names a session among those of every host: a session's id is unique only on
// its own machine, so a remote one is named by its host and its id. The key's text (for models'
// roles, settings, the approval queue) is the id alone for a session of this machine, as before
// hosts, and HOST/ID for one of a remote host, where HOST is the host as added (ssh://…): a
// session id never holds a '/', so the text reads back unambiguously.
#pragma once

#include <QString>

namespace sbui {

struct SessionKey {
    QString host; // empty: this machine
    QString id;

    bool isRemote() const { return !host.isEmpty(); }
    QString toString() const;
    // The key a toString() gave; a text without a host is a local session's id.
    static SessionKey parse(const QString& text);
    bool operator==(const SessionKey&) const = default;
};

} // namespace sbui
