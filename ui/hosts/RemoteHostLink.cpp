#include "RemoteHostLink.h"

#include "remote/RemoteHost.h"

#include <QCoreApplication>
#include <QFile>
#include <QPointer>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

namespace sbui {

namespace {

constexpr int kPollMs = 2000;
constexpr int kRequestTimeoutMs = 10000;
// The recorded sessions are asked for every this many looks (10 s).
constexpr int kLooksPerRecorded = 5;
// How far back the list of a host's recorded sessions goes.
const char* const kRecordedSince = "30d";
// A recording fetched into a file may take this long.
constexpr int kFetchTimeoutMs = 300000;

QString describe(const sb::Error& error)
{
    return QString::fromStdString(error.message);
}

// Runs `work` on a thread of its own and then `done` on the GUI thread, if `link` still exists.
template <class Work, class Done> void offThread(QObject* link, Work work, Done done)
{
    std::thread([link = QPointer<QObject>(link), work = std::move(work),
                 done = std::move(done)]() mutable {
        auto result = work();
        QCoreApplication* app = QCoreApplication::instance();
        if (!app) return; // the window is gone, and the program is ending
        QMetaObject::invokeMethod(
            app,
            [link, done = std::move(done), result]() mutable {
                if (link) done(result);
            },
            Qt::QueuedConnection);
    }).detach();
}

// Sessions not yet handed over: a viewer client each (those that refuse are left for the next
// look: the session may be ending).
void openSessions(sb::remote::RemoteHost& host, const std::vector<std::string>& ids,
                  const QSet<QString>& known,
                  std::vector<std::pair<QString, std::unique_ptr<sb::ControlClient>>>& out)
{
    for (const std::string& id : ids) {
        const QString qid = QString::fromStdString(id);
        if (known.contains(qid)) continue;
        auto client = host.connectSession(id, "gui", sb::proto::Role::Viewer, kRequestTimeoutMs);
        if (client) out.emplace_back(qid, std::move(*client));
    }
}

} // namespace

struct RemoteHostLink::Found {
    quint64 generation = 0;
    std::shared_ptr<sb::remote::RemoteHost> host;
    QString error; // the dial or the list failed
    std::vector<std::pair<QString, std::unique_ptr<sb::ControlClient>>> sessions;
};

RemoteHostLink::RemoteHostLink(const QString& url, SessionFound onSession, QObject* parent)
    : QObject(parent), m_url(url), m_onSession(std::move(onSession))
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &RemoteHostLink::dial);
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &RemoteHostLink::look);
    dial();
}

RemoteHostLink::~RemoteHostLink()
{
    // Ending the stream waits for ssh to exit: not on the GUI thread.
    if (m_host) std::thread([host = std::move(m_host)] {}).detach();
}

QString RemoteHostLink::stateText() const
{
    switch (m_state) {
    case State::Connecting:
        return m_lastError.isEmpty() ? tr("connecting…") : tr("connecting again…");
    case State::Connected:
        return tr("connected, %n session(s)", nullptr, static_cast<int>(m_sessions.size()));
    case State::Waiting:
        break;
    }
    return tr("not connected, trying again in %1 s").arg((m_retryDelayMs + 999) / 1000);
}

int RemoteHostLink::transportPid() const
{
    return m_host && m_state == State::Connected ? m_host->transportPid() : -1;
}

void RemoteHostLink::setState(State state)
{
    m_state = state;
    Q_EMIT stateChanged();
}

void RemoteHostLink::dial()
{
    m_retry.stop();
    const quint64 generation = ++m_generation;
    setState(State::Connecting);
    const std::string url = m_url.toStdString();
    offThread(
        this,
        [generation, url] {
            auto found = std::make_shared<Found>();
            found->generation = generation;
            auto target = sb::remote::parseSshTarget(url);
            auto options = sb::remote::dialOptionsFromEnvironment();
            if (!target || !options) {
                found->error = describe(!target ? target.error() : options.error());
                return found;
            }
            auto host = sb::remote::RemoteHost::dial(*target, *options);
            if (!host) {
                found->error = describe(host.error());
                return found;
            }
            found->host = std::move(*host);
            auto ids = found->host->listSessions(kRequestTimeoutMs);
            if (!ids) {
                found->error = describe(ids.error());
                return found;
            }
            openSessions(*found->host, *ids, {}, found->sessions);
            return found;
        },
        [this](std::shared_ptr<Found> found) { onDialed(std::move(found)); });
}

void RemoteHostLink::onDialed(std::shared_ptr<Found> found)
{
    if (found->generation != m_generation) return;
    if (!found->error.isEmpty()) {
        if (found->host) std::thread([host = std::move(found->host)] {}).detach();
        lost(found->error);
        return;
    }
    m_host = std::move(found->host);
    m_backoff.reset();
    m_lastError.clear();
    m_sessions.clear();
    m_poll.start();
    hand(*found);
    setState(State::Connected);
    askRecorded();
}

void RemoteHostLink::hand(Found& found)
{
    for (auto& [id, client] : found.sessions) {
        m_sessions.insert(id);
        m_onSession(id, std::move(client));
    }
}

void RemoteHostLink::look()
{
    if (!m_host || m_looking) return;
    if (!m_host->connected()) {
        lost(describe(m_host->lastError()));
        return;
    }
    if (++m_looks % kLooksPerRecorded == 0) askRecorded();
    m_looking = true;
    const quint64 generation = m_generation;
    offThread(
        this,
        [generation, host = m_host, known = m_sessions] {
            auto found = std::make_shared<Found>();
            found->generation = generation;
            auto ids = host->listSessions(kRequestTimeoutMs);
            if (!ids)
                found->error = describe(ids.error());
            else
                openSessions(*host, *ids, known, found->sessions);
            return found;
        },
        [this](std::shared_ptr<Found> found) { onLooked(std::move(found)); });
}

void RemoteHostLink::onLooked(std::shared_ptr<Found> found)
{
    m_looking = false;
    if (found->generation != m_generation || !m_host) return;
    if (!found->error.isEmpty() && !m_host->connected()) {
        lost(describe(m_host->lastError()));
        return;
    }
    const int before = static_cast<int>(m_sessions.size());
    hand(*found);
    if (static_cast<int>(m_sessions.size()) != before) Q_EMIT stateChanged();
}

void RemoteHostLink::lost(const QString& reason)
{
    ++m_generation; // what an attempt under way finds is dropped
    m_poll.stop();
    m_looking = false;
    if (m_host) std::thread([host = std::move(m_host)] {}).detach();
    m_host.reset();
    m_lastError = reason;
    setRecorded({}); // reached through the connection only
    m_retryDelayMs = m_backoff.next();
    m_retry.start(m_retryDelayMs);
    setState(State::Waiting);
}

void RemoteHostLink::forget(const QString& id)
{
    const bool had = m_sessions.remove(id);
    // The client ended: because the session did, or because the connection is gone.
    if (m_host && !m_host->connected())
        lost(describe(m_host->lastError()));
    else if (had) {
        askRecorded(); // it is listed among the recorded ones now
        Q_EMIT stateChanged();
    }
}

const RemoteHostLink::Recorded* RemoteHostLink::recordedSession(const QString& id) const
{
    for (const Recorded& r : m_recorded)
        if (r.id == id) return &r;
    return nullptr;
}

std::optional<std::vector<RemoteHostLink::Recorded>>
RemoteHostLink::parseRecorded(const QByteArray& text)
{
    const auto listed = nlohmann::json::parse(text.toStdString(), nullptr, false);
    if (!listed.is_array()) return std::nullopt;
    std::vector<Recorded> out;
    auto str = [](const nlohmann::json& j, const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                : QString();
    };
    auto num = [](const nlohmann::json& j, const char* key) -> qint64 {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<qint64>() : -1;
    };
    for (const auto& s : listed) {
        if (!s.is_object()) continue;
        Recorded r;
        r.id = str(s, "id");
        const QString state = str(s, "state");
        if (r.id.isEmpty() || state == QLatin1String("running")) continue;
        r.interrupted = state == QLatin1String("interrupted");
        r.recorded = state == QLatin1String("ended") || r.interrupted;
        if (const auto it = s.find("command"); it != s.end() && it->is_array())
            for (const auto& word : *it)
                if (word.is_string()) r.command << QString::fromStdString(word.get<std::string>());
        r.workspace = str(s, "workspace");
        r.startedMs = std::max<qint64>(0, num(s, "started_ns") / 1'000'000);
        r.endedMs = std::max<qint64>(0, num(s, "ended_ns") / 1'000'000);
        if (r.endedMs == 0) r.endedMs = r.startedMs;
        r.exitStatus = static_cast<int>(std::max<qint64>(-1, num(s, "exit_status")));
        r.storedBytes = std::max<qint64>(0, num(s, "stored_bytes"));
        out.push_back(std::move(r));
    }
    return out;
}

void RemoteHostLink::askRecorded()
{
    if (m_askingRecorded || !m_host) return;
    m_askingRecorded = true;
    const quint64 generation = m_generation;
    capture({QStringLiteral("sessions"), QStringLiteral("--json"), QStringLiteral("--since"),
             QLatin1String(kRecordedSince)},
            this, [this, generation](const Captured& run) {
                m_askingRecorded = false;
                if (generation != m_generation || run.status != 0) return; // kept as it was
                if (auto recorded = parseRecorded(run.out)) setRecorded(std::move(*recorded));
                Q_EMIT recordedRead();
            });
}

void RemoteHostLink::setRecorded(std::vector<Recorded> recorded)
{
    const bool same = recorded.size() == m_recorded.size() &&
                      std::equal(recorded.begin(), recorded.end(), m_recorded.begin(),
                                 [](const Recorded& a, const Recorded& b) {
                                     return a.id == b.id && a.endedMs == b.endedMs &&
                                            a.storedBytes == b.storedBytes &&
                                            a.recorded == b.recorded &&
                                            a.interrupted == b.interrupted;
                                 });
    m_recorded = std::move(recorded);
    if (!same) Q_EMIT recordedChanged();
}

void RemoteHostLink::reconnectNow()
{
    if (m_state == State::Waiting) dial();
}

void RemoteHostLink::capture(const QStringList& args, QObject* context,
                             std::function<void(const Captured&)> done)
{
    captureToFile(args, {}, context, std::move(done));
}

void RemoteHostLink::captureToFile(const QStringList& args, const QString& file, QObject* context,
                                   std::function<void(const Captured&)> done)
{
    if (!m_host || !m_host->connected()) {
        Captured failed;
        failed.error = tr("not connected to %1").arg(m_url);
        QMetaObject::invokeMethod(
            context, [done, failed] { done(failed); }, Qt::QueuedConnection);
        return;
    }
    std::vector<std::string> argv;
    for (const QString& a : args)
        argv.push_back(a.toStdString());
    offThread(
        context,
        [host = m_host, argv, file] {
            auto result = std::make_shared<Captured>();
            auto run = file.isEmpty() ? host->capture(argv) : host->capture(argv, kFetchTimeoutMs);
            if (!run) {
                result->error = describe(run.error());
                return result;
            }
            result->status = run->status;
            if (file.isEmpty()) {
                result->out = QByteArray::fromStdString(run->out);
            } else if (run->status == 0) {
                QFile out(file);
                if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
                    out.write(run->out.data(), static_cast<qint64>(run->out.size())) !=
                        static_cast<qint64>(run->out.size()) ||
                    !out.flush())
                    result->error = tr("cannot write %1: %2").arg(file, out.errorString());
            }
            result->err = QString::fromStdString(run->err).trimmed();
            return result;
        },
        [done](std::shared_ptr<Captured> result) { done(*result); });
}

sb::Result<std::unique_ptr<sb::ControlClient>> RemoteHostLink::connectSession(const QString& id,
                                                                              sb::proto::Role role)
{
    if (!m_host || !m_host->connected())
        return sb::Error{sb::ErrorCode::System, 0,
                         tr("not connected to %1").arg(m_url).toStdString()};
    return m_host->connectSession(id.toStdString(), "gui", role, kRequestTimeoutMs);
}

} // namespace sbui
