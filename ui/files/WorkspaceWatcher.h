// Tells when anything changes below a folder (a session's overlay upper layer, where every
// write of the agent lands), through inotify on each of its folders. Bursts of events are
// coalesced: `changed` comes at most once per delay, the first time `delay` after the first
// event of a burst. Without inotify (or out of watches) it falls back to polling.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QString>
#include <QTimer>

class QSocketNotifier;

namespace sbui {

class WorkspaceWatcher : public QObject {
    Q_OBJECT

  public:
    explicit WorkspaceWatcher(QObject* parent = nullptr);
    ~WorkspaceWatcher() override;

    // Watches `directory` and every folder below it (created later ones too). Replaces what
    // was watched before.
    void start(const QString& directory);
    void stop();
    void setDelay(int ms) { m_delay.setInterval(ms); }

    // Folders watched through inotify; 0 while polling.
    int watchCount() const { return static_cast<int>(m_paths.size()); }
    bool isPolling() const { return m_poll.isActive(); }

  Q_SIGNALS:
    void changed();

  private:
    void readEvents();
    void watchTree(const QByteArray& directory);
    bool watchOne(const QByteArray& directory);
    void fallBackToPolling();
    void closeInotify();
    void eventSeen();

    int m_fd = -1;
    QSocketNotifier* m_notifier = nullptr;
    QHash<int, QByteArray> m_paths; // watch descriptor -> folder
    QString m_root;
    QTimer m_delay;
    QTimer m_poll;
};

} // namespace sbui
