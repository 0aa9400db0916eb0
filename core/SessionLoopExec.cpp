// The session loop's exec approval: each exec of the sandbox, stopped by the seccomp filter, is
// read, decided by the command rules (or put to the broker), answered, and recorded.
#include "SessionLoop.h"

#include <fcntl.h>
#include <unistd.h>

namespace sb {

namespace {
constexpr std::size_t kProgramsFoundMax = 1024;
}

void SessionLoop::onExecNotification()
{
    auto received = m_exec->receive();
    if (!received) {
        emit({{"kind", "error"}, {"message", received.error().describe()}});
        return;
    }
    if (!*received) return;
    ExecRequest exec = std::move(**received);
    if (m_sandboxRoot < 0) {
        // Every process in the sandbox has init's root (chroot, pivot_root, mount and setns are
        // filtered), and this descriptor keeps it reachable after the process is gone.
        std::string root = "/proc/" + std::to_string(exec.pid) + "/root";
        m_sandboxRoot = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
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
        CommandDecision d = m_commands.decide(request.program, request.argv);
        action = d.action;
        rule = std::move(d.rule);
    }
    // Everything the record needs is read while the exec is stopped, before the answer. After
    // it, a short command may be gone before its folder is read; the exec soon holds its
    // process's exec_update_lock, which a read of /proc/PID/cwd waits for (Linux 6.18.40,
    // 6.12.97, 6.6.145, 6.1.178 and later) and the exec must then wake the reader; and the
    // kernel hands the answered exec this CPU (synchronous wake-ups): it would wait anyway.
    std::uint64_t id = exec.notificationId;
    // execvp tries each PATH folder in turn: an allowed exec of a program that is not there
    // fails with ENOENT by itself and is no activity worth a line (nor a working folder). Only
    // allowed ones are skipped, so a program created in between still went through the policy.
    // A program found once is not looked for again (~3 us an exec): should it be deleted, a
    // PATH search's miss on it is recorded as the exec it was.
    if (action == RuleAction::Allow && !m_programsFound.contains(request.program)) {
        if (programAbsent(exec.pid, request.program)) {
            (void)m_exec->allow(id);
            return;
        }
        if (m_programsFound.size() >= kProgramsFoundMax) m_programsFound.clear();
        m_programsFound.insert(request.program);
    }
    // The working folder is for people (the record, a prompt), not the rules.
    if (request.cwd.empty()) request.cwd = ExecInterceptor::cwdOf(exec.pid);
    if (action == RuleAction::Allow)
        (void)m_exec->allow(id);
    else if (action == RuleAction::Deny)
        (void)m_exec->deny(id);
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
    record.pid = exec.pid;
    record.decision = toString(action);
    record.rule = rule;
    record.timeUnixMs = m_clock.unixMs();
    recordCommand(std::move(record));
    if (action == RuleAction::Ask) {
        request.rule = rule;
        ExecInterceptor* interceptor = m_exec.get();
        m_broker.submit(std::move(request), [interceptor, id](const ApprovalOutcome& outcome) {
            (void)(outcome.allow ? interceptor->allow(id) : interceptor->deny(id));
        });
    }
}

bool SessionLoop::programAbsent(pid_t pid, const std::string& program) const
{
    if (m_sandboxRoot >= 0) {
        std::string_view relative = program;
        while (!relative.empty() && relative.front() == '/')
            relative.remove_prefix(1);
        if (relative.empty()) return false;
        return ::faccessat(m_sandboxRoot, std::string(relative).c_str(), F_OK, 0) != 0 &&
               errno == ENOENT;
    }
    return ::access(("/proc/" + std::to_string(pid) + "/root" + program).c_str(), F_OK) != 0 &&
           errno == ENOENT;
}

void SessionLoop::recordCommand(CommandRecord record)
{
    // JSON only for someone who reads it now: the recording builds its own on its thread.
    if (m_control && m_control->subscriberCount() > 0) m_control->publishEvent(toJson(record));
    if (m_options.recorder) m_options.recorder->command(std::move(record));
}

} // namespace sb
