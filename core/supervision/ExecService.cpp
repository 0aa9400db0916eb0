#include "supervision/ExecService.h"

#include "base/ActivityKinds.h"
#include "base/Bytes.h"
#include "sandbox/SandboxChannel.h"
#include "supervision/ExecServiceInternal.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace sb {

using json = nlohmann::json;
using proto::MsgType;

namespace {

// Variables the session sets for its own working (the way out through the proxy): a process a
// program starts keeps them, whatever it asks for.
bool keptBySession(std::string_view name)
{
    for (std::string_view kept : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                                  "http_proxy", "https_proxy", "all_proxy", "no_proxy"})
        if (name == kept) return true;
    return false;
}

bool isVariableName(std::string_view s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9');
    });
}

// Bounds of one exec request: it travels to the helper in one channel message.
constexpr std::size_t kMaxExecRequestBytes = 128 * 1024;
// A client that has this much unread is not sent more output until it catches up: the
// process's pipe fills and it waits, rather than the client being dropped.
constexpr std::size_t kClientBehindBytes = std::size_t{2} << 20;
// After a process ended, how long its output may still come from what it left behind (a
// background child holding its stdout) before the exit is reported anyway.
constexpr long long kOutputGraceMs = 200;

std::string shownCommand(const std::vector<std::string>& argv)
{
    std::string line;
    for (const std::string& a : argv) {
        if (!line.empty()) line += ' ';
        line += a.find_first_of(" \t\"'") == std::string::npos ? a : "'" + a + "'";
        if (line.size() > 200) return line.substr(0, 200) + "…";
    }
    return line;
}

std::string signalName(int sig)
{
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

} // namespace

ExecService::ExecService(const SandboxProcess& sandbox, std::vector<std::string> environment,
                         ExecServiceHooks hooks, Clock& clock)
    : m_sandbox(sandbox), m_environment(std::move(environment)), m_hooks(std::move(hooks)),
      m_clock(clock)
{
    if (sandbox.helperChannel >= 0) {
        m_channel = sandbox.helperChannel; // a session without a command: its helper is there
        m_helper = HelperState::Ready;
    }
}

ExecService::~ExecService()
{
    for (auto& [id, e] : m_execs)
        e->closeAll();
    if (m_channel >= 0 && m_channel != m_sandbox.helperChannel) ::close(m_channel);
}

Status ExecService::request(std::uint64_t client, const std::string& name, proto::Message& m)
{
    switch (m.type) {
    case MsgType::ExecStart:
        return startExec(client, name, m.body);
    case MsgType::ExecInput:
        return execInput(client, m.seq, m.bytes);
    case MsgType::ExecControl:
        return execControl(client, m.body);
    case MsgType::FileRequest:
        return fileRequest(client, name, m.body);
    case MsgType::FileData:
        return fileData(client, m.seq, std::move(m.bytes));
    default:
        return inputError(std::string("not a program's request: ") + proto::typeName(m.type));
    }
}

ExecService::Exec* ExecService::findExec(std::uint64_t client, std::uint64_t id)
{
    for (auto& [spawn, e] : m_execs)
        if (e->client == client && e->clientId == id && !e->reported) return e.get();
    return nullptr;
}

Status ExecService::toHelper(const json& message, const std::vector<int>& fds)
{
    if (m_channel < 0) return Error{ErrorCode::System, 0, "the exec helper is not running"};
    return sendChannelMessage(m_channel, dumpJson(message), fds);
}

void ExecService::whenHelperReady(std::function<void()> send)
{
    if (m_helper == HelperState::None || m_helper == HelperState::Failed) {
        if (auto e = requestExecHelper(m_sandbox)) {
            m_helper = HelperState::Failed;
            m_helperError = e->describe();
        } else {
            m_helper = HelperState::Starting;
        }
    }
    if (m_helper == HelperState::Starting)
        m_waiting.push_back(std::move(send));
    else
        send();
}

void ExecService::onHelperStarted()
{
    auto started = receiveExecHelper(m_sandbox);
    std::vector<std::function<void()>> waiting = std::exchange(m_waiting, {});
    if (!started) {
        m_helper = HelperState::Failed;
        m_helperError = started.error().describe();
    } else {
        m_channel = started->channel;
        if (m_hooks.addExecListener) m_hooks.addExecListener(started->execListener);
        m_helper = HelperState::Ready;
    }
    for (auto& run : waiting)
        run();
}

void ExecService::helperGone(const std::string& why)
{
    if (m_channel >= 0 && m_channel != m_sandbox.helperChannel) ::close(m_channel);
    m_channel = -1;
    m_helper = m_sandbox.helperChannel >= 0 ? HelperState::Failed : HelperState::None;
    m_helperError = why;
    for (auto& [id, e] : m_execs)
        if (!e->exited) {
            e->exited = true;
            e->error = "the exec helper ended (" + why + "): the process's end is not known";
            e->exitedAtMs = m_clock.monotonicMs();
        }
    for (auto& [id, op] : m_files)
        replyFile(*op, {{"ok", false},
                        {"error", {{"code", "system"}, {"message", "the exec helper ended"}}}});
    m_files.clear();
    m_uploads.clear(); // their temporary files go when the session ends (removeWriteTemporaries)
}

Status ExecService::startExec(std::uint64_t client, const std::string& name, const json& body)
{
    if (!body.contains("id") || !body["id"].is_number_unsigned())
        return inputError("exec_start needs an \"id\" (a number the client chose)");
    const std::uint64_t id = body["id"].get<std::uint64_t>();
    if (findExec(client, id))
        return inputError("exec " + std::to_string(id) + " is running already");
    auto exec = std::make_unique<Exec>();
    exec->client = client;
    exec->clientId = id;
    exec->by = body.value("origin", name);
    if (auto argv = getBytesList(body, "argv"); argv && !argv->empty())
        exec->argv = std::move(*argv);
    else if (auto shell = getBytes(body, "shell"); shell && !shell->empty())
        exec->argv = {"/bin/sh", "-c", *shell};
    else
        return inputError("exec_start needs \"argv\" (a non-empty array of strings) or \"shell\"");
    exec->cwd = getBytes(body, "cwd").value_or("");
    std::map<std::string, std::string> env;
    for (const std::string& v : m_environment)
        env[v.substr(0, v.find('='))] = v.substr(std::min(v.size(), v.find('=') + 1));
    if (body.contains("env")) {
        if (!body["env"].is_object()) return inputError("\"env\" must be an object of strings");
        for (const auto& [k, v] : body["env"].items()) {
            if (!isVariableName(k) || !v.is_string())
                return inputError("env: '" + k + "' is no variable name with a string value");
            if (!keptBySession(k)) env[k] = v.get<std::string>();
        }
    }
    std::size_t size = 0;
    for (const auto& a : exec->argv)
        size += a.size() + 1;
    for (const auto& [k, v] : env) {
        exec->env.push_back(k + "=" + v);
        size += k.size() + v.size() + 2;
    }
    if (size > kMaxExecRequestBytes)
        return inputError("the command and its environment take " + std::to_string(size) +
                          " bytes (at most " + std::to_string(kMaxExecRequestBytes) +
                          " in one request)");
    const std::uint64_t timeoutMs = body.value("timeout_ms", std::uint64_t{0});
    exec->detached = body.value("detach", false);
    if (body.contains("stdout_transcript")) {
        if (!body["stdout_transcript"].is_boolean())
            return inputError("\"stdout_transcript\" must be true or false");
        exec->stdoutInTranscript = body["stdout_transcript"].get<bool>();
    }
    const bool tty = body.contains("tty") && body["tty"].is_object();
    const bool withStdin = body.value("stdin", false);
    exec->spawnId = m_nextSpawn++;
    exec->startedMs = m_clock.monotonicMs();
    exec->startedUnixMs = m_clock.unixMs();
    if (timeoutMs > 0) exec->deadlineMs = exec->startedMs + static_cast<long long>(timeoutMs);

    json spawn = {{"op", "spawn"}, {"id", exec->spawnId}};
    putBytesList(spawn, "argv", exec->argv);
    putBytesList(spawn, "env", exec->env);
    putBytes(spawn, "cwd", exec->cwd);
    std::vector<int> childEnds;
    if (tty) {
        exec->tty = true;
        spawn["pty"] = {{"rows", body["tty"].value("rows", 24)},
                        {"cols", body["tty"].value("cols", 80)}};
    } else if (auto e = exec->makePipes(withStdin, childEnds)) {
        return e;
    }
    Exec* raw = exec.get();
    m_execs[exec->spawnId] = std::move(exec);
    auto send = [this, raw, spawn, childEnds]() mutable {
        Status sent = m_helper == HelperState::Ready
                          ? toHelper(spawn, childEnds)
                          : Status{Error{ErrorCode::System, 0,
                                         "cannot start the exec helper: " + m_helperError}};
        for (int fd : childEnds)
            ::close(fd);
        if (sent) {
            raw->exited = true;
            raw->error = sent->describe();
            raw->closeAll();
            reportExit(*raw);
        }
    };
    json start = {{"kind", activity::kExec},
                  {"type", "start"},
                  {"id", raw->spawnId},
                  {"by", raw->by},
                  {"tty", raw->tty}};
    putArgv(start, raw->argv);
    putBytes(start, "cwd", raw->cwd);
    if (m_hooks.activity) m_hooks.activity(start);
    if (m_hooks.transcript)
        m_hooks.transcript("\r\n\x1b[1m$ " + shownCommand(raw->argv) + "\x1b[0m\x1b[2m  (" +
                           raw->by + ")\x1b[0m\r\n");
    whenHelperReady(std::move(send));
    return {};
}

Status ExecService::execInput(std::uint64_t client, std::uint64_t id, std::string_view bytes)
{
    Exec* e = findExec(client, id);
    if (!e) return Error{ErrorCode::NotFound, 0, "no running exec " + std::to_string(id)};
    // A terminal's comes with the process: until then its input waits (pendingInput).
    if (e->inputFd() < 0 && !(e->tty && e->starting()))
        return inputError("exec " + std::to_string(id) + " takes no input");
    e->pendingInput.append(bytes);
    flushInput(*e);
    return {};
}

Status ExecService::execControl(std::uint64_t client, const json& body)
{
    const std::uint64_t id = body.value("id", std::uint64_t{0});
    Exec* e = findExec(client, id);
    if (!e) return Error{ErrorCode::NotFound, 0, "no running exec " + std::to_string(id)};
    if (body.contains("signal")) {
        const int sig = body.value("signal", 0);
        if (sig < 1 || sig >= NSIG) return inputError("no such signal " + std::to_string(sig));
        if (e->starting())
            e->heldSignals.push_back(sig); // delivered once it runs (onSpawned)
        else if (e->pid > 0 && !e->exited)
            (void)toHelper({{"op", "signal"}, {"id", e->spawnId}, {"signal", sig}});
    }
    if (body.value("close_stdin", false)) {
        e->closeInputWhenFlushed = true;
        flushInput(*e);
    }
    if (body.contains("rows") && body.contains("cols") && e->ptyMaster >= 0) {
        winsize ws{body.value("rows", static_cast<unsigned short>(24)),
                   body.value("cols", static_cast<unsigned short>(80)), 0, 0};
        ::ioctl(e->ptyMaster, TIOCSWINSZ, &ws);
    }
    return {};
}

void ExecService::flushInput(Exec& e)
{
    const int fd = e.inputFd();
    while (fd >= 0 && !e.pendingInput.empty()) {
        ssize_t n = ::write(fd, e.pendingInput.data(), e.pendingInput.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return; // POLLOUT brings us back
        if (n < 0) { // the process closed its stdin: what is left goes nowhere
            e.pendingInput.clear();
            break;
        }
        e.pendingInput.erase(0, static_cast<std::size_t>(n));
    }
    if (e.pendingInput.empty() && e.closeInputWhenFlushed) e.closeInput();
}

void ExecService::clientGone(std::uint64_t client)
{
    for (auto& [spawn, e] : m_execs) {
        if (e->client != client) continue;
        e->clientGone = true;
        if (e->detached) continue;
        if (e->starting())
            e->heldSignals.push_back(SIGHUP);
        else if (e->pid > 0 && !e->exited)
            (void)toHelper({{"op", "signal"}, {"id", e->spawnId}, {"signal", SIGHUP}});
    }
    for (auto& [hid, op] : m_files)
        if (op->client == client) op->clientGone = true; // the helper's answer ends it
    abortUploads(client);
    std::erase_if(m_fileData, [&](const auto& d) { return d.first.first == client; });
}

void ExecService::onApprovalRequest(const ApprovalRequest& request)
{
    for (auto& [spawn, e] : m_execs)
        tellApproval(*e, request);
}

// A request for a process an exec started (or for one of its children, by its session) goes to
// that exec's client, once: it may reach us before the helper has told the process's pid.
void ExecService::tellApproval(Exec& e, const ApprovalRequest& request)
{
    if (request.pid == 0 || e.pid == 0 || e.exited || e.clientGone) return;
    if (e.pid != request.pid && e.pid != request.session) return;
    if (std::find(e.approvalsTold.begin(), e.approvalsTold.end(), request.id) !=
        e.approvalsTold.end())
        return;
    e.approvalsTold.push_back(request.id);
    sendToClient(e.client,
                 proto::encodeJson(MsgType::ExecEvent,
                                   {{"id", e.clientId}, {"approval", proto::toJson(request)}}));
}

void ExecService::sendToClient(std::uint64_t client, const std::string& frame)
{
    if (m_hooks.sendTo) m_hooks.sendTo(client, frame);
}

void ExecService::fillPollFds(std::vector<pollfd>& fds) const
{
    if (m_helper == HelperState::Starting) fds.push_back({m_sandbox.initChannel, POLLIN, 0});
    if (m_channel >= 0) fds.push_back({m_channel, POLLIN, 0});
    for (const auto& [spawn, e] : m_execs) {
        const bool behind = !e->clientGone && m_hooks.queuedBytes &&
                            m_hooks.queuedBytes(e->client) > kClientBehindBytes;
        for (int fd : {e->outFd, e->errFd, e->ptyMaster})
            if (fd >= 0 && !behind) fds.push_back({fd, POLLIN, 0});
        if (e->inputFd() >= 0 && !e->pendingInput.empty())
            fds.push_back({e->inputFd(), POLLOUT, 0});
    }
}

void ExecService::handle(const std::vector<pollfd>& fds)
{
    for (const pollfd& p : fds) {
        if (p.revents == 0 || p.fd < 0) continue;
        if (m_helper == HelperState::Starting && p.fd == m_sandbox.initChannel) {
            onHelperStarted();
            continue;
        }
        if (p.fd == m_channel) {
            if (p.revents & POLLIN)
                onHelperMessage();
            else
                helperGone("its channel closed");
            continue;
        }
        for (auto& [spawn, e] : m_execs) {
            if (p.fd == e->outFd)
                readOutput(*e, e->outFd, proto::kExecStdout);
            else if (p.fd == e->errFd)
                readOutput(*e, e->errFd, proto::kExecStderr);
            else if (p.fd == e->ptyMaster)
                readOutput(*e, e->ptyMaster, proto::kExecStdout);
            else if (p.fd == e->inputFd() && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
                if (p.revents & POLLOUT)
                    flushInput(*e);
                else
                    e->closeInput();
            } else
                continue;
            break;
        }
    }
    // Deadlines, and exits whose output has drained (or waited long enough).
    const long long now = m_clock.monotonicMs();
    std::vector<std::uint64_t> ids;
    for (auto& [spawn, e] : m_execs) {
        if (e->deadlineMs > 0 && now >= e->deadlineMs && !e->exited && !e->timedOut) {
            e->timedOut = true;
            (void)toHelper({{"op", "signal"}, {"id", e->spawnId}, {"signal", SIGKILL}});
        }
        ids.push_back(spawn);
    }
    for (std::uint64_t id : ids)
        finishIfDone(id);
}

long long ExecService::nextWakeMs() const
{
    long long next = -1;
    auto atMost = [&next](long long ms) { next = next < 0 ? ms : std::min(next, ms); };
    for (const auto& [spawn, e] : m_execs) {
        if (e->deadlineMs > 0 && !e->exited && !e->timedOut) atMost(e->deadlineMs);
        if (e->exited) atMost(e->exitedAtMs + kOutputGraceMs);
        if (!e->clientGone && m_hooks.queuedBytes &&
            m_hooks.queuedBytes(e->client) > kClientBehindBytes)
            atMost(m_clock.monotonicMs() + 20); // look again once the client read some
    }
    return next;
}

void ExecService::readOutput(Exec& e, int& fd, std::uint64_t stream)
{
    char buf[65536];
    ssize_t n;
    do {
        n = ::read(fd, buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) { // EOF, or EIO from a pty whose other side is gone
        ::close(fd);
        fd = -1;
        return;
    }
    const std::string_view bytes(buf, static_cast<std::size_t>(n));
    (stream == proto::kExecStdout ? e.stdoutBytes : e.stderrBytes) += bytes.size();
    if (!e.clientGone)
        sendToClient(e.client,
                     proto::encodeBytes(MsgType::ExecOutput, e.clientId << 8 | stream, bytes));
    if (m_hooks.transcript && (stream != proto::kExecStdout || e.stdoutInTranscript)) {
        if (e.tty) {
            m_hooks.transcript(bytes);
        } else {
            std::string lines;
            for (char c : bytes) {
                if (c == '\n') lines += '\r';
                lines += c;
            }
            m_hooks.transcript(lines);
        }
    }
}

void ExecService::finishIfDone(std::uint64_t spawnId)
{
    auto it = m_execs.find(spawnId);
    if (it == m_execs.end()) return;
    Exec& e = *it->second;
    if (!e.exited) return;
    const bool drained = e.outFd < 0 && e.errFd < 0 && e.ptyMaster < 0;
    if (!drained && m_clock.monotonicMs() < e.exitedAtMs + kOutputGraceMs) return;
    e.closeAll();
    reportExit(e);
    m_execs.erase(it);
}

void ExecService::reportExit(Exec& e)
{
    if (e.reported) return;
    e.reported = true;
    json exit = {{"id", e.clientId},
                 {"timed_out", e.timedOut},
                 {"duration_ms", m_clock.monotonicMs() - e.startedMs}};
    exit["exit_code"] = e.exitCode ? json(*e.exitCode) : json();
    exit["signal"] = e.signal ? json(signalName(*e.signal)) : json();
    // A denial among its children (a shell's command) is news too: the caller learns the rule.
    if (!e.denied && e.pid > 0 && m_hooks.denialIn)
        if (auto d = m_hooks.denialIn(e.pid, e.startedUnixMs))
            e.denied = d->first, e.deniedCommand = d->second;
    if (e.denied) {
        exit["denied"] = *e.denied;
        exit["denied_command"] = e.deniedCommand;
    }
    if (!e.error.empty()) exit["error"] = e.error;
    if (!e.clientGone) sendToClient(e.client, proto::encodeJson(MsgType::ExecExit, exit));
    json event = exit;
    event.erase("id");
    event.update({{"kind", activity::kExec},
                  {"type", "exit"},
                  {"id", e.spawnId},
                  {"by", e.by},
                  {"stdout_bytes", e.stdoutBytes},
                  {"stderr_bytes", e.stderrBytes}});
    if (m_hooks.activity) m_hooks.activity(event);
    if (m_hooks.transcript) {
        std::string end = e.denied           ? "denied: " + *e.denied
                          : !e.error.empty() ? e.error
                          : e.signal         ? "ended by " + signalName(*e.signal)
                                             : "exit " + std::to_string(e.exitCode.value_or(-1));
        m_hooks.transcript("\x1b[2m[" + end + (e.timedOut ? ", timed out" : "") + "]\x1b[0m\r\n");
    }
}

void ExecService::sessionEnded()
{
    abortUploads(0);
    for (auto& [spawn, e] : m_execs) {
        if (!e->exited) e->error = "the session ended";
        e->exited = true;
        e->closeAll();
        reportExit(*e);
    }
    m_execs.clear();
}

} // namespace sb
