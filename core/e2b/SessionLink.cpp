#include "e2b/SessionLink.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sb::e2b {

using json = nlohmann::json;
using proto::MsgType;

void EventQueue::push(ProcessEvent event)
{
    {
        std::lock_guard lock(m_mutex);
        m_events.push_back(std::move(event));
    }
    m_cv.notify_one();
}

std::deque<ProcessEvent> EventQueue::take(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, timeout, [this] { return !m_events.empty(); });
    return std::exchange(m_events, {});
}

Result<std::unique_ptr<SessionLink>> SessionLink::open(const std::string& sessionId,
                                                       const std::string& clientName)
{
    auto client = ControlClient::connect(sessionId, clientName, proto::Role::Viewer);
    if (!client) return client.error();
    if (!(*client)->servesPrograms())
        return unsupported("session " + sessionId + " runs no processes for programs");
    return std::make_unique<SessionLink>(std::move(*client));
}

SessionLink::SessionLink(std::unique_ptr<ControlClient> client)
    : m_client(std::move(client)), m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (m_wake < 0) {
        m_dead = true;
        m_deathReason = "eventfd failed";
        return;
    }
    m_reader = std::thread([this] { readLoop(); });
}

SessionLink::~SessionLink()
{
    if (m_reader.joinable()) {
        std::uint64_t one = 1;
        (void)!::write(m_wake, &one, sizeof one);
        m_reader.join();
    }
    if (m_wake >= 0) ::close(m_wake);
    endAll("the API server is shutting down");
}

void SessionLink::readLoop()
{
    while (!m_dead) {
        pollfd fds[2] = {{m_client->fd(), POLLIN, 0}, {m_wake, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            endAll("poll failed");
            return;
        }
        if (fds[1].revents != 0) return;
        Status read = m_client->readAvailable();
        proto::Message m;
        for (auto got = m_client->next(m); got && *got; got = m_client->next(m))
            if (auto e = guarded(proto::typeName(m.type), [&]() -> Status {
                    dispatch(m);
                    return {};
                }))
                continue; // a malformed message from the supervisor: nobody waits on it
        if (read) {
            endAll("the sandbox's supervisor went away: " + read->message);
            return;
        }
    }
}

void SessionLink::deliver(Process& p, const ProcessEvent& event)
{
    for (const auto& follower : p.followers)
        follower->push(event);
}

void SessionLink::dispatch(proto::Message& m)
{
    if (m.type == MsgType::Exit) {
        endAll("the sandbox ended");
        return;
    }
    std::lock_guard lock(m_mutex);
    if (m.type == MsgType::Event) {
        if (m.body.is_object() && m.body.value("kind", std::string()) == "file")
            for (const auto& watcher : m_fileWatchers) {
                ProcessEvent event;
                event.kind = ProcessEvent::Kind::File;
                event.body = m.body;
                watcher->push(std::move(event));
            }
        return;
    }
    if (m.type == MsgType::ExecOutput) {
        auto it = m_processes.find(m.seq >> 8);
        if (it == m_processes.end()) return;
        ProcessEvent event;
        event.kind = (m.seq & 0xff) == proto::kExecStderr ? ProcessEvent::Kind::Stderr
                                                          : ProcessEvent::Kind::Stdout;
        event.pid = it->second.entry.pid;
        event.bytes = std::move(m.bytes);
        deliver(it->second, event);
        return;
    }
    if (!m.body.is_object() || !m.body.contains("id") || !m.body["id"].is_number_unsigned()) return;
    const std::uint64_t id = m.body["id"].get<std::uint64_t>();
    const std::string ref = m.type == MsgType::Error ? m.body.value("ref", std::string()) : "";
    if (m.type == MsgType::FileReply || m.type == MsgType::PauseReply ||
        m.type == MsgType::ExecutionRecorded || ref == "file_request" || ref == "pause_request" ||
        ref == "execution_record") {
        auto it = m_files.find(id);
        if (it == m_files.end()) return;
        if (m.type != MsgType::Error)
            it->second.set_value(m.body);
        else
            it->second.set_value(proto::errorFromBody(m.body));
        m_files.erase(it);
        return;
    }
    auto it = m_processes.find(id);
    if (it == m_processes.end()) return;
    Process& p = it->second;
    ProcessEvent event;
    event.pid = p.entry.pid;
    switch (m.type) {
    case MsgType::ExecStarted:
        p.entry.pid = m.body.value("pid", std::int64_t{0});
        event.kind = ProcessEvent::Kind::Started;
        event.pid = p.entry.pid;
        deliver(p, event);
        return;
    case MsgType::ExecEvent:
        if (!m.body.contains("approval")) return;
        event.kind = ProcessEvent::Kind::Waiting;
        event.body = m.body["approval"];
        deliver(p, event);
        return;
    case MsgType::ExecExit:
        event.kind = ProcessEvent::Kind::Exit;
        event.body = m.body;
        // A process that ran and has an error for an end never exited: its sandbox (or the
        // helper running its processes) ended under it.
        event.gone = p.entry.pid != 0 && m.body.contains("error") && !m.body.contains("denied");
        deliver(p, event);
        m_processes.erase(it);
        return;
    case MsgType::Error:
        // Only exec_start's refusal ends a process; a refused signal or input changes nothing.
        if (m.body.value("ref", std::string()) != "exec_start") return;
        event.kind = ProcessEvent::Kind::Exit;
        event.body = {{"id", id}, {"error", m.body.value("message", std::string("refused"))}};
        deliver(p, event);
        m_processes.erase(it);
        return;
    default:
        return;
    }
}

void SessionLink::endAll(const std::string& why)
{
    std::lock_guard lock(m_mutex);
    if (!m_dead) m_deathReason = why;
    m_dead = true;
    for (auto& [id, p] : m_processes) {
        ProcessEvent event;
        event.kind = ProcessEvent::Kind::Exit;
        event.pid = p.entry.pid;
        event.body = {{"id", id}, {"error", why}};
        event.gone = true;
        deliver(p, event);
    }
    m_processes.clear();
    for (const auto& watcher : m_fileWatchers) {
        ProcessEvent event;
        event.kind = ProcessEvent::Kind::Exit;
        event.body = {{"error", why}};
        event.gone = true;
        watcher->push(std::move(event));
    }
    m_fileWatchers.clear();
    for (auto& [id, promise] : m_files)
        promise.set_value(Error{ErrorCode::System, 0, why});
    m_files.clear();
}

Status SessionLink::send(const proto::Message& m)
{
    if (m_dead) {
        std::lock_guard lock(m_mutex);
        return Error{ErrorCode::System, 0, m_deathReason};
    }
    std::lock_guard lock(m_sendMutex);
    return m_client->send(m);
}

Status SessionLink::start(json request, ProcessConfig config, std::shared_ptr<EventQueue> follower)
{
    const std::uint64_t id = m_nextId++;
    request["id"] = id;
    {
        std::lock_guard lock(m_mutex);
        if (m_dead) return Error{ErrorCode::System, 0, m_deathReason};
        Process& p = m_processes[id];
        p.entry.config = std::move(config);
        p.entry.stdinOpen = request.value("stdin", false);
        p.entry.tty = request.contains("tty");
        p.followers.push_back(std::move(follower));
    }
    if (auto e = send(proto::jsonMessage(MsgType::ExecStart, std::move(request)))) {
        std::lock_guard lock(m_mutex);
        m_processes.erase(id);
        return e;
    }
    return {};
}

Result<std::uint64_t> SessionLink::execOf(std::int64_t pid) const
{
    for (const auto& [id, p] : m_processes)
        if (p.entry.pid == pid && pid != 0) return id;
    return Error{ErrorCode::NotFound, 0, "process with pid " + std::to_string(pid) + " not found"};
}

Status SessionLink::follow(std::int64_t pid, std::shared_ptr<EventQueue> follower)
{
    std::lock_guard lock(m_mutex);
    auto id = execOf(pid);
    if (!id) return id.error();
    ProcessEvent started;
    started.kind = ProcessEvent::Kind::Started;
    started.pid = pid;
    follower->push(started);
    m_processes[*id].followers.push_back(std::move(follower));
    return {};
}

void SessionLink::unfollow(const std::shared_ptr<EventQueue>& follower)
{
    std::lock_guard lock(m_mutex);
    for (auto& [id, p] : m_processes)
        std::erase(p.followers, follower);
}

Result<std::uint64_t> SessionLink::control(std::int64_t pid,
                                           const std::function<Status(ProcessEntry&)>& check)
{
    std::lock_guard lock(m_mutex);
    auto id = execOf(pid);
    if (!id) return id.error();
    if (check)
        if (auto e = check(m_processes[*id].entry)) return *e;
    return id;
}

Status SessionLink::signal(std::int64_t pid, int signal)
{
    auto id = control(pid);
    if (!id) return id.error();
    return send(proto::jsonMessage(MsgType::ExecControl, {{"id", *id}, {"signal", signal}}));
}

Status SessionLink::input(std::int64_t pid, std::string_view bytes)
{
    auto id = control(pid, [pid](ProcessEntry& p) -> Status {
        if (p.stdinOpen) return {};
        return inputError("process " + std::to_string(pid) +
                          " was started without stdin (start it with stdin: true)");
    });
    if (!id) return id.error();
    proto::Message m;
    m.type = MsgType::ExecInput;
    m.seq = *id;
    m.bytes = std::string(bytes);
    return send(m);
}

Status SessionLink::closeStdin(std::int64_t pid)
{
    auto id = control(pid, [](ProcessEntry& p) -> Status {
        p.stdinOpen = false;
        return {};
    });
    if (!id) return id.error();
    return send(proto::jsonMessage(MsgType::ExecControl, {{"id", *id}, {"close_stdin", true}}));
}

Status SessionLink::resize(std::int64_t pid, unsigned rows, unsigned cols)
{
    auto id = control(pid);
    if (!id) return id.error();
    return send(
        proto::jsonMessage(MsgType::ExecControl, {{"id", *id}, {"rows", rows}, {"cols", cols}}));
}

std::vector<ProcessEntry> SessionLink::processes() const
{
    std::lock_guard lock(m_mutex);
    std::vector<ProcessEntry> out;
    for (const auto& [id, p] : m_processes)
        if (p.entry.pid != 0) out.push_back(p.entry);
    return out;
}

std::optional<ProcessEntry> SessionLink::process(std::int64_t pid) const
{
    std::lock_guard lock(m_mutex);
    auto id = execOf(pid);
    if (!id) return std::nullopt;
    return m_processes.at(*id).entry;
}

Result<json> SessionLink::file(json request, std::chrono::milliseconds timeout)
{
    return this->request(MsgType::FileRequest, std::move(request), timeout);
}

Status SessionLink::pause(bool paused)
{
    if (m_client->version() < 5)
        return unsupported("the sandbox's supervisor predates pausing a running session");
    auto reply = request(MsgType::PauseRequest, {{"paused", paused}}, std::chrono::seconds(30));
    if (!reply) return reply.error();
    return {};
}

Status SessionLink::recordExecution(json execution)
{
    if (m_client->version() < 6)
        return unsupported("the sandbox's supervisor predates recording executions");
    auto reply = request(MsgType::ExecutionRecord, {{"execution", std::move(execution)}},
                         std::chrono::seconds(30));
    if (!reply) return reply.error();
    return {};
}

Result<json> SessionLink::request(MsgType type, json request, std::chrono::milliseconds timeout)
{
    const std::uint64_t id = m_nextId++;
    request["id"] = id;
    std::future<Result<json>> reply;
    {
        std::lock_guard lock(m_mutex);
        if (m_dead) return Error{ErrorCode::System, 0, m_deathReason};
        reply = m_files[id].get_future();
    }
    if (auto e = send(proto::jsonMessage(type, std::move(request)))) {
        std::lock_guard lock(m_mutex);
        m_files.erase(id);
        return *e;
    }
    if (reply.wait_for(timeout) != std::future_status::ready) {
        std::lock_guard lock(m_mutex);
        m_files.erase(id);
        return Error{ErrorCode::System, ETIMEDOUT,
                     std::string("the sandbox did not answer a ") + proto::typeName(type)};
    }
    return reply.get();
}

Status SessionLink::watchFiles(std::shared_ptr<EventQueue> watcher)
{
    bool subscribe = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_dead) return Error{ErrorCode::System, 0, m_deathReason};
        m_fileWatchers.push_back(std::move(watcher));
        subscribe = !m_subscribed;
        m_subscribed = true;
    }
    if (!subscribe) return {};
    return send(proto::jsonMessage(MsgType::Subscribe, {{"live", true}}));
}

void SessionLink::unwatchFiles(const std::shared_ptr<EventQueue>& watcher)
{
    std::lock_guard lock(m_mutex);
    std::erase(m_fileWatchers, watcher);
}

bool SessionLink::watchingFiles() const
{
    std::lock_guard lock(m_mutex);
    return !m_fileWatchers.empty();
}

void SessionLink::announceWrite(const std::string& path)
{
    std::lock_guard lock(m_mutex);
    for (const auto& watcher : m_fileWatchers) {
        ProcessEvent event;
        event.kind = ProcessEvent::Kind::File;
        event.body = {{"kind", "file"}, {"change", "written"}, {"sandbox_path", path}};
        watcher->push(std::move(event));
    }
}

} // namespace sb::e2b
