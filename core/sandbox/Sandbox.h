// Starting a sandbox: the containment pipeline that turns a SandboxConfig into a running
// pid namespace whose pid 1 is our init and whose pid 2 is the user's command (or, for a
// session without one, the exec helper that runs what programs ask for).
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"
#include "policy/Policy.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace sb {

struct BindMount {
    std::filesystem::path path; // same path outside and inside
    AccessMode mode = AccessMode::ReadOnly;
};

struct SandboxConfig {
    // argv[0] is looked up on the sandbox's PATH; empty: no command, the session runs an exec
    // helper instead and lives until it is stopped (`sandbench-cli start`).
    std::vector<std::string> argv;
    std::vector<std::string> env;  // the command's whole environment, "NAME=value"
    std::filesystem::path project; // the real folder, the overlay's lower layer
    // Where the sandbox sees the project (the overlay's mount point and the command's working
    // folder): the same path as `project` unless the session asks for another (E2B sandboxes
    // see theirs at /home/user).
    std::filesystem::path projectInside;
    std::filesystem::path sessionDir; // holds upper/ and work/
    std::filesystem::path home;       // an empty tmpfs at this path
    // Non-empty: the name the sandbox's uid and gid go by inside, with `home` (SandboxUser.h;
    // E2B sandboxes: `user`); empty: the system root's names.
    std::string userName;
    // Where /usr, /etc, /lib*, /opt, /bin and /sbin come from, read-only: this machine's, or a
    // root file system (an image).
    std::filesystem::path systemRoot = "/";
    std::vector<BindMount> binds; // exposed paths from the policy
    // Bound over themselves after the binds, in order: files that run later inside read-write
    // binds (ExposurePlan::protections).
    std::vector<BindMount> protections;
    std::vector<std::filesystem::path>
        masks; // secrets hidden inside exposed folders or the project
    // Files bound read-only over a path inside, after everything else: the session's trust
    // bundle over the system's, secrets' placeholder files (supervision/SessionSecrets.h).
    struct FileBind {
        std::filesystem::path source; // on the host
        std::filesystem::path target; // inside
    };
    std::vector<FileBind> files;
    NetworkMode network = NetworkMode::None;
    Limits limits;
    std::vector<std::string> cgroups; // the session's cgroup folders for init to join
    bool cgroupsV1 = false;           // they are cgroup v1 folders (see openCgroupTasks)
    // With a terminal, init opens a pty in the sandbox's own devpts (so ttyname() works
    // inside) and hands the master to the supervisor; the command gets the slave as its
    // stdio and controlling terminal. Without, the command uses stdioFds as they are.
    struct Terminal {
        bool enabled = false;
        unsigned short rows = 24, columns = 80;
        bool translateNewlines = true; // off when the output goes to a file or pipe
    } terminal;
    int stdioFds[3] = {0, 1, 2};
    // Every exec in the sandbox waits for the supervisor (seccomp user notification), the
    // command's own first exec included.
    bool superviseExec = false;
    // With superviseExec in network mode filtered, every connect and send to an address
    // outside the sandbox waits for the supervisor too (SeccompRules.h): it refuses what the
    // policy denies at once, asks while connect() waits, and names the process. Init leaves it
    // off where the sandbox's connections are not redirected to the proxy (noTransparent).
    bool superviseOutbound = false;
};

// In network mode "filtered", init listens here inside the sandbox's network namespace (its
// own loopback, so the port is free) and hands the socket to the supervisor's proxy.
constexpr std::uint16_t kProxyPort = 3128;

// The uid the sandbox runs as when Sandbench itself runs as root: never real root.
constexpr uid_t kRootSandboxUid = 65534;
constexpr gid_t kRootSandboxGid = 65534;

struct SandboxProcess {
    pid_t initPid = -1;
    int pidFd = -1;         // pidfd of init: poll()able, signal-safe
    int ptyMaster = -1;     // the command's terminal, when SandboxConfig::terminal asked for one
    int execListener = -1;  // seccomp notifications of every exec, with superviseExec
    int proxyListener = -1; // 127.0.0.1:kProxyPort inside the sandbox, in network mode filtered
    // [::]:kTransparentPort inside the sandbox, where its redirected connections arrive
    // (NetworkRedirect.h), in network mode filtered; -1 and `noTransparent` says why when
    // connections could not be redirected there.
    int transparentListener = -1;
    std::string noTransparent;
    // The sandbox's resolver socket (127.0.0.53:53 inside, UDP), with the transparent listener.
    int resolverSocket = -1;
    // A NETLINK_SOCK_DIAG socket of the sandbox's network namespace, with the transparent
    // listener: how the supervisor finds one socket of the sandbox (SocketOwner.h).
    int diagSocket = -1;
    // Without a command (SandboxConfig::argv empty) the session's command is an exec helper
    // (ExecHelper.h): its channel, and execListener is its filter's.
    int helperChannel = -1;
    int initChannel = -1; // to init, for requestExecHelper; closed by waitSandbox
    // To init, for openSandboxSocket, when the sandbox has a network namespace of its own;
    // closed by waitSandbox. One user at a time (one request, one answer).
    int socketChannel = -1;
};

// Asks init for an exec helper (a run session's first exec or file request). Init answers on
// initChannel: watch it for POLLIN, then receiveExecHelper.
Status requestExecHelper(const SandboxProcess& sandbox);
struct ExecHelperStarted {
    int channel = -1;      // to the helper (ExecHelper.h)
    int execListener = -1; // its filter's exec notifications: the same filter, its own listener
};
Result<ExecHelperStarted> receiveExecHelper(const SandboxProcess& sandbox);

// A new TCP socket (AF_INET or AF_INET6, non-blocking, not connected) in the sandbox's network
// namespace, made by init on `socketChannel` (SandboxProcess::socketChannel): connected to
// 127.0.0.1:PORT it reaches the sandbox's own loopback. Waits up to `timeoutMs` for init.
Result<UniqueFd> openSandboxSocket(int socketChannel, int family, int timeoutMs);

// Starts init in new namespaces and returns once the sandbox is built and the command was
// started (or with the error that stopped the pipeline, e.g. "mount overlay on /p: …").
// Call it while the process has a single thread: the child runs C++ (allocations) between
// clone and exec, which another thread's held lock would deadlock. `whileInitSetsUp` runs
// right after the clone, in parallel with init's mounts: the first moment threads may start.
// It creates config.cgroups when they are to exist (init joins them after it, before the
// command starts); an error it returns ends the sandbox.
Result<SandboxProcess>
startSandbox(const SandboxConfig& config,
             const std::function<Status(pid_t initPid, int pidFd)>& whileInitSetsUp = {});

// Exit status of the sandbox's command as a shell reports it: code, or 128+signal.
int waitSandbox(const SandboxProcess& sandbox);

} // namespace sb
