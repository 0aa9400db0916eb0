// Knows every session: finds live ones by their control sockets (including sessions started by
// `sandbench-cli run` in another terminal) and recorded ones in the recordings database, keeps
// one viewer connection per live session so approval requests of every session are seen, and
// keeps the sessions list model up to date.
#pragma once

#include "SessionConnection.h"
#include "SessionListModel.h"

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
    bool isLive(const QString& id) const { return m_connections.count(id) != 0; }
    std::vector<sb::ApprovalRequest> pending(const QString& id) const;
    // What a live session said of itself when the hub connected; nullptr for others.
    const sb::proto::SessionSummary* summary(const QString& id) const;
    void answer(const QString& id, std::uint64_t requestId, const sb::ApprovalAnswer& answer);
    void stop(const QString& id);
    void kill(const QString& id);
    // The recordings database could not be read (damaged, newer schema): why; empty when fine.
    const QString& recordingsProblem() const { return m_recordingsProblem; }

  Q_SIGNALS:
    void approvalRequested(const QString& sessionId, const sb::ApprovalRequest& request);
    void approvalResolved(const QString& sessionId, const sb::ApprovalOutcome& outcome);
    void pendingChanged(const QString& sessionId, int count);
    void sessionEnded(const QString& sessionId);
    void refreshed();

  private:
    void watchRuntimeDir();
    void connectLive(const QString& id);
    void dropLive(const QString& id);
    std::vector<SessionEntry> recordedEntries();

    SessionListModel m_model;
    QFileSystemWatcher m_watcher;
    QTimer m_poll;
    std::map<QString, std::unique_ptr<SessionConnection>> m_connections;
    QString m_recordingsProblem;
    bool m_refreshing = false;
};

} // namespace sbui
