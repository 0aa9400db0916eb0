// The containment pipeline. The supervisor clones init into new namespaces; init builds the
// file system, gives up its privileges, starts the command and then only reaps and forwards
// signals. Each step is a small function that returns a described error.
#include "sandbox/Sandbox.h"

#include "base/UniqueFd.h"
#include "sandbox/Identity.h"
#include "sandbox/Landlock.h"
#include "sandbox/Mounts.h"
#include "sandbox/NetworkRedirect.h"
#include "sandbox/ResourceLimits.h"
#include "sandbox/SandboxChannel.h"
#include "sandbox/SandboxProcess.h"
#include "sandbox/SandboxUser.h"
#include "sandbox/Seccomp.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
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

using sandbox::kSetupFailed;

// Messages on the sync socket: 'G' (supervisor → init: maps written, go on),
// "K" (init → supervisor: the command is starting, with the pty master and the exec listener
// as fds when there are) or "E<text>" (the pipeline failed). The command reports to init on a
// socket too: "N" with the exec listener fd (the filter is in; exec comes next), "E<text>",
// or nothing at all when exec closed the socket.
Status sendMessage(int fd, const std::string& message, const std::vector<int>& fds = {})
{
    return sendChannelMessage(fd, message, fds);
}

using Message = ChannelMessage;

Message receiveMessage(int fd)
{
    return receiveChannelMessage(fd);
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

constexpr std::string_view kHostname = "sandbench";

Status setHostname()
{
    if (::sethostname(kHostname.data(), kHostname.size()) != 0) return sysError("set hostname");
    return {};
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
// other one (~30 us an exec; BENCHMARKS.md). Not a boundary: the agent may set its policy back
// (the code interpreter's gateway does, for its kernels' latency: docs/e2b.md).
// An idle-class caller (chrt --idle) stays idle: leaving that class needs RLIMIT_NICE.
Status scheduleAsBatchWork()
{
    if (::sched_getscheduler(0) == SCHED_IDLE) return {};
    sched_param none{};
    if (::sched_setscheduler(0, SCHED_BATCH, &none) != 0)
        return sysError("schedule the sandbox as batch work");
    return {};
}

// In network mode filtered, what init sets up for the supervisor's proxy besides its listener.
struct FilteredNetwork {
    std::string noTransparent; // why connections are not redirected to the proxy; empty: they are
    int resolver = -1;         // the sandbox's resolver socket, with the redirect
};

// Init's own containment: namespaces were made by clone; this is everything after. Where the
// redirect cannot be set up the sandbox is no weaker, only its programs that ignore the proxy
// variables cannot connect at all (`filtered` says why).
Status containInit(const SandboxConfig& config, const SandboxIdentity& id,
                   FilteredNetwork& filtered)
{
    if (auto e = scheduleAsBatchWork()) return e;
    if (auto e = setHostname()) return e;
    if (config.network != NetworkMode::Host)
        if (auto e = bringUpLoopback()) return e;
    EtcFiles etcFiles;
    if (config.network == NetworkMode::Filtered) {
        if (auto e = redirectOutboundTraffic()) {
            filtered.noTransparent = e->describe();
        } else {
            auto resolver = bindResolver();
            if (!resolver) return resolver.error();
            filtered.resolver = *resolver;
            etcFiles = resolverEtcFiles(kHostname);
        }
    }
    if (!config.userName.empty())
        for (auto& file : sandboxUserEtcFiles(config.systemRoot, config.userName, id.uid, id.gid,
                                              config.home.string()))
            etcFiles.push_back(std::move(file));
    if (auto e = buildRootFilesystem(config, id, etcFiles)) return e;
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

// A new exec helper for the supervisor ("H" on the sync socket): "h" with the helper's exec
// listener and the supervisor's end of its channel, or "E<text>".
void startHelperFor(const SandboxConfig& config, int syncFd)
{
    auto channel = makeSocketPair(SOCK_SEQPACKET | SOCK_CLOEXEC);
    if (!channel) {
        (void)sendMessage(
            syncFd, "E" + channel.error().within("create the exec helper's channel").describe());
        return;
    }
    auto started = sandbox::startExecHelper(config, -1, channel->other.get(), false);
    channel->other.reset();
    if (!started) {
        (void)sendMessage(syncFd, "E" + started.error().describe());
        return;
    }
    const UniqueFd listener(started->execListener);
    std::vector<int> fds = {channel->one.get()};
    if (listener) fds.push_back(listener.get());
    (void)sendMessage(syncFd, "h", fds);
}

// A TCP socket in the sandbox's network namespace for the supervisor ("4" or "6" on the socket
// channel): "s" with it, or "E<text>". Init makes it because a socket belongs to the namespace
// it was made in, and the supervisor cannot enter that one without CAP_SYS_ADMIN.
void makeSocketFor(int socketFd)
{
    const std::string asked = receiveChannelMessage(socketFd).text;
    if (asked != "4" && asked != "6") return; // the supervisor's end is gone, or nonsense
    const UniqueFd made(
        ::socket(asked == "4" ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!made) {
        (void)sendMessage(socketFd, "E" + sysError("socket").describe());
        return;
    }
    (void)sendMessage(socketFd, "s", {made.get()});
}

// Pid 1: reap everything, pass signals from the supervisor to the command's process group,
// start exec helpers and make sockets when the supervisor asks, and leave with the command's
// status (the kernel then kills the rest of the namespace).
[[noreturn]] void superviseCommand(const SandboxConfig& config, pid_t command, int signalFd,
                                   int syncFd, int socketFd)
{
    pollfd fds[3] = {{signalFd, POLLIN, 0}, {syncFd, POLLIN, 0}, {socketFd, POLLIN, 0}};
    for (;;) {
        if (::poll(fds, 3, -1) < 0) continue;
        if (fds[1].revents & POLLIN) {
            if (receiveChannelMessage(syncFd).text == "H") startHelperFor(config, syncFd);
        }
        if (fds[1].revents & (POLLHUP | POLLERR)) fds[1].fd = -1; // the supervisor's end is gone
        if (fds[2].revents & POLLIN) makeSocketFor(socketFd);
        if (fds[2].revents & (POLLHUP | POLLERR)) fds[2].fd = -1;
        if (!(fds[0].revents & POLLIN)) continue;
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
            if (pid == command) ::_exit(sandbox::exitCodeOf(status));
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
    FilteredNetwork filtered;
    if (auto e = containInit(config, id, filtered)) fail(*e);
    const std::string& noTransparent = filtered.noTransparent;
    // What its processes start with: connections are screened only where they are redirected.
    SandboxConfig contained = config;
    contained.superviseOutbound = config.superviseOutbound &&
                                  config.network == NetworkMode::Filtered && noTransparent.empty();

    int proxyFd = -1, transparentFd = -1;
    if (config.network == NetworkMode::Filtered) {
        auto listener = listenForProxy();
        if (!listener) fail(listener.error());
        proxyFd = *listener;
        if (noTransparent.empty()) {
            auto redirected = listenTransparent();
            if (!redirected) fail(redirected.error());
            transparentFd = *redirected;
        }
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
    if (config.cgroupsV1)
        if (auto e = enterCgroupsV1(config.cgroups, joined.fds)) fail(*e);
    joined.fds.clear();
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_BLOCK, &all, nullptr);
    int signalFd = ::signalfd(-1, &all, SFD_CLOEXEC);
    if (signalFd < 0) fail(sysError("init signal setup"));
    // Without a command, the session's command is an exec helper: programs start what runs.
    int channel[2] = {-1, -1};
    if (config.argv.empty() &&
        ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0)
        fail(sysError("create the exec helper's channel"));
    auto started = config.argv.empty()
                       ? sandbox::startExecHelper(contained, pty.slave, channel[1], true)
                       : sandbox::startCommand(contained, pty.slave);
    if (channel[1] >= 0) ::close(channel[1]);
    if (!started) fail(started.error());
    // With a network namespace of its own, the supervisor asks init for sockets in it (port
    // forwarding, openSandboxSocket).
    int sockets[2] = {-1, -1};
    if (config.network != NetworkMode::Host &&
        ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
        fail(sysError("create the socket channel"));
    std::vector<int> handOver;
    std::string flags = "K";
    if (pty.master >= 0) handOver.push_back(pty.master), flags += 'p';
    if (started->execListener >= 0) handOver.push_back(started->execListener), flags += 'n';
    if (proxyFd >= 0) handOver.push_back(proxyFd), flags += 'x';
    if (transparentFd >= 0) handOver.push_back(transparentFd), flags += 't';
    if (filtered.resolver >= 0) handOver.push_back(filtered.resolver), flags += 'd';
    // Made here, in the sandbox's network namespace, for the supervisor's lookups of its sockets.
    const UniqueFd diag(filtered.resolver >= 0
                            ? ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)
                            : -1);
    if (diag) handOver.push_back(diag.get()), flags += 'g';
    if (channel[0] >= 0) handOver.push_back(channel[0]), flags += 'h';
    if (sockets[0] >= 0) handOver.push_back(sockets[0]), flags += 'c';
    // After the flags, on a line of its own: why connections are not redirected, if they are not.
    if (!noTransparent.empty()) flags += "\n" + noTransparent;
    (void)sendMessage(syncFd, flags, handOver);
    for (int fd : handOver)
        ::close(fd);
    for (int fd : {pty.slave, config.stdioFds[0], config.stdioFds[1], config.stdioFds[2]})
        ::close(fd);
    superviseCommand(contained, started->pid, signalFd, syncFd, sockets[1]);
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
    SandboxProcess sandbox;
    sandbox.initPid = static_cast<pid_t>(pid);
    sandbox.pidFd = pidFd;
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
        return abandon(early.text.empty() ? std::move(e) : setupFailure(early));
    };
    if (auto e = sendMessage(sync[0], "G")) return abandon(*e);
    if (whileInitSetsUp)
        if (auto e = whileInitSetsUp(sandbox.initPid, sandbox.pidFd)) return failedEarly(*e);
    std::vector<int> cgroupTasks; // borrowed from `opened`, which closes them
    Result<std::vector<UniqueFd>> opened = std::vector<UniqueFd>{};
    if (config.cgroupsV1) {
        opened = openCgroupTasks(config.cgroups);
        if (!opened) return failedEarly(opened.error());
        for (const UniqueFd& fd : *opened)
            cgroupTasks.push_back(fd.get());
    } else if (auto e = joinCgroups(config.cgroups, sandbox.initPid)) {
        return failedEarly(*e);
    }
    if (auto e = sendMessage(sync[0], "J", cgroupTasks)) return failedEarly(*e);
    Message reply = receiveMessage(sync[0]);
    const std::string kinds = reply.text.substr(0, reply.text.find('\n'));
    if (kinds.empty() || kinds[0] != 'K' || reply.fds.size() != kinds.size() - 1)
        return abandon(setupFailure(reply));
    for (size_t i = 1; i < kinds.size(); ++i) {
        char kind = kinds[i];
        (kind == 'p'   ? sandbox.ptyMaster
         : kind == 'n' ? sandbox.execListener
         : kind == 'h' ? sandbox.helperChannel
         : kind == 'c' ? sandbox.socketChannel
         : kind == 't' ? sandbox.transparentListener
         : kind == 'd' ? sandbox.resolverSocket
         : kind == 'g' ? sandbox.diagSocket
                       : sandbox.proxyListener) = reply.fds[i - 1].release();
    }
    if (kinds.size() < reply.text.size())
        sandbox.noTransparent = reply.text.substr(kinds.size() + 1);
    // Kept: the supervisor asks init for exec helpers on it (requestExecHelper).
    sandbox.initChannel = sync[0];
    return sandbox;
}

Status requestExecHelper(const SandboxProcess& sandbox)
{
    if (sandbox.initChannel < 0)
        return Error{ErrorCode::Unsupported, 0, "this sandbox takes no exec requests"};
    return sendMessage(sandbox.initChannel, "H");
}

Result<ExecHelperStarted> receiveExecHelper(const SandboxProcess& sandbox)
{
    ChannelMessage said = receiveChannelMessage(sandbox.initChannel);
    if (said.text != "h" || said.fds.size() != 2) {
        return Error{ErrorCode::System, 0,
                     said.text.size() > 1 && said.text[0] == 'E'
                         ? "start an exec helper: " + said.text.substr(1)
                         : std::string("the sandbox's init did not start an exec helper")};
    }
    return ExecHelperStarted{said.fds[0].release(), said.fds[1].release()};
}

Result<UniqueFd> openSandboxSocket(int socketChannel, int family, int timeoutMs)
{
    if (socketChannel < 0)
        return Error{ErrorCode::Unsupported, 0,
                     "the sandbox shares this machine's network: it has no network of its own"};
    // An answer that came after an earlier request gave up waiting would be taken for this one's.
    pollfd p{socketChannel, POLLIN, 0};
    while (::poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
        (void)receiveChannelMessage(socketChannel);
    if (auto e = sendMessage(socketChannel, family == AF_INET6 ? "6" : "4")) return *e;
    int ready;
    while ((ready = ::poll(&p, 1, timeoutMs)) < 0 && errno == EINTR) {
    }
    if (ready == 0)
        return Error{ErrorCode::System, ETIMEDOUT,
                     "the sandbox's init did not make a socket in time"};
    ChannelMessage said = receiveChannelMessage(socketChannel);
    if (said.text != "s" || said.fds.size() != 1)
        return Error{ErrorCode::System, 0,
                     said.text.size() > 1 && said.text[0] == 'E'
                         ? "make a socket in the sandbox: " + said.text.substr(1)
                         : std::string("the sandbox's init made no socket (it has ended)")};
    return std::move(said.fds[0]);
}

int waitSandbox(const SandboxProcess& sandbox)
{
    int status = 0;
    while (::waitpid(sandbox.initPid, &status, 0) < 0)
        if (errno != EINTR) return 1;
    ::close(sandbox.pidFd);
    if (sandbox.initChannel >= 0) ::close(sandbox.initChannel);
    if (sandbox.socketChannel >= 0) ::close(sandbox.socketChannel);
    return sandbox::exitCodeOf(status);
}

} // namespace sb
