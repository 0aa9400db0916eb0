#include "sandbox/SandboxProcess.h"

#include "base/UniqueFd.h"
#include "sandbox/ExecHelper.h"
#include "sandbox/Landlock.h"
#include "sandbox/Mounts.h"
#include "sandbox/ResourceLimits.h"
#include "sandbox/SandboxChannel.h"
#include "sandbox/Seccomp.h"

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace sb::sandbox {
namespace {

// Puts the process's stdio on 0..2, the report socket on 3 and `keep` (when there is one) on 4;
// closes everything else.
Status setUpStdio(const int stdio[3], bool tty, int& reportFd, int& keep)
{
    // Move the fds out of the way first, so dup2 onto 0..4 never clobbers a later source.
    int moved[5] = {-1, -1, -1, -1, -1};
    const int sources[5] = {stdio[0], stdio[1], stdio[2], reportFd, keep};
    for (int i = 0; i < 5; ++i) {
        if (sources[i] < 0) continue;
        moved[i] = ::fcntl(sources[i], F_DUPFD_CLOEXEC, 10);
        if (moved[i] < 0) return sysError("duplicate stdio fd");
    }
    for (int i = 0; i < 3; ++i)
        if (::dup2(moved[i], i) < 0) return sysError("set up stdio");
    if (::dup3(moved[3], 3, O_CLOEXEC) < 0) return sysError("set up the report socket");
    reportFd = 3;
    if (keep >= 0) {
        if (::dup3(moved[4], 4, O_CLOEXEC) < 0) return sysError("set up the helper's channel");
        keep = 4;
    }
    ::close_range(keep >= 0 ? 5 : 4, ~0U, 0);
    if (tty && ::ioctl(0, TIOCSCTTY, 0) != 0) return sysError("take the terminal");
    return {};
}

// The contained process's steps before exec (the command) or before serving (the helper).
Status containProcess(const SandboxConfig& config, const int stdio[3], bool tty, int& reportFd,
                      int& keep)
{
    if (::setsid() < 0) return sysError("new session");
    if (auto e = setUpStdio(stdio, tty, reportFd, keep)) return e;
    if (auto e = applyRlimits(config.limits, !config.cgroups.empty())) return e;
    if (::chdir(config.projectInside.c_str()) != 0)
        return sysError("chdir " + config.projectInside.string());
    if (landlockAbi() > 0)
        if (auto abi = restrictWritesTo(writableFolders(config)); !abi) return abi.error();
    if (!config.superviseExec) return installSeccompFilter();
    // Init is not dumpable and this child inherited that; until exec replaces its memory, the
    // supervisor (for a normal user: without CAP_SYS_PTRACE over the host's namespace, where this
    // memory still belongs) could not read the first exec's arguments. Exec resets it anyway.
    if (keep < 0 && ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
        return sysError("set dumpable for exec inspection");
    auto listener = installSeccompFilterNotifying(config.superviseOutbound);
    if (!listener) return listener.error();
    Status sent = sendChannelMessage(reportFd, "N", {*listener});
    ::close(*listener); // the agent must never hold it
    return sent;
}

void resetSignals()
{
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
        ::signal(sig, SIG_DFL);
}

[[noreturn]] void execCommand(const SandboxConfig& config, const int stdio[3], bool tty,
                              int reportFd)
{
    resetSignals();
    int none = -1;
    if (auto e = containProcess(config, stdio, tty, reportFd, none)) {
        (void)sendChannelMessage(reportFd, "E" + e->describe());
        ::_exit(kSetupFailed);
    }
    std::vector<char*> argv, env;
    for (const auto& a : config.argv)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& v : config.env)
        env.push_back(const_cast<char*>(v.c_str()));
    env.push_back(nullptr);
    environ = env.data(); // execvp searches the sandbox's PATH, not ours
    ::execvp(argv[0], argv.data());
    int err = errno;
    std::string msg = "sandbench: " + config.argv[0] + ": " + std::strerror(err) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(err == ENOENT ? 127 : 126);
}

} // namespace

int exitCodeOf(int status)
{
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

namespace {

// Forks `body` with a report socket; waits for its "N" (the filter is in, with the listener) or
// "E<text>" (containment failed), or for the socket to close (exec happened without a filter).
template <class Body> Result<Started> forkReporting(Body body)
{
    auto report = makeSocketPair(SOCK_SEQPACKET | SOCK_CLOEXEC);
    if (!report) return report.error().within("create the report socket");
    pid_t pid = ::fork();
    if (pid < 0) return sysError("fork");
    if (pid == 0) {
        report->one.reset();
        body(report->other.get());
    }
    report->other.reset();
    ChannelMessage said = receiveChannelMessage(report->one.get());
    Started started{pid, -1};
    if (!said.text.empty() && said.text[0] == 'E')
        return Error{ErrorCode::System, 0, said.text.substr(1)};
    if (!said.fds.empty()) started.execListener = said.fds.front().release();
    return started;
}

} // namespace

Result<Started> startCommand(const SandboxConfig& config, int ptySlave)
{
    const bool tty = ptySlave >= 0;
    const int stdio[3] = {tty ? ptySlave : config.stdioFds[0], tty ? ptySlave : config.stdioFds[1],
                          tty ? ptySlave : config.stdioFds[2]};
    return forkReporting([&](int report) { execCommand(config, stdio, tty, report); });
}

Result<Started> startExecHelper(const SandboxConfig& config, int ptySlave, int channel,
                                bool asCommand)
{
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0) return sysError("open /dev/null");
    const bool tty = asCommand && ptySlave >= 0;
    int stdio[3];
    for (int i = 0; i < 3; ++i)
        stdio[i] = tty                                    ? ptySlave
                   : asCommand && config.stdioFds[i] >= 0 ? config.stdioFds[i]
                                                          : null;
    auto started = forkReporting([&](int report) {
        resetSignals();
        int keep = channel;
        if (auto e = containProcess(config, stdio, tty, report, keep)) {
            (void)sendChannelMessage(report, "E" + e->describe());
            ::_exit(kSetupFailed);
        }
        // Its channel stays out of the agent's reach: the helper is not dumpable (its /proc
        // entries are root's), so no process of the sandbox can open its descriptors.
        ::close(report);
        runExecHelper(keep, config);
    });
    ::close(null);
    return started;
}

} // namespace sb::sandbox
