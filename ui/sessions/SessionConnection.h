// The GUI's link to one running session: a ControlClient driven by the Qt event loop. Everything
// the supervisor sends arrives as a signal; everything the user does (keys, resize, answers,
// stop) is sent without blocking the window on the supervisor's reply.
#pragma once

#include "control/ControlClient.h"
#include "control/HistoryReplay.h"
#include "policy/SessionAnswers.h"

#include <QObject>
#include <QSocketNotifier>
#include <QString>
#include <QStringList>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

namespace sbui {

class SessionConnection : public QObject {
    Q_OBJECT
  public:
    // Connects and completes the handshake (a local socket: milliseconds). `socketPath` empty:
    // the session's default socket. Interactive when the GUI types into the terminal; a viewer
    // only watches and answers approvals.
    static std::unique_ptr<SessionConnection>
    open(const QString& sessionId, QString* error,
         sb::proto::Role role = sb::proto::Role::Interactive, const QString& socketPath = {});
    // Over a client already connected and past its handshake (a remote host's session,
    // RemoteHostLink).
    static std::unique_ptr<SessionConnection> adopt(std::unique_ptr<sb::ControlClient> client);
    ~SessionConnection() override;

    QString sessionId() const;
    const sb::proto::SessionSummary& summary() const { return m_client->session(); }
    // Requests still waiting for an answer (those of the welcome, then kept up to date).
    const std::vector<sb::ApprovalRequest>& pending() const { return m_pending; }
    // The answers given for this session (the welcome's, then each "for this session" or
    // "always" answer heard): what the session applies before asking again.
    const sb::SessionAnswers& sessionAnswers() const { return m_answers; }
    bool exitedAtWelcome() const;
    bool isOpen() const { return !m_closed; }
    // The session's command has exited (or the connection is gone): it takes nothing more.
    bool hasEnded() const { return m_closed || m_exited || exitedAtWelcome(); }

    // Terminal output from the oldest byte the supervisor holds (redraws the current screen),
    // and activity events from now on.
    void subscribe();
    void sendInput(const QByteArray& keys);
    void resize(int rows, int cols);
    void answer(std::uint64_t id, const sb::ApprovalAnswer& answer);
    // Sends the session an edited policy document (and the file it now comes from, if any);
    // the supervisor's answer arrives as policyUpdated() or policyUpdateFailed().
    void updatePolicy(const nlohmann::json& document, const QString& file);
    void stop();
    void kill();
    // Port previews (protocol version 3): whether the session forwards ports, and a
    // port_request ({op: list | expose | close, port}) whose answer arrives as portReply() or
    // portRequestFailed().
    bool servesPorts() const { return m_client->servesPorts(); }
    void requestPorts(nlohmann::json request);
    // A snapshot of the running session (snapshot_request: its sandbox frozen while its changes
    // are copied, milliseconds); waits for the supervisor's answer. Other messages that came
    // meanwhile are handed out afterwards.
    sb::Result<nlohmann::json> takeSnapshot(const std::string& name);

  Q_SIGNALS:
    void output(const QByteArray& bytes);
    // Output was lost (this client fell behind); the stream resumes after the gap.
    void lagged(quint64 lostBytes);
    void activity(const nlohmann::json& event);
    void approvalRequested(const sb::ApprovalRequest& request);
    void approvalResolved(const sb::ApprovalOutcome& outcome);
    void sessionAnswersChanged();
    // The supervisor refused something this client asked (e.g. an answer to a request another
    // client answered first); not fatal.
    void refused(const QString& message);
    // The supervisor took a policy update: what it applied at once, and what only a new session
    // gets, as the supervisor names the sections ("commands", "network.mode").
    void policyUpdated(const QStringList& applied, const QStringList& deferred);
    void policyUpdateFailed(const QString& message);
    void portReply(const nlohmann::json& reply);
    void portRequestFailed(const QString& message);
    void exited(int status);
    // The connection is over (after exited(), or because the supervisor went away).
    void closed(const QString& reason);

  private:
    explicit SessionConnection(std::unique_ptr<sb::ControlClient> client);
    void onReadable();
    // Hands out the whole messages already read, without reading more.
    void dispatchBuffered();
    void dispatch(const sb::proto::Message& message);
    void send(sb::proto::MsgType type, const nlohmann::json& body = nlohmann::json::object());
    void close(const QString& reason);

    std::unique_ptr<sb::ControlClient> m_client;
    std::unique_ptr<QSocketNotifier> m_notifier;
    sb::HistoryReplay m_history; // the terminal answers no query of the history it redraws
    std::vector<sb::ApprovalRequest> m_pending;
    sb::SessionAnswers m_answers;
    bool m_closed = false;
    bool m_exited = false;
    std::uint64_t m_nextPortRequest = 1;
};

} // namespace sbui
