// The window's connection to one remote host (issue 40): one ssh connection to its
// `sandbench-cli dial-stdio` (sb::remote::RemoteHost) carrying a viewer connection to each of its
// running sessions, as SessionHub keeps one to each local session. Dialing, listing and the
// sessions' handshakes run off the GUI thread, so a slow or dead host never freezes the window;
// ssh runs in batch mode, so no password prompt ever waits. When the connection fails or drops,
// it is dialed again after a wait that grows with each failure in a row (Backoff); the host's
// supervisors keep their pending approvals meanwhile, and the next connection offers them again.
#pragma once

#include "Backoff.h"
#include "control/ControlClient.h"

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace sb::remote {
class RemoteHost;
}

namespace sbui {

class RemoteHostLink : public QObject {
    Q_OBJECT
  public:
    enum class State { Connecting, Connected, Waiting };
    // A session's viewer client, handed over as the link finds the session; the receiver owns it.
    using SessionFound =
        std::function<void(const QString& id, std::unique_ptr<sb::ControlClient> client)>;

    // Dials `url` (an ssh:// host, HostList) at once.
    RemoteHostLink(const QString& url, SessionFound onSession, QObject* parent = nullptr);
    ~RemoteHostLink() override;

    const QString& url() const { return m_url; }
    State state() const { return m_state; }
    // Why the last attempt failed or the connection dropped, in the user's terms (ssh's
    // unknown host key, a refused login, no Sandbench there…); empty while none did.
    const QString& lastError() const { return m_lastError; }
    // While waiting: the milliseconds until the next attempt.
    int retryDelayMs() const { return m_retryDelayMs; }
    // What the state and last error say, for the Hosts view and tooltips.
    QString stateText() const;
    // The ssh process of the connection (tests cut it); -1 while none is up.
    int transportPid() const;
    // A new client of session `id` over the connection (the window's terminal); its handshake
    // is a round trip to the host.
    sb::Result<std::unique_ptr<sb::ControlClient>> connectSession(const QString& id,
                                                                  sb::proto::Role role);
    // The viewer client of session `id` ended (the session did, or the connection): the next
    // look finds it again if it still runs.
    void forget(const QString& id);
    // Dials now instead of waiting (the Hosts view's "Connect now").
    void reconnectNow();
    // Runs `sandbench-cli ARGS…` on the host off the GUI thread and gives `done` its status and
    // output on the GUI thread, if `context` still exists (an error: not connected, or the
    // connection ended first).
    struct Captured {
        QString error;
        int status = -1;
        QByteArray out;
        QString err;
    };
    void capture(const QStringList& args, QObject* context,
                 std::function<void(const Captured&)> done);
    // The same with stdout written to `file` here (off the GUI thread; Captured::out stays
    // empty): a remote session's recording, which may be large.
    void captureToFile(const QStringList& args, const QString& file, QObject* context,
                       std::function<void(const Captured&)> done);

    // The host's recorded sessions that no longer run (ended or interrupted), as its
    // `sandbench-cli sessions --json` lists them: asked when connected, when a session of it
    // ends and every 10 s; none while not connected.
    struct Recorded {
        QString id;
        QStringList command;
        QString workspace;
        bool interrupted = false;
        bool recorded = true; // false: changes and no recording (a fork, a stopped session)
        qint64 startedMs = 0, endedMs = 0;
        int exitStatus = -1;
        qint64 storedBytes = 0; // the recording's size in its database
    };
    const std::vector<Recorded>& recorded() const { return m_recorded; }
    const Recorded* recordedSession(const QString& id) const;
    // Asks the host for them now (recordedRead follows, unless the connection fails first).
    void askRecorded();
    // What `sessions --json` printed, less those still running; nullopt when it is not a list.
    static std::optional<std::vector<Recorded>> parseRecorded(const QByteArray& json);
    // How often the link looks for new sessions and a dropped connection (2 s).
    void setPollIntervalMs(int ms) { m_poll.setInterval(ms); }

  Q_SIGNALS:
    void stateChanged();
    void recordedChanged();
    // An answer to askRecorded() arrived (after recordedChanged, when they changed).
    void recordedRead();

  private:
    struct Found;
    void dial();
    void onDialed(std::shared_ptr<Found> found);
    void look();
    void onLooked(std::shared_ptr<Found> found);
    void lost(const QString& reason);
    void setState(State state);
    void hand(Found& found);
    void setRecorded(std::vector<Recorded> recorded);

    QString m_url;
    SessionFound m_onSession;
    std::shared_ptr<sb::remote::RemoteHost> m_host;
    State m_state = State::Connecting;
    QString m_lastError;
    int m_retryDelayMs = 0;
    Backoff m_backoff;
    QTimer m_retry;
    QTimer m_poll;
    QSet<QString> m_sessions; // those handed over and not forgotten
    quint64 m_generation = 0; // a result of an older attempt is dropped
    bool m_looking = false;
    std::vector<Recorded> m_recorded;
    int m_looks = 0; // asks for the recorded sessions every few looks
    bool m_askingRecorded = false;
};

} // namespace sbui
