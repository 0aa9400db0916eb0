#include "SessionConnection.h"

#include <algorithm>

namespace sbui {

using sb::proto::Message;
using sb::proto::MsgType;

std::unique_ptr<SessionConnection> SessionConnection::open(const QString& sessionId, QString* error,
                                                           sb::proto::Role role,
                                                           const QString& socketPath)
{
    auto client = socketPath.isEmpty()
                      ? sb::ControlClient::connect(sessionId.toStdString(), "gui", role, 3000)
                      : sb::ControlClient::connectPath(socketPath.toStdString(), "gui", role, 3000);
    if (!client) {
        if (error) *error = QString::fromStdString(client.error().describe());
        return nullptr;
    }
    return adopt(std::move(client.value()));
}

std::unique_ptr<SessionConnection>
SessionConnection::adopt(std::unique_ptr<sb::ControlClient> client)
{
    return std::unique_ptr<SessionConnection>(new SessionConnection(std::move(client)));
}

SessionConnection::SessionConnection(std::unique_ptr<sb::ControlClient> client)
    : m_client(std::move(client)), m_pending(m_client->pendingAtWelcome()),
      m_answers(sb::SessionAnswers::fromJson(m_client->session().sessionRules))
{
    m_notifier = std::make_unique<QSocketNotifier>(m_client->fd(), QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &SessionConnection::onReadable);
    // The handshake may have read past the welcome (a request the supervisor sent right after
    // it): the socket will not signal those bytes again. Handed out once the owner has
    // connected to our signals, on the next turn of the event loop.
    QMetaObject::invokeMethod(this, &SessionConnection::dispatchBuffered, Qt::QueuedConnection);
}

SessionConnection::~SessionConnection() = default;

QString SessionConnection::sessionId() const
{
    return QString::fromStdString(m_client->session().id);
}

bool SessionConnection::exitedAtWelcome() const
{
    return m_client->welcome().value("exited", false);
}

void SessionConnection::subscribe()
{
    if (m_closed) return;
    if (auto e = m_client->subscribe()) close(QString::fromStdString(e->describe()));
}

void SessionConnection::sendInput(const QByteArray& keys)
{
    if (m_closed || keys.isEmpty()) return;
    if (auto e = m_client->sendInput(std::string_view(keys.constData(), keys.size())))
        close(QString::fromStdString(e->describe()));
}

void SessionConnection::resize(int rows, int cols)
{
    if (m_closed || rows <= 0 || cols <= 0) return;
    if (auto e = m_client->resize(static_cast<unsigned>(rows), static_cast<unsigned>(cols)))
        close(QString::fromStdString(e->describe()));
}

void SessionConnection::answer(std::uint64_t id, const sb::ApprovalAnswer& answer)
{
    nlohmann::json body = sb::proto::toJson(answer);
    body["id"] = id;
    send(MsgType::ApprovalAnswer, body);
}

void SessionConnection::updatePolicy(const nlohmann::json& document, const QString& file)
{
    if (m_closed) {
        Q_EMIT policyUpdateFailed(tr("the session has ended"));
        return;
    }
    send(MsgType::PolicyUpdate,
         sb::proto::toJson(sb::proto::PolicyUpdate{document, file.isEmpty() ? std::string()
                                                                            : file.toStdString()}));
}

void SessionConnection::stop()
{
    send(MsgType::Stop);
}

void SessionConnection::kill()
{
    send(MsgType::Kill);
}

void SessionConnection::requestPorts(nlohmann::json request)
{
    request["id"] = m_nextPortRequest++;
    send(MsgType::PortRequest, request);
}

sb::Result<nlohmann::json> SessionConnection::takeSnapshot(const std::string& name)
{
    auto taken = m_client->snapshot(name);
    QMetaObject::invokeMethod(this, &SessionConnection::dispatchBuffered, Qt::QueuedConnection);
    return taken;
}

void SessionConnection::send(MsgType type, const nlohmann::json& body)
{
    if (m_closed) return;
    if (auto e = m_client->sendFrame(sb::proto::encodeJson(type, body)))
        close(QString::fromStdString(e->describe()));
}

void SessionConnection::onReadable()
{
    // Read once, then hand out every whole message; a message's handler may close us.
    sb::Status readStatus = m_client->readAvailable();
    dispatchBuffered();
    if (readStatus && !m_closed) close(QString::fromStdString(readStatus->describe()));
}

void SessionConnection::dispatchBuffered()
{
    Message message;
    while (!m_closed) {
        auto more = m_client->next(message);
        if (!more) {
            close(QString::fromStdString(more.error().describe()));
            return;
        }
        if (!*more) return;
        dispatch(message);
    }
}

void SessionConnection::dispatch(const Message& message)
{
    switch (message.type) {
    case MsgType::Subscribed:
        m_history.subscribed(message.body.value("next_seq", std::uint64_t{0}));
        break;
    case MsgType::Output: {
        const std::string shown = m_history.output(message.seq, message.bytes);
        if (!shown.empty())
            Q_EMIT output(QByteArray(shown.data(), static_cast<qsizetype>(shown.size())));
        break;
    }
    case MsgType::Lagged:
        Q_EMIT lagged(message.body.value("lost_bytes", std::uint64_t{0}));
        break;
    case MsgType::Event:
        Q_EMIT activity(message.body);
        break;
    case MsgType::ApprovalRequest:
        if (auto request = sb::proto::approvalRequestFromJson(message.body)) {
            // A request made as we said hello comes in the welcome and after it.
            if (std::any_of(m_pending.begin(), m_pending.end(),
                            [&](const auto& r) { return r.id == request->id; }))
                break;
            m_pending.push_back(*request);
            Q_EMIT approvalRequested(*request);
        }
        break;
    case MsgType::ApprovalOutcome:
        if (auto outcome = sb::proto::approvalOutcomeFromJson(message.body)) {
            // An answer for the session becomes a rule, as the supervisor makes it.
            bool learned = false;
            if (!outcome->timedOut && !outcome->cancelled &&
                outcome->answer.duration != sb::ApprovalDuration::Once)
                for (const sb::ApprovalRequest& r : m_pending)
                    if (r.id == outcome->id)
                        if (auto rule = sb::ruleFromAnswer(r, outcome->answer)) {
                            m_answers.add(*rule);
                            learned = true;
                        }
            std::erase_if(m_pending, [&](const auto& r) { return r.id == outcome->id; });
            Q_EMIT approvalResolved(*outcome);
            if (learned) Q_EMIT sessionAnswersChanged();
        }
        break;
    case MsgType::Ack:
        if (message.body.value("ref", "") == "policy_update") {
            auto result = sb::proto::policyUpdateResultFromJson(message.body);
            QStringList applied, deferred;
            if (result) {
                for (const std::string& s : result->applied)
                    applied << QString::fromStdString(s);
                for (const std::string& s : result->deferred)
                    deferred << QString::fromStdString(s);
            }
            Q_EMIT policyUpdated(applied, deferred);
        }
        break;
    case MsgType::Error: {
        sb::Error error = sb::proto::errorFromBody(message.body);
        const std::string ref = message.body.value("ref", "");
        if (!message.body.value("fatal", false) && ref == "policy_update")
            Q_EMIT policyUpdateFailed(QString::fromStdString(error.message));
        else if (!message.body.value("fatal", false) && ref == "port_request")
            Q_EMIT portRequestFailed(QString::fromStdString(error.message));
        else if (message.body.value("fatal", false))
            close(QString::fromStdString(error.message));
        else
            Q_EMIT refused(QString::fromStdString(error.message));
        break;
    }
    case MsgType::PortReply:
        Q_EMIT portReply(message.body);
        break;
    case MsgType::Exit:
        m_exited = true;
        Q_EMIT exited(message.body.value("status", -1));
        break;
    default: // welcome: nothing for the window to do
        break;
    }
}

void SessionConnection::close(const QString& reason)
{
    if (m_closed) return;
    m_closed = true;
    m_notifier->setEnabled(false);
    Q_EMIT closed(reason);
}

} // namespace sbui
