// The containment pipeline. The supervisor clones init into new namespaces; init builds the
// file system, gives up its privileges, starts the command and then only reaps and forwards
// signals. Each step is a small function that returns a described error.
#include "sandbox/Sandbox.h"

#include "sandbox/Identity.h"
#include "sandbox/Landlock.h"
#include "sandbox/Mounts.h"
#include "sandbox/ResourceLimits.h"
#include "sandbox/Seccomp.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char** environ;

namespace sb {
namespace {

constexpr int kSetupFailed = 125; // init's exit code when the sandbox could not be built

// Messages on the sync socket: 'G' (supervisor → init: maps written, go on),
// "K" (init → supervisor: the command is starting, with the pty master and the exec listener
// as fds when there are) or "E<text>" (the pipeline failed). The command reports to init on a
// socket too: "N" with the exec listener fd (the filter is in; exec comes next), "E<text>",
// or nothing at all when exec closed the socket.
Status sendMessage(int fd, const std::string& message, const std::vector<int>& fds = {})
{
    iovec iov{const_cast<char*>(message.data()), message.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (!fds.empty()) {
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        if (c == nullptr) return Error{ErrorCode::System, 0, "sandbox sync: no room for fds"};
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    if (::sendmsg(fd, &msg, MSG_NOSIGNAL) < 0) return sysError("sandbox sync");
    return {};
}

struct Message {
    std::string text; // empty: the peer closed without a word
    std::vector<int> fds;
};

Message receiveMessage(int fd)
{
    char buf[4096];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do {
        n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    Message out;
    if (n > 0) out.text.assign(buf, static_cast<size_t>(n));
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        out.fds.resize(count);
        std::memcpy(out.fds.data(), CMSG_DATA(c), count * sizeof(int));
    }
    return out;
}

// Why init gave up, from what it said before it ended.
Error setupFailure(const Message& said)
{
    return Error{ErrorCode::System, 0,
                 said.text.size() > 1 && said.text[0] == 'E' ? said.text.substr(1)
                                                             : "sandbox init died during setup"};
}

struct PtyPair {
    int master = -1;
    int slave = -1;
};

// Opened after the identity change, inside the new /dev/pts, so the slave belongs to the
// sandbox user and its name means something inside.
Result<PtyPair> openTerminal(const SandboxConfig::Terminal& request)
{
    PtyPair pty;
    pty.master = ::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (pty.master < 0) return sysError("open /dev/ptmx");
    int unlock = 0;
    if (::ioctl(pty.master, TIOCSPTLCK, &unlock) != 0) return sysError("unlock the pty");
    pty.slave = ::ioctl(pty.master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (pty.slave < 0) return sysError("open the pty slave");
    winsize ws{request.rows, request.columns, 0, 0};
    ::ioctl(pty.master, TIOCSWINSZ, &ws);
    if (!request.translateNewlines) {
        termios t{};
        ::tcgetattr(pty.slave, &t);
        t.c_oflag &= ~static_cast<tcflag_t>(ONLCR);
        ::tcsetattr(pty.slave, TCSANOW, &t);
    }
    return pty;
}

Status setHostname()
{
    static const char name[] = "sandbench";
    if (::sethostname(name, sizeof name - 1) != 0) return sysError("set hostname");
    return {};
}

Status bringUpLoopback(NetworkMode mode)
{
    if (mode == NetworkMode::Host) return {};
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return sysError("socket for loopback setup");
    ifreq req{};
    std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
    Status failed;
    if (::ioctl(fd, SIOCGIFFLAGS, &req) != 0) failed = sysError("read loopback flags");
    req.ifr_flags = static_cast<short>(req.ifr_flags | IFF_UP | IFF_RUNNING);
    if (!failed && ::ioctl(fd, SIOCSIFFLAGS, &req) != 0) failed = sysError("bring up loopback");
    ::close(fd);
    return failed;
}

Status forbidPrivilegeGain()
{
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return sysError("set no_new_privs");
    // Credentials changed since clone, which clears the parent-death signal: set it again.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        return sysError("set parent-death signal");
    // Keeps the agent (same uid) from reading init's memory or attaching to it.
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return sysError("clear dumpable");
    return {};
}

// Everything in the sandbox runs as batch work: a process of it that wakes up does not preempt
// the running one, it waits for the end of that one's time slice (a few ms at most). Its
// latency does not suffer on an idle CPU, and the user's desktop keeps its precedence over an
// agent's builds. It also keeps an exec on its CPU: the supervisor answers an exec's approval
// from that CPU, and an answered exec that preempted it found the CPU busy and was moved to the
// other one (~30 us an exec; BENCHMARKS.md). Not a boundary: the agent may set its policy back.
// An idle-class caller (chrt --idle) stays idle: leaving that class needs RLIMIT_NICE.
Status scheduleAsBatchWork()
{
    if (::sched_getscheduler(0) == SCHED_IDLE) return {};
    sched_param none{};
    if (::sched_setscheduler(0, SCHED_BATCH, &none) != 0)
        return sysError("schedule the sandbox as batch work");
    return {};
}

// The proxy's listener, made while init is still in the sandbox's network namespace.
Result<int> listenForProxy()
{
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return sysError("socket for the proxy");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(kProxyPort);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd, 512) != 0) {
        Error e = sysError("listen on 127.0.0.1:" + std::to_string(kProxyPort) + " for the proxy");
        ::close(fd);
        return e;
    }
    return fd;
}

// Init's own containment: namespaces were made by clone; this is everything after.
Status containInit(const SandboxConfig& config, const SandboxIdentity& id)
{
    if (auto e = scheduleAsBatchWork()) return e;
    if (auto e = setHostname()) return e;
    if (auto e = bringUpLoopback(config.network)) return e;
    if (auto e = buildRootFilesystem(config, id)) return e;
    if (id.privileged)
        if (auto e = becomeSandboxUser(id)) return e;
    if (auto e = dropCapabilities()) return e;
    return forbidPrivilegeGain();
}

// Closes every fd except those in `keep`.
void closeAllExcept(std::vector<int> keep)
{
    std::sort(keep.begin(), keep.end());
    unsigned next = 0;
    for (int fd : keep) {
        if (fd < 0 || static_cast<unsigned>(fd) < next) continue;
        if (static_cast<unsigned>(fd) > next) ::close_range(next, static_cast<unsigned>(fd) - 1, 0);
        next = static_cast<unsigned>(fd) + 1;
    }
    ::close_range(next, ~0U, 0);
}

// Puts the command's stdio on 0..2 and the report socket on 3; closes everything else.
Status setUpStdio(const SandboxConfig& config, int ptySlave, int& reportFd)
{
    // Move the fds out of the way first, so dup2 onto 0..3 never clobbers a later source.
    int moved[4];
    const bool tty = ptySlave >= 0;
    const int sources[4] = {tty ? ptySlave : config.stdioFds[0],
                            tty ? ptySlave : config.stdioFds[1],
                            tty ? ptySlave : config.stdioFds[2], reportFd};
    for (int i = 0; i < 4; ++i) {
        moved[i] = ::fcntl(sources[i], F_DUPFD_CLOEXEC, 10);
        if (moved[i] < 0) return sysError("duplicate stdio fd");
    }
    for (int i = 0; i < 3; ++i)
        if (::dup2(moved[i], i) < 0) return sysError("set up stdio");
    if (::dup3(moved[3], 3, O_CLOEXEC) < 0) return sysError("set up the report socket");
    reportFd = 3;
    ::close_range(4, ~0U, 0);
    if (tty && ::ioctl(0, TIOCSCTTY, 0) != 0) return sysError("take the terminal");
    return {};
}

// The command's last steps before exec.
Status containCommand(const SandboxConfig& config, int ptySlave, int& reportFd)
{
    if (::setsid() < 0) return sysError("new session");
    if (auto e = setUpStdio(config, ptySlave, reportFd)) return e;
    if (auto e = applyRlimits(config.limits, !config.cgroups.empty())) return e;
    if (::chdir(config.project.c_str()) != 0) return sysError("chdir " + config.project.string());
    if (landlockAbi() > 0)
        if (auto abi = restrictWritesTo(writableFolders(config)); !abi) return abi.error();
    if (!config.superviseExec) return installSeccompFilter();
    // Init is not dumpable and this child inherited that; until exec replaces its memory, the
    // supervisor (for a normal user: without CAP_SYS_PTRACE over the host's namespace, where this
    // memory still belongs) could not read the first exec's arguments. Exec resets it anyway.
    if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
        return sysError("set dumpable for exec inspection");
    auto listener = installSeccompFilterNotifyingExec();
    if (!listener) return listener.error();
    Status sent = sendMessage(reportFd, "N", {*listener});
    ::close(*listener); // the agent must never hold it
    return sent;
}

[[noreturn]] void execCommand(const SandboxConfig& config, int ptySlave, int reportFd)
{
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
        ::signal(sig, SIG_DFL);
    if (auto e = containCommand(config, ptySlave, reportFd)) {
        (void)sendMessage(reportFd, "E" + e->describe());
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

int exitCodeOf(int status)
{
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Pid 1: reap everything, pass signals from the supervisor to the command's process group,
// and leave with the command's status (the kernel then kills the rest of the namespace).
[[noreturn]] void superviseCommand(pid_t command, int signalFd)
{
    for (;;) {
        signalfd_siginfo info{};
        if (::read(signalFd, &info, sizeof info) != sizeof info) continue;
        if (info.ssi_signo != SIGCHLD) {
            // Its process group, or the command alone if it has not made one yet (setsid).
            if (::kill(-command, static_cast<int>(info.ssi_signo)) != 0)
                ::kill(command, static_cast<int>(info.ssi_signo));
            continue;
        }
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0)
            if (pid == command) ::_exit(exitCodeOf(status));
    }
}

[[noreturn]] void runInit(const SandboxConfig& config, const SandboxIdentity& id, int syncFd)
{
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    closeAllExcept({syncFd, config.stdioFds[0], config.stdioFds[1], config.stdioFds[2]});
    if (receiveMessage(syncFd).text != "G")
        ::_exit(kSetupFailed); // the supervisor is gone or failed to map us
    auto fail = [syncFd](const Error& e) {
        (void)sendMessage(syncFd, "E" + e.describe());
        ::_exit(kSetupFailed);
    };
    if (auto e = containInit(config, id)) fail(*e);

    int proxyFd = -1;
    if (config.network == NetworkMode::Filtered) {
        auto listener = listenForProxy();
        if (!listener) fail(listener.error());
        proxyFd = *listener;
    }
    PtyPair pty;
    if (config.terminal.enabled) {
        auto opened = openTerminal(config.terminal);
        if (!opened) fail(opened.error());
        pty = *opened;
    }
    // The supervisor makes the session's cgroups while we build the sandbox, then moves us into
    // them (v2) or hands us their tasks files (v1, see openCgroupTasks): the command must start
    // inside them.
    Message joined = receiveMessage(syncFd);
    if (joined.text != "J") ::_exit(kSetupFailed);
    Status entered = config.cgroupsV1 ? enterCgroupsV1(config.cgroups, joined.fds) : Status{};
    for (int fd : joined.fds)
        ::close(fd);
    if (entered) fail(*entered);
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_BLOCK, &all, nullptr);
    int signalFd = ::signalfd(-1, &all, SFD_CLOEXEC);
    int report[2];
    if (signalFd < 0 || ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, report) != 0)
        fail(sysError("init signal setup"));
    pid_t command = ::fork();
    if (command < 0) fail(sysError("start the command"));
    if (command == 0) {
        ::close(report[0]);
        execCommand(config, pty.slave, report[1]);
    }
    ::close(report[1]);
    Message report0 = receiveMessage(report[0]);
    ::close(report[0]);
    if (!report0.text.empty() && report0.text[0] == 'E')
        fail(Error{ErrorCode::System, 0, report0.text.substr(1)});
    std::vector<int> handOver;
    std::string flags = "K";
    if (pty.master >= 0) handOver.push_back(pty.master), flags += 'p';
    for (int fd : report0.fds)
        handOver.push_back(fd), flags += 'n';
    if (proxyFd >= 0) handOver.push_back(proxyFd), flags += 'x';
    (void)sendMessage(syncFd, flags, handOver);
    for (int fd : handOver)
        ::close(fd);
    for (int fd : {pty.slave, config.stdioFds[0], config.stdioFds[1], config.stdioFds[2]})
        ::close(fd);
    superviseCommand(command, signalFd);
}

} // namespace

Result<SandboxProcess> startSandbox(const SandboxConfig& config,
                                    const std::function<Status(pid_t, int)>& whileInitSetsUp)
{
    SandboxIdentity id = sandboxIdentity();
    int sync[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sync) != 0)
        return sysError("socketpair");
    std::uint64_t flags =
        CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_PIDFD;
    if (!id.privileged) flags |= CLONE_NEWUSER;
    if (config.network != NetworkMode::Host) flags |= CLONE_NEWNET;
    int pidFd = -1;
    clone_args args{};
    args.flags = flags;
    args.pidfd = reinterpret_cast<std::uintptr_t>(&pidFd);
    args.exit_signal = SIGCHLD;
    long pid = ::syscall(SYS_clone3, &args, sizeof args);
    if (pid == 0) {
        ::close(sync[0]);
        runInit(config, id, sync[1]);
    }
    ::close(sync[1]);
    if (pid < 0) {
        Error e = sysError("create the sandbox namespaces");
        ::close(sync[0]);
        return e;
    }
    SandboxProcess sandbox{static_cast<pid_t>(pid), pidFd};
    auto abandon = [&](Error e) -> Result<SandboxProcess> {
        ::kill(sandbox.initPid, SIGKILL);
        ::waitpid(sandbox.initPid, nullptr, 0);
        ::close(sandbox.pidFd);
        if (sync[0] >= 0) ::close(sync[0]);
        return e;
    };
    if (!id.privileged)
        if (auto e = writeIdMaps(sandbox.initPid, id.uid, id.gid)) return abandon(*e);
    // After the go, init may fail on its own and end: what it said then explains more.
    auto failedEarly = [&](Error e) {
        ::kill(sandbox.initPid, SIGKILL);
        Message early = receiveMessage(sync[0]);
        for (int fd : early.fds)
            ::close(fd);
        return abandon(early.text.empty() ? std::move(e) : setupFailure(early));
    };
    if (auto e = sendMessage(sync[0], "G")) return abandon(*e);
    if (whileInitSetsUp)
        if (auto e = whileInitSetsUp(sandbox.initPid, sandbox.pidFd)) return failedEarly(*e);
    std::vector<int> cgroupTasks;
    if (config.cgroupsV1) {
        auto opened = openCgroupTasks(config.cgroups);
        if (!opened) return failedEarly(opened.error());
        cgroupTasks = std::move(*opened);
    } else if (auto e = joinCgroups(config.cgroups, sandbox.initPid)) {
        return failedEarly(*e);
    }
    Status joined = sendMessage(sync[0], "J", cgroupTasks);
    for (int fd : cgroupTasks)
        ::close(fd);
    if (joined) return failedEarly(*joined);
    Message reply = receiveMessage(sync[0]);
    ::close(sync[0]);
    sync[0] = -1;
    if (reply.text.empty() || reply.text[0] != 'K' || reply.fds.size() != reply.text.size() - 1) {
        for (int fd : reply.fds)
            ::close(fd);
        return abandon(setupFailure(reply));
    }
    for (size_t i = 1; i < reply.text.size(); ++i) {
        char kind = reply.text[i];
        (kind == 'p'   ? sandbox.ptyMaster
         : kind == 'n' ? sandbox.execListener
                       : sandbox.proxyListener) = reply.fds[i - 1];
    }
    return sandbox;
}

int waitSandbox(const SandboxProcess& sandbox)
{
    int status = 0;
    while (::waitpid(sandbox.initPid, &status, 0) < 0)
        if (errno != EINTR) return 1;
    ::close(sandbox.pidFd);
    return exitCodeOf(status);
}

} // namespace sb
