// The sessions list: live sessions (a supervisor answers on their socket) and recorded ones,
// newest first, with a badge count of pending approvals for live ones. SessionHub feeds it.
// Sessions of remote hosts are listed among this machine's, their host named on each; rows are
// found by their SessionKey's text (a local session's id, as before hosts).
#pragma once

#include "SessionKey.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <vector>

namespace sbui {

struct SessionEntry {
    enum class State { Live, Ended, Interrupted };
    QString id;
    QString host; // the remote host's URL (ssh://…); empty: this machine
    QStringList command;
    QString workspace;
    State state = State::Ended;
    qint64 startedMs = 0; // unix ms
    qint64 endedMs = 0;   // 0 while live
    int exitStatus = -1;
    int pending = 0; // approvals waiting (live sessions)
    // A session with changes and no recording (a fork, or one whose recording is gone): listed
    // so that it can be reviewed and resumed.
    bool recorded = true;
    QString forkedFrom; // "SESSION" or "SESSION@SNAPSHOT" for a fork

    bool operator==(const SessionEntry&) const = default;
    // How the window names the session (SessionKey's text).
    QString key() const { return SessionKey{host, id}.toString(); }
};

class SessionListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { SessionColumn, WorkspaceColumn, StartedColumn, DurationColumn, ColumnCount };
    // IdRole: the session's key (SessionKey's text); HostRole: its host's URL, empty locally.
    enum Role { IdRole = Qt::UserRole + 1, StateRole, PendingRole, WorkspaceRole, HostRole };

    explicit SessionListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Replaces the list with `entries` (any order), keeping rows that did not change, so
    // selections and scroll positions survive a refresh. Pending counts are kept.
    void update(std::vector<SessionEntry> entries);
    // By key (SessionKey's text).
    void setPending(const QString& key, int count);
    const SessionEntry* entry(const QString& key) const;
    const SessionEntry& entryAt(int row) const { return m_entries[static_cast<size_t>(row)]; }
    int rowOf(const QString& key) const;
    // Live sessions' pending approvals, all together (the window title's badge).
    int totalPending() const;
    // What a live session's duration is measured up to; tests freeze it (and move it, then
    // call tick()). Unfrozen, live durations tick every second on their own.
    void setNow(qint64 unixMs);
    // Live rows' durations changed: tells the views.
    void tick();
    // Whether the folder column is shown; hidden (a narrow list), the Session column names
    // the folder of a session without a name of its own.
    void setFolderColumnShown(bool shown);
    // A row's Session column: the session's name (an id chosen with --session-id or --name,
    // else its folder while the folder column is hidden) before its command, so that sessions
    // running the same command tell apart; a remote session's host before both.
    QString sessionText(const SessionEntry& e) const;
    // Whether `id` was chosen by someone, not made by sb::newSessionId().
    static bool isNamed(const QString& id);

  private:
    QString stateText(const SessionEntry& e) const;
    qint64 nowMs() const;

    void updateTicking();

    std::vector<SessionEntry> m_entries; // newest first
    qint64 m_nowMs = 0;
    bool m_folderShown = true;
    QTimer m_ticker;
};

// "1 h 02 min", "3 min 07 s", "12 s".
QString formatDuration(qint64 ms);

} // namespace sbui
