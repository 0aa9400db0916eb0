#include "supervision/ExecApproval.h"

#include "base/ActivityKinds.h"
#include "base/SignalFreeThread.h"
#include "control/Protocol.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <utility>

namespace sb {

namespace {
constexpr std::size_t kProgramsFoundMax = 1024;
constexpr std::int64_t kRefusalQuietMs = 5000;
} // namespace

ExecApproval::ExecApproval(int listenerFd, CommandMatcher rules, ApprovalBroker& broker,
                           RecordingWriter* recorder, Clock& clock, Hooks hooks, Options options)
    : m_broker(broker), m_recorder(recorder), m_clock(clock), m_hooks(std::move(hooks)),
      m_rules(std::move(rules)), m_mode(std::move(options)),
      m_stopFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    m_interceptors.push_back(std::make_shared<ExecInterceptor>(listenerFd));
    m_thread = startSignalFreeThread([this] { run(); });
    ::pthread_setname_np(m_thread.native_handle(), "exec approval"); // for ps, top and perf
}

ExecApproval::~ExecApproval()
{
    stop();
    for (int fd : m_added)
        ::close(fd);
}

void ExecApproval::stop()
{
    if (!m_thread.joinable()) return;
    m_stopping.store(true);
    std::uint64_t one = 1;
    (void)!::write(m_stopFd.get(), &one, sizeof one);
    m_thread.join();
}

void ExecApproval::setRules(CommandMatcher rules)
{
    std::lock_guard lock(m_rulesMutex);
    m_rules = std::move(rules);
}

void ExecApproval::addListener(int listenerFd)
{
    {
        std::lock_guard lock(m_addedMutex);
        m_added.push_back(listenerFd);
    }
    std::uint64_t one = 1;
    (void)!::write(m_stopFd.get(), &one, sizeof one); // wakes the thread, which takes it in
}

void ExecApproval::noteDenial(pid_t pid, const std::string& why, const ApprovalRequest& request)
{
    const auto ids = ExecInterceptor::sandboxIdsOf(pid);
    if (ids.pid == 0) return;
    Denial d{ids.pid, ids.session, why, proto::describeRequest(request), m_clock.unixMs()};
    std::lock_guard lock(m_denialsMutex);
    m_denials.push_back(std::move(d));
    if (m_denials.size() > 256) m_denials.pop_front();
}

std::optional<ExecApproval::Denial> ExecApproval::denialIn(std::int64_t sandboxSession,
                                                           std::int64_t sinceUnixMs) const
{
    std::lock_guard lock(m_denialsMutex);
    for (auto it = m_denials.rbegin(); it != m_denials.rend(); ++it)
        if ((it->session == sandboxSession || it->pid == sandboxSession) &&
            it->unixMs >= sinceUnixMs)
            return *it;
    return std::nullopt;
}

void ExecApproval::run()
{
    std::vector<pollfd> fds;
    // Without its eventfd (out of descriptors) the thread looks at m_stopping now and then.
    const int timeoutMs = m_stopFd ? -1 : 50;
    bool reported = false;
    while (!m_stopping.load()) {
        fds.clear();
        fds.push_back({m_stopFd.get(), POLLIN, 0});
        bool anyLeft = false;
        for (const auto& i : m_interceptors) {
            // A filter with no process left under it says so for good: no longer listened to.
            fds.push_back({i->hungUp() ? -1 : i->fd(), POLLIN, 0});
            anyLeft = anyLeft || !i->hungUp();
        }
        if (!anyLeft) return; // no process under any filter is left, and none can come
        int ready = ::poll(fds.data(), fds.size(), timeoutMs);
        if (ready < 0) {
            // Only EINTR and ENOMEM can happen here; the execs wait meanwhile, so try again.
            if (errno == EINTR) continue;
            if (!std::exchange(reported, true))
                m_hooks.activity({{"kind", activity::kError},
                                  {"message", sysError("wait for execs").describe()}});
            ::usleep(10'000);
            continue;
        }
        if (fds[0].revents & POLLIN) {
            std::uint64_t count;
            (void)!::read(m_stopFd.get(), &count, sizeof count);
            std::lock_guard lock(m_addedMutex);
            for (int fd : std::exchange(m_added, {}))
                m_interceptors.push_back(std::make_shared<ExecInterceptor>(fd));
            continue; // m_stopping says whether to end
        }
        if (ready == 0) continue;
        bool answered = false;
        for (std::size_t k = 1; k < fds.size(); ++k) {
            if (fds[k].revents & POLLIN) {
                onNotification(m_interceptors[k - 1]);
                answered = true;
            } else if (fds[k].revents & (POLLHUP | POLLERR)) {
                m_interceptors[k - 1]->setHungUp();
            }
        }
        if (answered && !m_answeredOne) {
            m_answeredOne = true;
            if (m_hooks.firstAnswered) m_hooks.firstAnswered();
        }
    }
}

void ExecApproval::onOutbound(const std::shared_ptr<ExecInterceptor>& interceptor,
                              const OutboundCall& call)
{
    auto attempt = m_hooks.outbound ? outboundAttempt(call) : std::nullopt;
    if (!attempt) {
        (void)interceptor->allow(call.notificationId);
        return;
    }
    if (auto command = m_commandOf.find(call.pid); command != m_commandOf.end())
        attempt->commandId = command->second;
    std::weak_ptr<ExecInterceptor> answering = interceptor;
    m_hooks.outbound(std::move(*attempt), [answering, id = call.notificationId](int error) {
        if (auto listener = answering.lock())
            (void)(error == 0 ? listener->allow(id) : listener->deny(id, error));
    });
}

void ExecApproval::onRefused(ExecInterceptor& interceptor, const RefusedCall& call)
{
    // One record per process and call in a while: a program retrying in a loop is one line.
    const std::int64_t now = m_clock.unixMs();
    auto& last = m_refusedAt[std::to_string(call.pid) + " " + call.syscall];
    if (m_hooks.refused && (last == 0 || now - last > kRefusalQuietMs)) {
        auto command = m_commandOf.find(call.pid);
        m_hooks.refused(call, command != m_commandOf.end() ? command->second : 0);
    }
    last = now;
    if (m_refusedAt.size() > kProgramsFoundMax) m_refusedAt.clear();
    (void)interceptor.deny(call.notificationId, EPERM);
}

void ExecApproval::onNotification(const std::shared_ptr<ExecInterceptor>& listener)
{
    ExecInterceptor& interceptor = *listener;
    auto received = interceptor.receive();
    if (!received) {
        m_hooks.activity({{"kind", activity::kError}, {"message", received.error().describe()}});
        return;
    }
    if (!*received) return;
    if (auto* call = std::get_if<OutboundCall>(&**received)) {
        onOutbound(listener, *call);
        return;
    }
    if (auto* call = std::get_if<RefusedCall>(&**received)) {
        onRefused(interceptor, *call);
        return;
    }
    ExecRequest exec = std::move(std::get<ExecRequest>(**received));
    if (!m_sandboxRoot) {
        // Every process in the sandbox has init's root (chroot, pivot_root, mount and setns are
        // filtered), and this descriptor keeps it reachable after the process is gone.
        std::string root = "/proc/" + std::to_string(exec.pid) + "/root";
        m_sandboxRoot.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    }
    ApprovalRequest request;
    request.kind = ApprovalKind::Command;
    request.program = std::move(exec.program);
    request.argv = std::move(exec.argv);
    request.cwd = std::move(exec.cwd);

    RuleAction action;
    std::string rule;
    if (auto earlier = m_broker.decidedBySession(request)) {
        action = *earlier ? RuleAction::Allow : RuleAction::Deny;
        rule = "an answer earlier in this session";
    } else {
        std::lock_guard lock(m_rulesMutex);
        CommandDecision d = m_rules.decide(request.program, request.argv);
        action = d.action;
        rule = std::move(d.rule);
    }
    // Observing: nobody is asked; what would have been is allowed and said so.
    const bool wouldAsk = m_mode.observe && action == RuleAction::Ask;
    if (wouldAsk) action = RuleAction::Allow;
    // Everything the record needs is read while the exec is stopped, before the answer. After
    // it, a short command may be gone before its folder is read; the exec soon holds its
    // process's exec_update_lock, which a read of /proc/PID/cwd waits for (Linux 6.18.40,
    // 6.12.97, 6.6.145, 6.1.178 and later) and the exec must then wake the reader; and the
    // kernel hands the answered exec this CPU (synchronous wake-ups): it would wait anyway.
    std::uint64_t id = exec.notificationId;
    // execvp tries each PATH folder in turn: an exec of a program that is not there would fail
    // with ENOENT by itself. It is no activity worth a line (nor a working folder), and no
    // question worth asking: a shell's search for `touch` meets /usr/local/bin/touch first,
    // and one command must not make several prompts. An allowed one goes on to fail by itself
    // (a program created in between still went through the policy); an asked or denied one
    // is answered ENOENT, as the kernel would, which never lets anything run. A program found
    // once is not looked for again (~3 us an exec): should it be deleted, a PATH search's miss
    // on it is recorded as the exec it was.
    if (!m_programsFound.contains(request.program)) {
        if (programAbsent(exec.pid, request.program)) {
            (void)(action == RuleAction::Allow ? interceptor.allow(id)
                                               : interceptor.deny(id, ENOENT));
            return;
        }
        if (m_programsFound.size() >= kProgramsFoundMax) m_programsFound.clear();
        m_programsFound.insert(request.program);
    }
    // The working folder is for people (the record, a prompt), not the rules.
    if (request.cwd.empty()) request.cwd = ExecInterceptor::cwdOf(exec.pid);
    if (action == RuleAction::Allow) {
        (void)interceptor.allow(id);
    } else if (action == RuleAction::Deny) {
        noteDenial(exec.pid, rule, request); // before the answer: its caller may ask at once
        (void)interceptor.deny(id);
    }
    const std::uint64_t commandId = ++m_commands;
    CommandRecord record;
    if (action == RuleAction::Ask) { // the broker still needs the request
        record.program = request.program;
        record.argv = request.argv;
        record.cwd = request.cwd;
    } else {
        record.program = std::move(request.program);
        record.argv = std::move(request.argv);
        record.cwd = std::move(request.cwd);
    }
    record.id = commandId;
    record.pid = exec.pid;
    if (m_commandOf.size() >= kProgramsFoundMax) m_commandOf.clear();
    m_commandOf[exec.pid] = commandId;
    record.decision = toString(action);
    record.rule = rule;
    record.wouldAsk = wouldAsk;
    if (m_mode.shadow) {
        // Read after the record took the request's fields: the request may have been moved.
        const CommandDecision shadow = m_mode.shadow->decide(record.program, record.argv);
        record.shadowDecision = std::string(toString(shadow.action));
        record.shadowRule = shadow.rule;
    }
    record.timeUnixMs = m_clock.unixMs();
    this->record(std::move(record));
    if (action == RuleAction::Ask) {
        request.rule = rule;
        request.subject = commandId;
        const auto ids = ExecInterceptor::sandboxIdsOf(exec.pid);
        request.pid = ids.pid;
        request.session = ids.session;
        ExecInterceptor* answering = &interceptor;
        const pid_t pid = exec.pid;
        // The outcome comes from whichever thread answers or expires it.
        m_broker.submit(request, [this, answering, id, pid, request](const ApprovalOutcome& o) {
            if (o.allow) {
                (void)answering->allow(id);
                return;
            }
            noteDenial(pid,
                       o.timedOut    ? "the approval request timed out"
                       : o.cancelled ? "the approval request was cancelled"
                                     : "denied by " + o.answer.answeredBy,
                       request);
            (void)answering->deny(id);
        });
    }
}

bool ExecApproval::programAbsent(pid_t pid, const std::string& program) const
{
    if (m_sandboxRoot) {
        std::string_view relative = program;
        while (!relative.empty() && relative.front() == '/')
            relative.remove_prefix(1);
        if (relative.empty()) return false;
        return ::faccessat(m_sandboxRoot.get(), std::string(relative).c_str(), F_OK, 0) != 0 &&
               errno == ENOENT;
    }
    return ::access(("/proc/" + std::to_string(pid) + "/root" + program).c_str(), F_OK) != 0 &&
           errno == ENOENT;
}

void ExecApproval::record(CommandRecord record)
{
    // JSON only for someone who reads it now: the recording builds its own on its thread.
    if (m_watched.load(std::memory_order_relaxed) && m_hooks.forClients)
        m_hooks.forClients(toJson(record));
    if (m_recorder) m_recorder->command(std::move(record));
}

} // namespace sb
