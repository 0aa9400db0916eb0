// The code interpreter's gateway process in a sandbox: started as an exec of the session, fed
// requests on its stdin, its stdout split into lines and handed to the requests they answer.
#include "base/Bytes.h"
#include "e2b/CodeInterpreter.h"
#include "e2b/SessionLink.h"

#include <csignal>

namespace sb::e2b {

using json = nlohmann::json;

namespace {

// Where the gateway and its kernels keep their files: the sandbox's /tmp, never the workspace
// (whose changes the person reviews).
constexpr const char* kStateDir = "/tmp/.sandbench-code-interpreter";
constexpr const char* kScriptPath = "/tmp/.sandbench-code-interpreter/gateway.py";
// A line longer than this (a result of hundreds of megabytes) ends the gateway.
constexpr std::size_t kMaxLine = std::size_t{64} << 20;

} // namespace

std::deque<GatewayMessage> KernelGateway::Call::take(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, timeout, [this] { return !m_messages.empty(); });
    return std::exchange(m_messages, {});
}

void KernelGateway::Call::push(GatewayMessage message)
{
    {
        std::lock_guard lock(m_mutex);
        m_messages.push_back(std::move(message));
    }
    m_cv.notify_one();
}

Result<std::shared_ptr<KernelGateway>>
KernelGateway::start(std::shared_ptr<SessionLink> link, const std::string& home,
                     const std::map<std::string, std::string>& env)
{
    auto written = link->file({{"op", "write"},
                               {"path", kScriptPath},
                               {"parents", true},
                               {"data_base64", base64(kernelGatewayScript())}});
    if (!written) return written.error().within("write the code interpreter into the sandbox");
    if (!written->value("ok", false))
        return Error{ErrorCode::System, 0,
                     "write the code interpreter into the sandbox: " +
                         written->value("error", json::object()).value("message", std::string())};
    json environment = json::object();
    for (const auto& [k, v] : env)
        environment[k] = v;
    environment["SANDBENCH_KERNEL_STATE"] = kStateDir;
    ProcessConfig config;
    config.cmd = "/usr/bin/python3";
    config.args = {"-I", "-u", kScriptPath, home};
    config.cwd = home;
    config.tag = std::string(kGatewayTag);
    json argv = json::array({config.cmd});
    for (const std::string& a : config.args)
        argv.push_back(a);
    json request = {{"argv", argv},
                    {"env", environment},
                    {"cwd", home},
                    {"stdin", true},
                    {"origin", "e2b:code-interpreter"},
                    // Its stdout is the protocol: the executions are recorded as executions
                    // (ExecutionRecord.h), not as JSON in the session's terminal.
                    {"stdout_transcript", false}};
    auto events = std::make_shared<EventQueue>();
    if (auto e = link->start(std::move(request), std::move(config), events))
        return e->within("start the code interpreter");
    // The first event says whether it started.
    std::int64_t pid = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    std::deque<ProcessEvent> early;
    while (pid == 0 && std::chrono::steady_clock::now() < deadline) {
        for (ProcessEvent& e : events->take(std::chrono::milliseconds(500))) {
            if (e.kind == ProcessEvent::Kind::Started) pid = e.pid;
            if (e.kind == ProcessEvent::Kind::Exit)
                return Error{ErrorCode::System, 0,
                             "the code interpreter did not start: " +
                                 (e.body.contains("denied")
                                      ? "denied by the session's policy (" +
                                            e.body["denied"].get<std::string>() + ")"
                                      : e.body.value("error", std::string("it exited")))};
            if (pid != 0 && e.kind != ProcessEvent::Kind::Started) early.push_back(std::move(e));
        }
        if (!link->alive()) return Error{ErrorCode::System, 0, "the sandbox went"};
    }
    if (pid == 0) return Error{ErrorCode::System, 0, "the code interpreter did not start in time"};
    std::shared_ptr<KernelGateway> gateway(new KernelGateway(std::move(link), events));
    gateway->m_pid = pid;
    for (ProcessEvent& e : early)
        events->push(std::move(e));
    gateway->m_reader = std::thread([g = gateway.get()] { g->readLoop(); });
    return gateway;
}

KernelGateway::KernelGateway(std::shared_ptr<SessionLink> link, std::shared_ptr<EventQueue> events)
    : m_link(std::move(link)), m_events(std::move(events))
{
}

KernelGateway::~KernelGateway()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    if (m_reader.joinable()) m_reader.join();
    m_link->unfollow(m_events);
    if (alive()) (void)m_link->closeStdin(m_pid); // it shuts its kernels down and ends
    endAll("the code interpreter was stopped");
}

bool KernelGateway::alive() const
{
    std::lock_guard lock(m_mutex);
    return !m_dead && m_link->alive();
}

Result<std::shared_ptr<KernelGateway::Call>> KernelGateway::call(json request)
{
    auto call = std::make_shared<Call>();
    {
        std::lock_guard lock(m_mutex);
        if (m_dead) return Error{ErrorCode::System, 0, "the code interpreter ended"};
        call->m_id = std::to_string(m_nextId++);
        m_calls[call->m_id] = call;
    }
    request["id"] = call->m_id;
    if (auto e = m_link->input(m_pid, dumpJson(request) + "\n")) {
        forget(call);
        return e->within("reach the code interpreter");
    }
    return call;
}

void KernelGateway::cancel(const std::shared_ptr<Call>& call)
{
    forget(call);
    (void)m_link->input(m_pid, dumpJson({{"op", "cancel"}, {"id", call->id()}}) + "\n");
}

void KernelGateway::forget(const std::shared_ptr<Call>& call)
{
    std::lock_guard lock(m_mutex);
    m_calls.erase(call->id());
}

void KernelGateway::readLoop()
{
    for (;;) {
        {
            std::lock_guard lock(m_mutex);
            if (m_stop) return;
        }
        for (ProcessEvent& e : m_events->take(std::chrono::milliseconds(200))) {
            if (e.kind == ProcessEvent::Kind::Stdout) {
                m_pending += e.bytes;
                std::size_t start = 0;
                for (std::size_t nl; (nl = m_pending.find('\n', start)) != std::string::npos;
                     start = nl + 1) {
                    // The lines come from the sandbox: one the checks missed must not end serve
                    // (an exception on this thread would).
                    try {
                        dispatch(std::string_view(m_pending).substr(start, nl - start));
                    } catch (const std::exception&) {
                    }
                }
                m_pending.erase(0, start);
                if (m_pending.size() > kMaxLine) {
                    (void)m_link->signal(m_pid, SIGKILL);
                    m_pending.clear();
                    endAll("the code interpreter sent a line of more than 64 MiB");
                }
            } else if (e.kind == ProcessEvent::Kind::Exit) {
                endAll(e.gone ? "the sandbox went" : "the code interpreter ended", e.gone);
                return;
            }
        }
    }
}

void KernelGateway::dispatch(std::string_view line)
{
    auto message = parseGatewayLine(line);
    if (!message || message->kind == GatewayMessage::Kind::Ready) return;
    std::shared_ptr<Call> call;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_calls.find(message->id);
        if (it == m_calls.end()) return;
        call = it->second;
        const bool last = message->kind != GatewayMessage::Kind::Output;
        if (last) m_calls.erase(it);
    }
    call->push(std::move(*message));
}

void KernelGateway::endAll(const std::string& why, bool sandboxGone)
{
    std::map<std::string, std::shared_ptr<Call>> calls;
    {
        std::lock_guard lock(m_mutex);
        m_dead = true;
        calls.swap(m_calls);
    }
    for (auto& [id, call] : calls) {
        GatewayMessage gone;
        gone.kind = GatewayMessage::Kind::Gone;
        gone.id = id;
        gone.body = why;
        gone.sandboxGone = sandboxGone;
        call->push(std::move(gone));
    }
}

} // namespace sb::e2b
