#include "SessionHub.h"

#include "base/Session.h"
#include "control/Protocol.h"
#include "recording/RecordingStore.h"
#include "workspace/UnrecordedSessions.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <set>

namespace sbui {
namespace {

QString runtimeDir()
{
    return QString::fromStdString(sb::proto::socketPath("x").parent_path().string());
}

qint64 nsToMs(std::int64_t ns)
{
    return ns / 1'000'000;
}

QStringList toStringList(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v)
        out << QString::fromStdString(s);
    return out;
}

} // namespace

SessionHub::SessionHub(QObject* parent) : QObject(parent)
{
    (void)sb::markInterruptedSessions();
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &SessionHub::refresh);
    // The folder may not exist yet, and a recorded session's end is only in the database.
    m_poll.setInterval(2000);
    connect(&m_poll, &QTimer::timeout, this, &SessionHub::refresh);
    m_poll.start();
    refresh();
}

SessionHub::~SessionHub() = default;

void SessionHub::watchRuntimeDir()
{
    const QString dir = runtimeDir();
    if (m_watcher.directories().contains(dir)) return;
    if (QFileInfo(dir).isDir()) m_watcher.addPath(dir);
}

std::vector<SessionEntry> SessionHub::recordedEntries()
{
    std::vector<SessionEntry> out;
    auto store = sb::RecordingStore::open();
    if (!store) {
        m_recordingsProblem = QString::fromStdString(store.error().describe());
        return out;
    }
    auto sessions = store->sessions();
    if (!sessions) {
        m_recordingsProblem = QString::fromStdString(sessions.error().describe());
        return out;
    }
    m_recordingsProblem.clear();
    for (const auto& s : *sessions) {
        SessionEntry e;
        e.id = QString::fromStdString(s.id);
        e.command = toStringList(s.command);
        e.workspace = QString::fromStdString(s.workspace);
        e.startedMs = nsToMs(s.startedNs);
        e.endedMs = nsToMs(s.endedNs);
        e.exitStatus = s.exitStatus.value_or(-1);
        e.state = s.state == sb::RecordState::Interrupted ? SessionEntry::State::Interrupted
                                                          : SessionEntry::State::Ended;
        out.push_back(std::move(e));
    }
    // Forks and sessions whose recording is gone: their changes wait to be resumed.
    std::set<std::string> recorded;
    for (const auto& s : *sessions)
        recorded.insert(s.id);
    for (const sb::SessionInfo& s : sb::unrecordedSessionsWithChanges(recorded)) {
        SessionEntry e;
        e.id = QString::fromStdString(s.id);
        e.command = toStringList(s.command);
        e.workspace = QFile::decodeName(s.project.c_str());
        e.startedMs = nsToMs(s.startedNs);
        e.endedMs = s.endedNs != 0 ? nsToMs(s.endedNs) : e.startedMs;
        e.exitStatus = s.exitStatus;
        e.recorded = false;
        e.forkedFrom = QString::fromStdString(s.forkedFrom);
        out.push_back(std::move(e));
    }
    return out;
}

void SessionHub::refresh()
{
    if (m_refreshing) return; // a connection's signal may arrive while we connect
    m_refreshing = true;
    watchRuntimeDir();

    // Live: a socket whose supervisor answers. A stale socket is left to the CLI's cleanup.
    QDir dir(runtimeDir());
    const QStringList sockets = dir.entryList({QStringLiteral("*.sock")}, QDir::System);
    for (const QString& name : sockets) {
        QString id = name.chopped(5);
        if (!m_connections.count(id) && sb::isValidSessionId(id.toStdString())) connectLive(id);
    }

    std::vector<SessionEntry> entries = recordedEntries();
    // The hosts' sessions that ended: their replay and changes are read from there.
    for (const auto& [url, link] : m_hosts)
        for (const RemoteHostLink::Recorded& r : link->recorded()) {
            SessionEntry e;
            e.id = r.id;
            e.host = url;
            e.command = r.command;
            e.workspace = r.workspace;
            e.startedMs = r.startedMs;
            e.endedMs = r.endedMs;
            e.exitStatus = r.exitStatus;
            e.state = r.interrupted ? SessionEntry::State::Interrupted : SessionEntry::State::Ended;
            e.recorded = r.recorded;
            entries.push_back(std::move(e));
        }
    for (const auto& [key, connection] : m_connections) {
        const auto& summary = connection->summary();
        auto it = std::find_if(entries.begin(), entries.end(),
                               [&](const SessionEntry& e) { return e.key() == key; });
        if (it == entries.end()) it = entries.insert(entries.end(), SessionEntry{});
        const SessionKey parsed = SessionKey::parse(key);
        it->id = parsed.id;
        it->host = parsed.host;
        it->command = toStringList(summary.command);
        it->workspace = QString::fromStdString(summary.workspace);
        it->startedMs = summary.startedUnixMs;
        it->endedMs = 0;
        it->state = SessionEntry::State::Live;
    }
    // A recording still "running" without a live supervisor is between its end and the
    // database catching up, or an interrupted one the next start will mark: show it ended.
    m_model.update(std::move(entries));
    for (const auto& [key, connection] : m_connections)
        m_model.setPending(key, static_cast<int>(connection->pending().size()));
    m_refreshing = false;
    Q_EMIT refreshed();
}

void SessionHub::connectLive(const QString& id)
{
    QString error;
    addLive(id, SessionConnection::open(id, &error, sb::proto::Role::Viewer));
}

void SessionHub::addLive(const QString& id, std::unique_ptr<SessionConnection> connection)
{
    if (!connection || connection->exitedAtWelcome()) return;
    SessionConnection* c = connection.get();
    connect(c, &SessionConnection::approvalRequested, this, [this, id, c](const auto& request) {
        Q_EMIT approvalRequested(id, request);
        m_model.setPending(id, static_cast<int>(c->pending().size()));
        Q_EMIT pendingChanged(id, static_cast<int>(c->pending().size()));
    });
    connect(c, &SessionConnection::approvalResolved, this, [this, id, c](const auto& outcome) {
        Q_EMIT approvalResolved(id, outcome);
        m_model.setPending(id, static_cast<int>(c->pending().size()));
        Q_EMIT pendingChanged(id, static_cast<int>(c->pending().size()));
    });
    // Dropped later, from the event loop: the connection is in the middle of a signal. Not
    // when it is gone by then: a remote session's new connection may have taken its place.
    connect(c, &SessionConnection::closed, this, [this, id, c] {
        QMetaObject::invokeMethod(
            this,
            [this, id, which = QPointer<SessionConnection>(c)] {
                if (which) dropLive(id);
            },
            Qt::QueuedConnection);
    });
    m_connections[id] = std::move(connection);
    for (const auto& request : c->pending())
        Q_EMIT approvalRequested(id, request);
    if (!c->pending().empty()) Q_EMIT pendingChanged(id, static_cast<int>(c->pending().size()));
}

void SessionHub::dropLive(const QString& id)
{
    auto it = m_connections.find(id);
    if (it == m_connections.end()) return;
    const bool hadPending = !it->second->pending().empty();
    m_connections.erase(it);
    const SessionKey key = SessionKey::parse(id);
    if (RemoteHostLink* link = host(key.host)) link->forget(key.id);
    m_model.setPending(id, 0);
    if (hadPending) Q_EMIT pendingChanged(id, 0);
    Q_EMIT sessionEnded(id);
    refresh();
}

std::vector<sb::ApprovalRequest> SessionHub::pending(const QString& id) const
{
    auto it = m_connections.find(id);
    return it == m_connections.end() ? std::vector<sb::ApprovalRequest>{} : it->second->pending();
}

const sb::proto::SessionSummary* SessionHub::summary(const QString& id) const
{
    auto it = m_connections.find(id);
    return it == m_connections.end() ? nullptr : &it->second->summary();
}

void SessionHub::answer(const QString& id, std::uint64_t requestId,
                        const sb::ApprovalAnswer& answer)
{
    if (auto it = m_connections.find(id); it != m_connections.end())
        it->second->answer(requestId, answer);
}

void SessionHub::stop(const QString& id)
{
    if (auto it = m_connections.find(id); it != m_connections.end()) it->second->stop();
}

void SessionHub::kill(const QString& id)
{
    if (auto it = m_connections.find(id); it != m_connections.end()) it->second->kill();
}

std::unique_ptr<SessionConnection> SessionHub::openInteractive(const QString& key, QString* error)
{
    const SessionKey parsed = SessionKey::parse(key);
    if (!parsed.isRemote()) return SessionConnection::open(key, error);
    RemoteHostLink* link = host(parsed.host);
    if (!link) {
        if (error) *error = tr("%1 is not among the hosts").arg(parsed.host);
        return nullptr;
    }
    auto client = link->connectSession(parsed.id, sb::proto::Role::Interactive);
    if (!client) {
        if (error) *error = QString::fromStdString(client.error().describe());
        return nullptr;
    }
    return SessionConnection::adopt(std::move(*client));
}

void SessionHub::setHosts(const QStringList& urls)
{
    bool changed = false;
    for (auto it = m_hosts.begin(); it != m_hosts.end();) {
        if (urls.contains(it->first)) {
            ++it;
            continue;
        }
        const QString prefix = SessionKey{it->first, QString()}.toString();
        it = m_hosts.erase(it); // its connection ends, and with it its sessions' channels
        std::vector<QString> gone;
        for (const auto& [key, connection] : m_connections)
            if (key.startsWith(prefix)) gone.push_back(key);
        for (const QString& key : gone)
            dropLive(key);
        changed = true;
    }
    for (const QString& url : urls) {
        if (m_hosts.count(url)) continue;
        auto link = std::make_unique<RemoteHostLink>(url, [this,
                                                           url](const QString& id,
                                                                std::unique_ptr<sb::ControlClient>
                                                                    client) {
            addLive(SessionKey{url, id}.toString(), SessionConnection::adopt(std::move(client)));
            refresh();
        });
        connect(link.get(), &RemoteHostLink::stateChanged, this, &SessionHub::hostsChanged);
        connect(link.get(), &RemoteHostLink::recordedChanged, this, &SessionHub::refresh);
        m_hosts[url] = std::move(link);
        changed = true;
    }
    if (changed) {
        refresh(); // a removed host's recorded sessions go
        Q_EMIT hostsChanged();
    }
}

QStringList SessionHub::hosts() const
{
    QStringList out;
    for (const auto& [url, link] : m_hosts)
        out << url;
    return out;
}

RemoteHostLink* SessionHub::host(const QString& url) const
{
    auto it = m_hosts.find(url);
    return it == m_hosts.end() ? nullptr : it->second.get();
}

} // namespace sbui
