// Knows every session: finds live ones by their control sockets (including sessions started by
// `sandbench-cli run` in another terminal) and recorded ones in the recordings database, keeps
// one viewer connection per live session so approval requests of every session are seen, and
// keeps the sessions list model up to date. Remote hosts' sessions (issue 40) come in through
// one RemoteHostLink per host and are kept the same way, by their SessionKey's text: every
// method taking a `key` takes a local session's id as before.
#pragma once

#include "SessionConnection.h"
#include "SessionListModel.h"
#include "hosts/RemoteHostLink.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>
#include <map>
#include <memory>

namespace sbui {

class SessionHub : public QObject {
    Q_OBJECT
  public:
    explicit SessionHub(QObject* parent = nullptr);
    ~SessionHub() override;

    SessionListModel* model() { return &m_model; }
    // Looks again now (the hub also looks when a socket appears or goes, and every few seconds).
    void refresh();
    bool isLive(const QString& key) const { return m_connections.count(key) != 0; }
    std::vector<sb::ApprovalRequest> pending(const QString& key) const;
    // What a live session said of itself when the hub connected; nullptr for others.
    const sb::proto::SessionSummary* summary(const QString& key) const;
    void answer(const QString& key, std::uint64_t requestId, const sb::ApprovalAnswer& answer);
    void stop(const QString& key);
    void kill(const QString& key);
    // A connection of its own to a live session (the window's terminal), local or remote.
    std::unique_ptr<SessionConnection> openInteractive(const QString& key, QString* error);

    // The remote hosts connected to (ssh:// URLs, HostList): links to new ones are dialed,
    // those of hosts no longer named end with their sessions.
    void setHosts(const QStringList& urls);
    QStringList hosts() const;
    RemoteHostLink* host(const QString& url) const;
    // The recordings database could not be read (damaged, newer schema): why; empty when fine.
    const QString& recordingsProblem() const { return m_recordingsProblem; }

  Q_SIGNALS:
    void approvalRequested(const QString& sessionId, const sb::ApprovalRequest& request);
    void approvalResolved(const QString& sessionId, const sb::ApprovalOutcome& outcome);
    void pendingChanged(const QString& sessionId, int count);
    void sessionEnded(const QString& sessionId);
    void refreshed();
    // A host was added or removed, or its connection's state changed.
    void hostsChanged();

  private:
    void watchRuntimeDir();
    void connectLive(const QString& id);
    void addLive(const QString& key, std::unique_ptr<SessionConnection> connection);
    void dropLive(const QString& key);
    std::vector<SessionEntry> recordedEntries();

    SessionListModel m_model;
    QFileSystemWatcher m_watcher;
    QTimer m_poll;
    std::map<QString, std::unique_ptr<SessionConnection>> m_connections; // by key
    std::map<QString, std::unique_ptr<RemoteHostLink>> m_hosts;          // by URL
    QString m_recordingsProblem;
    bool m_refreshing = false;
};

} // namespace sbui
