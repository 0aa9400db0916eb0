#include "supervision/SessionLoop.h"

#include "base/ActivityKinds.h"
#include "base/SignalFreeThread.h"
#include "base/Terminal.h"
#include "recording/RecordingTypes.h"
#include "sandbox/SocketOwner.h"

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace sb {
namespace {

constexpr long long kQuietMs = 40; // output silence before a title notice is written

bool writeAll(int fd, const char* data, size_t size)
{
    if (fd < 0) return true; // headless: nobody at this end
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, 100);
            continue;
        }
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

} // namespace

SessionLoop::SessionLoop(RunningPolicy policy, const SandboxProcess& sandbox, LoopOptions options,
                         Clock& clock)
    : m_sandbox(sandbox), m_options(std::move(options)), m_clock(clock),
      m_policy(std::move(policy)), m_broker(m_policy.merged().approvals, clock)
{
    if (const auto& learned = m_policy.source().learnedRulesFile; !learned.empty())
        m_broker.setPersistHook(ApprovalBroker::learnedRulesWriter(learned));
    if (m_options.interactive)
        m_prompt.emplace(m_options.outFd, [this](std::uint64_t id, const ApprovalAnswer& a) {
            if (auto e = m_broker.answer(id, a))
                emit({{"kind", activity::kError}, {"message", e->describe()}});
        });
    m_masterOpen = sandbox.ptyMaster >= 0;
    m_inputOpen = m_masterOpen && m_options.inFd >= 0;
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_wakeFd < 0) m_setUpError = sysError("eventfd for the session loop");
    m_mailbox->loop = this; // no other thread has it yet
    // A session without a command has no first exec to wake the loop: it starts awake.
    if (sandbox.helperChannel >= 0 && m_wakeFd >= 0) {
        std::uint64_t one = 1;
        (void)!::write(m_wakeFd, &one, sizeof one);
    }
    m_broker.setListener(
        [this](const ApprovalRequest* r, const ApprovalOutcome* o) { onApprovalEvent(r, o); });
    sigset_t watched;
    sigemptyset(&watched);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH})
        sigaddset(&watched, sig);
    ::sigprocmask(SIG_BLOCK, &watched, &m_previousMask);
    m_signalFd = ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_signalFd < 0 && !m_setUpError) m_setUpError = sysError("signalfd for the session loop");
    if (sandbox.execListener >= 0) {
        ExecApproval::Hooks hooks;
        hooks.firstAnswered = [this] { queue({}); }; // wakes the loop: the command has started
        hooks.forClients = [this](nlohmann::json command) {
            ApprovalEvent e;
            e.forClients = std::move(command);
            queue(std::move(e));
        };
        hooks.activity = [this](nlohmann::json event) { publishActivity(std::move(event)); };
        hooks.outbound = [this](OutboundAttempt attempt, std::function<void(int)> answer) {
            // Before the proxy runs there is nothing to decide with: the connection waits at
            // the transparent listener for it.
            if (Proxy* proxy = m_screening.load(std::memory_order_acquire))
                proxy->screen(std::move(attempt), std::move(answer));
            else
                answer(0);
        };
        hooks.refused = [this, initPid = sandbox.initPid](const RefusedCall& call,
                                                          std::uint64_t commandId) {
            // Read while the process waits: it usually ends as soon as the call fails.
            const ProcessChain chain = readProcessChain(call.pid, initPid);
            nlohmann::json event = {{"kind", activity::kRefusal},
                                    {"syscall", call.syscall},
                                    {"rule", "the sandbox's system call filter"}};
            if (!chain.empty()) {
                event["pid"] = chain.front().pid;
                event["process"] = toJson(chain);
            }
            if (commandId != 0) event["command_id"] = commandId;
            publishActivity(std::move(event));
        };
        try {
            m_exec = std::make_unique<ExecApproval>(
                sandbox.execListener, CommandMatcher(m_policy.merged().commands), m_broker,
                m_options.recorder, clock, std::move(hooks),
                ExecApproval::Options{
                    m_options.observe,
                    m_options.shadow ? std::optional(CommandMatcher(m_options.shadow->commands))
                                     : std::nullopt});
        } catch (const std::system_error& e) {
            if (!m_setUpError) m_setUpError = threadNotStarted("the exec approval thread", e);
        }
    }
    if (m_exec && (sandbox.initChannel >= 0 || sandbox.helperChannel >= 0)) {
        ExecServiceHooks hooks;
        hooks.sendTo = [this](std::uint64_t client, const std::string& frame) {
            return m_control && m_control->sendTo(client, frame);
        };
        hooks.queuedBytes = [this](std::uint64_t client) {
            return m_control ? m_control->queuedBytes(client) : 0;
        };
        hooks.activity = [this](nlohmann::json event) { emit(std::move(event)); };
        if (m_options.transcript)
            hooks.transcript = [this](std::string_view bytes) {
                publishOutput(bytes.data(), bytes.size());
            };
        hooks.addExecListener = [this](int fd) { m_exec->addListener(fd); };
        hooks.denialIn =
            [this](std::int64_t session,
                   std::int64_t since) -> std::optional<std::pair<std::string, std::string>> {
            auto d = m_exec->denialIn(session, since);
            if (!d) return std::nullopt;
            return std::pair{d->why, d->command};
        };
        hooks.pendingApprovals = [this] { return m_broker.pending(); };
        m_programs =
            std::make_unique<ExecService>(sandbox, m_options.environment, std::move(hooks), clock);
    }
    if (m_options.observe)
        publishActivity({{"kind", activity::kLifecycle},
                         {"type", "observe"},
                         {"detail", "observe mode: what the policy would ask is allowed and "
                                    "recorded as would_ask; its deny rules still deny"}});
    const NetworkMode network = m_policy.merged().network.mode;
    if (sandbox.socketChannel >= 0 || network == NetworkMode::Host) {
        PortService::Hooks hooks;
        hooks.sendTo = [this](std::uint64_t client, const std::string& frame) {
            return m_control && m_control->sendTo(client, frame);
        };
        hooks.activity = [this](nlohmann::json event) { emit(std::move(event)); };
        m_ports = std::make_unique<PortService>(sandbox, network, std::move(hooks));
    }
}

SessionLoop::~SessionLoop()
{
    {
        std::lock_guard lock(m_mailbox->mutex);
        m_mailbox->loop = nullptr;
    }
    if (m_exec) m_exec->stop(); // its asks stay pending, for cancelAll() to deny
    if (m_proxy) m_proxy->stop();
    m_broker.cancelAll(); // a model request waiting over a limit is denied
    if (m_options.intercept) m_options.intercept->stop();
    m_broker.setListener({});
    closePrompt();
    if (m_signalFd >= 0) ::close(m_signalFd);
    if (m_wakeFd >= 0) ::close(m_wakeFd);
    for (int fd : {m_options.commandOut, m_options.commandErr, m_options.lifeline})
        if (fd >= 0) ::close(fd); // left open when the loop ended at its deadline
    ::sigprocmask(SIG_SETMASK, &m_previousMask, nullptr);
}

namespace {

// `bytes` with each LF not preceded by CR made CRLF; `last` carries the byte before them.
std::string asTerminalNewlines(std::string_view bytes, char& last)
{
    std::string out;
    out.reserve(bytes.size() + bytes.size() / 16);
    for (char c : bytes) {
        if (c == '\n' && last != '\r') out += '\r';
        out += c;
        last = c;
    }
    return out;
}

// Activity events by their "kind" (and "type"), as the recording files them: a decided
// connection is both a request (what was tried) and a decision (what became of it). (Commands
// reach the recording from ExecApproval, the same way.)
std::vector<EventKind> recordedKinds(const nlohmann::json& event)
{
    std::string kind = event.value("kind", "");
    std::string type = event.value("type", "");
    if (kind == activity::kNetwork && type == "decided")
        return {EventKind::NetworkRequest, EventKind::NetworkDecision};
    if (kind == activity::kNetwork) return {EventKind::NetworkRequest};
    if (kind == activity::kApproval)
        return {type == "request" ? EventKind::ApprovalPrompt : EventKind::ApprovalAnswer};
    if (kind == activity::kFile) return {EventKind::WorkspaceChange};
    if (kind == activity::kLimit) return {EventKind::LimitHit};
    if (kind == activity::kPolicy) return {EventKind::PolicyChange};
    if (kind == activity::kRefusal) return {EventKind::Refusal};
    if (kind == activity::kModel) return {EventKind::ModelRequest};
    if (kind == activity::kLeak) return {EventKind::SecretLeak};
    if (kind == activity::kExecution) return {EventKind::CodeExecution};
    return {EventKind::Lifecycle};
}

} // namespace

void SessionLoop::emit(nlohmann::json event) const
{
    event["time_unix_ms"] = m_clock.unixMs();
    if (m_control) m_control->publishEvent(event);
    if (!m_options.recorder) return;
    for (EventKind kind : recordedKinds(event)) {
        if (kind == EventKind::NetworkRequest && event.contains("decision")) {
            nlohmann::json tried = event; // the request alone; its decision follows
            for (const char* key : {"decision", "rule", "asked"})
                tried.erase(key);
            m_options.recorder->event(kind, tried);
        } else {
            m_options.recorder->event(kind, event);
        }
    }
}

Status SessionLoop::listen(SessionSummary summary)
{
    m_summary = std::move(summary);
    auto server = ControlServer::listen(m_summary.id, *this);
    if (!server) return server.error();
    m_control = std::move(server.value());
    return {};
}

bool SessionLoop::run()
{
    enum Slot { Init, Signals, Master, Input, Wake, Out, Err, Lifeline, FixedSlots };
    std::vector<pollfd> fds;
    for (;;) {
        bool promptOpen = m_prompt && m_prompt->isOpen();
        // While the approval screen is open the agent's output is left in the pty: it pauses.
        // So it does while the recording catches up with a flood: nothing is dropped from it.
        const bool recordingBehind = m_options.recorder && m_options.recorder->backlogged();
        fds = {
            {m_sandbox.pidFd, POLLIN, 0},
            {m_signalFd, POLLIN, 0},
            {m_masterOpen && !promptOpen && !recordingBehind ? m_sandbox.ptyMaster : -1, POLLIN, 0},
            {m_inputOpen ? m_options.inFd : -1, POLLIN, 0},
            {m_wakeFd, POLLIN, 0},
            {recordingBehind ? -1 : m_options.commandOut, POLLIN, 0},
            {recordingBehind ? -1 : m_options.commandErr, POLLIN, 0},
            {m_options.lifeline, POLLIN, 0}};
        if (m_control) m_control->fillPollFds(fds);
        if (m_programs) m_programs->fillPollFds(fds);
        long long now = monotonicMs();
        long long timeout = m_broker.nextDeadlineMs();
        auto atMost = [&timeout](long long ms) {
            ms = std::max(ms, 0LL);
            timeout = timeout < 0 ? ms : std::min(timeout, ms);
        };
        if (m_options.deadlineMs > 0) {
            if (m_options.deadlineMs <= now) return false;
            atMost(m_options.deadlineMs - now);
        }
        if (m_killAtMs >= 0) {
            if (m_killAtMs <= now) {
                ::kill(m_sandbox.initPid, SIGKILL); // the grace is over: the whole pid namespace
                m_killAtMs = -1;
            } else {
                atMost(m_killAtMs - now);
            }
        }
        if (m_announce) atMost(m_lastOutputMs + kQuietMs - now);
        if (m_onLive && m_liveAtMs >= 0) atMost(m_liveAtMs - now);
        if (promptOpen) atMost(1000);   // countdowns
        if (recordingBehind) atMost(5); // the writer's queue empties within milliseconds
        if (long long wake = m_programs ? m_programs->nextWakeMs() : -1; wake >= 0)
            atMost(wake - now);
        if (m_options.idleMs > 0) {
            const bool busy = (m_programs && m_programs->running() > 0) ||
                              (m_control && m_control->clientCount() > 0);
            if (busy || m_busyAtMs < 0) m_busyAtMs = now;
            if (now - m_busyAtMs >= m_options.idleMs) {
                if (m_options.notice)
                    m_options.notice("idle for " + std::to_string(m_options.idleMs / 1000) +
                                     " s (limits.idle_seconds): session stopped");
                stop(false);
                m_options.idleMs = 0; // once: init's end ends the loop
            } else {
                atMost(m_busyAtMs + m_options.idleMs - now);
            }
        }
        if (::poll(fds.data(), fds.size(), static_cast<int>(std::min(timeout, 3600000LL))) < 0 &&
            errno != EINTR)
            return true;
        if (fds[Signals].revents & POLLIN) onSignal();
        if (m_liveAtMs < 0) {
            m_liveAtMs = monotonicMs() + m_options.liveAfterMs;
            if (m_onStarted) std::exchange(m_onStarted, nullptr)();
        } else if (monotonicMs() >= m_liveAtMs) {
            goLive();
        }
        if (fds[Master].revents & (POLLIN | POLLHUP | POLLERR)) onTerminalOutput();
        if (fds[Out].revents & (POLLIN | POLLHUP | POLLERR))
            onCommandPipe(m_options.commandOut, m_options.outFd);
        if (fds[Err].revents & (POLLIN | POLLHUP | POLLERR))
            onCommandPipe(m_options.commandErr, m_options.errFd);
        if (fds[Input].revents & (POLLIN | POLLHUP | POLLERR)) onUserInput();
        if (fds[Lifeline].revents & (POLLIN | POLLHUP | POLLERR)) onOwnerGone();
        if (fds[Wake].revents & POLLIN) {
            std::uint64_t count;
            (void)!::read(m_wakeFd, &count, sizeof count);
        }
        if (m_control) {
            m_control->handle(fds);
            if (m_exec && m_control->subscriberCount() == 0) m_exec->setWatched(false);
        }
        if (m_programs) m_programs->handle(fds);
        m_broker.expire();
        drainApprovalEvents();
        if (m_announce && monotonicMs() - m_lastOutputMs >= kQuietMs) {
            m_announce = false;
            writeNotice(m_broker.pending().size());
        }
        if (m_prompt && m_prompt->isOpen()) m_prompt->refresh(m_broker.pending(), m_clock.unixMs());
        if (fds[Init].revents & POLLIN) {
            m_onLive = nullptr; // over: the last output is only recorded
            if (m_programs) m_programs->sessionEnded();
            if (m_ports) m_ports->stop();
            closePrompt();
            drainTerminal();
            while (m_options.commandOut >= 0)
                onCommandPipe(m_options.commandOut, m_options.outFd);
            while (m_options.commandErr >= 0)
                onCommandPipe(m_options.commandErr, m_options.errFd);
            return true;
        }
    }
}

void SessionLoop::onOwnerGone()
{
    char byte;
    if (::read(m_options.lifeline, &byte, 1) > 0) return; // nobody writes; ignore it
    ::close(std::exchange(m_options.lifeline, -1));
    if (m_options.notice) m_options.notice("the program that owns this session is gone: stopped");
    stop(false);
}

void SessionLoop::goLive()
{
    if (m_onLive) std::exchange(m_onLive, nullptr)();
}

void SessionLoop::finish(int exitStatus)
{
    if (m_exec) m_exec->stop(); // the sandbox is gone: its last commands are handed over
    drainApprovalEvents();      // what other threads handed over after run() returned
    emit({{"kind", activity::kLifecycle}, {"type", "exit"}, {"status", exitStatus}});
    if (!m_control) return;
    m_control->publishExit(exitStatus);
    m_control->drain(2000);
    m_control.reset();
}

void SessionLoop::writeTerminalInput(std::string_view bytes)
{
    if (!m_masterOpen) return;
    writeAll(m_sandbox.ptyMaster, bytes.data(), bytes.size());
    if (m_options.recorder) m_options.recorder->terminalInput(bytes);
}

void SessionLoop::resize(unsigned rows, unsigned cols)
{
    winsize ws{static_cast<unsigned short>(rows), static_cast<unsigned short>(cols), 0, 0};
    if (m_sandbox.ptyMaster < 0 || rows == 0 || cols == 0) return;
    // The size it has already: no signal to the program, no resize in the recording.
    winsize now{};
    if (::ioctl(m_sandbox.ptyMaster, TIOCGWINSZ, &now) == 0 && now.ws_row == ws.ws_row &&
        now.ws_col == ws.ws_col)
        return;
    ::ioctl(m_sandbox.ptyMaster, TIOCSWINSZ, &ws);
    if (m_options.recorder) m_options.recorder->resize(rows, cols);
}

Status SessionLoop::answerApproval(std::uint64_t id, const ApprovalAnswer& answer)
{
    return m_broker.answer(id, answer);
}

void SessionLoop::clientSubscribed()
{
    // Before the client hears that it is subscribed: it then sees every later command.
    if (m_exec) m_exec->setWatched(true);
    if (m_onSubscribe) m_onSubscribe();
}

void SessionLoop::stop(bool kill)
{
    // A paused sandbox is thawed first: frozen, its processes would not see the signal.
    if (m_options.pause) (void)m_options.pause(false);
    ::kill(m_sandbox.initPid, kill ? SIGKILL : SIGTERM);
    if (!kill && m_killAtMs < 0) m_killAtMs = monotonicMs() + m_options.stopGraceMs;
}

SessionSummary SessionLoop::summary() const
{
    SessionSummary s = m_summary;
    m_policy.describe(s);
    if (SessionAnswers answers = m_broker.sessionAnswers(); !answers.empty())
        s.sessionRules = answers.toJson();
    return s;
}

Result<proto::PolicyUpdateResult> SessionLoop::updatePolicy(const proto::PolicyUpdate& update,
                                                            const std::string& client)
{
    auto change = m_policy.prepare(update, client, m_proxy != nullptr);
    if (!change) return change.error();
    // The proxy first: the only step that could still refuse, and then nothing has changed.
    if (m_proxy)
        if (auto e = m_proxy->updatePolicy(change->merged.network)) return *e;
    if (m_exec) m_exec->setRules(CommandMatcher(change->merged.commands));
    m_broker.setApprovalPolicy(change->merged.approvals);
    if (change->source.learnedRulesFile != m_policy.source().learnedRulesFile)
        m_broker.setPersistHook(
            change->source.learnedRulesFile.empty()
                ? ApprovalBroker::PersistHook()
                : ApprovalBroker::learnedRulesWriter(change->source.learnedRulesFile));
    proto::PolicyUpdateResult result{change->applied, change->deferred};
    nlohmann::json event = updateEvent(*change, client);
    m_policy.commit(std::move(*change));
    emit(std::move(event));
    if (m_options.notice)
        m_options.notice("policy updated by " + client + ": " + describeUpdate(result));
    return result;
}

void SessionLoop::publishOutput(const char* data, size_t size)
{
    goLive(); // before the first byte, which clients then get too
    m_lastOutputMs = monotonicMs();
    if (m_options.recorder) m_options.recorder->terminalOutput(std::string_view(data, size));
    if (m_control) m_control->publishOutput(std::string_view(data, size));
}

ssize_t SessionLoop::relayOutput(int from, int to, bool fromPipe)
{
    char buf[65536];
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n <= 0) return n;
    const std::string_view bytes(buf, static_cast<size_t>(n));
    writeAll(to, bytes.data(), bytes.size());
    if (!fromPipe) {
        publishOutput(bytes.data(), bytes.size());
        return n;
    }
    // Clients and the recording show output as on a terminal, where a newline also returns the
    // cursor (a pty's ONLCR): bare LFs from a pipe would draw a staircase there.
    const std::string shown = asTerminalNewlines(bytes, m_pipeLastByte);
    publishOutput(shown.data(), shown.size());
    return n;
}

void SessionLoop::onCommandPipe(int& fd, int to)
{
    const ssize_t n = relayOutput(fd, to, true);
    if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN))) return;
    ::close(fd);
    fd = -1;
}

void SessionLoop::writeNotice(std::size_t pending)
{
    const std::string text = TerminalPrompt::notice(pending);
    writeAll(m_options.outFd, text.data(), text.size());
}

void SessionLoop::onTerminalOutput()
{
    const ssize_t n = relayOutput(m_sandbox.ptyMaster, m_options.outFd, false);
    if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN))) return;
    m_masterOpen = false; // EIO: no slave left; wait for init alone
    m_inputOpen = false;
}

void SessionLoop::drainTerminal()
{
    if (!m_masterOpen) return;
    // The command is gone; what it printed last is still in the pty.
    int flags = ::fcntl(m_sandbox.ptyMaster, F_GETFL);
    ::fcntl(m_sandbox.ptyMaster, F_SETFL, flags | O_NONBLOCK);
    ssize_t n;
    do
        n = relayOutput(m_sandbox.ptyMaster, m_options.outFd, false);
    while (n > 0 || (n < 0 && errno == EINTR));
    m_masterOpen = false;
}

void SessionLoop::onUserInput()
{
    char buf[4096];
    ssize_t n = ::read(m_options.inFd, buf, sizeof buf);
    if (n <= 0) {
        if (n == 0 || errno != EINTR)
            m_inputOpen = false; // end of input: the command keeps its terminal
        return;
    }
    std::string forward;
    for (ssize_t i = 0; i < n; ++i) {
        char key = buf[i];
        if (m_prompt && m_prompt->isOpen()) {
            forward += m_prompt->handleKey(key, m_broker.pending());
            if (!m_prompt->isOpen()) closePrompt();
        } else if (m_prompt && key == kPromptHotkey) {
            m_prompt->open(m_broker.pending(), m_clock.unixMs());
        } else {
            forward.push_back(key);
        }
    }
    if (!forward.empty()) writeTerminalInput(forward);
}

void SessionLoop::closePrompt()
{
    if (!m_prompt) return;
    m_prompt->close();
    // Ask the agent to redraw what the approval screen covered: a size change sends SIGWINCH.
    winsize ws{};
    if (::ioctl(m_sandbox.ptyMaster, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 1) {
        winsize shrunk = ws;
        --shrunk.ws_row;
        ::ioctl(m_sandbox.ptyMaster, TIOCSWINSZ, &shrunk);
        ::ioctl(m_sandbox.ptyMaster, TIOCSWINSZ, &ws);
    }
}

void SessionLoop::onSignal()
{
    signalfd_siginfo info{};
    while (::read(m_signalFd, &info, sizeof info) == sizeof info) {
        const int signal = static_cast<int>(info.ssi_signo);
        if (signal == SIGWINCH) {
            if (auto size = windowSize(m_options.inFd)) resize(size->first, size->second);
            continue;
        }
        // SIGINT, SIGTERM, SIGHUP, SIGQUIT (timeout, kill, a closed terminal, a logout): the
        // session ends the orderly way, a second one at once. The same signal again within
        // kSameStopMs is the same request: timeout(1) sends it to the supervisor and then to
        // its whole process group, and a terminal's hangup reaches every process of it.
        const long long now = monotonicMs();
        if (m_stopSignal == signal && now - m_stopSignalAtMs < kSameStopMs) continue;
        const bool again = m_stopSignal != 0;
        if (!again) {
            m_stopSignal = signal;
            m_stopSignalAtMs = now;
            if (m_options.notice)
                m_options.notice(std::string("got SIG") + sigabbrev_np(signal) +
                                 ": stopping the session (SIGTERM to its processes, SIGKILL " +
                                 std::to_string(m_options.stopGraceMs / 1000) + " s later)");
        }
        stop(again);
    }
}

} // namespace sb
