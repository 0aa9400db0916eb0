#include "sandbox/Doctor.h"

#include "base/UniqueFd.h"
#include "policy/RunLater.h"
#include "sandbox/Identity.h"
#include "sandbox/Landlock.h"
#include "sandbox/NetworkRedirect.h"
#include "sandbox/ResourceLimits.h"
#include "sandbox/Sandbox.h"
#include "sandbox/Seccomp.h"

#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sb {
namespace {

std::string readSysctl(const char* path)
{
    std::ifstream in(path);
    std::string value;
    in >> value;
    return value;
}

// Runs `probe` in a child created with `flags` and reports its exit code (0 = worked).
template <class Probe> int inChild(unsigned long flags, Probe probe)
{
    auto ready = makePipe();
    if (!ready) return -1;
    pid_t pid = static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr));
    if (pid == 0) {
        ready->write.reset();
        char c;
        (void)!::read(ready->read.get(), &c, 1); // wait for the id maps
        ::_exit(probe());
    }
    if (pid < 0) return -errno;
    ready->read.reset();
    if ((flags & CLONE_NEWUSER) != 0) (void)writeIdMaps(pid, geteuid(), getegid());
    ready->write.reset(); // go
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

DoctorCheck checkUserNamespaces(const SandboxIdentity& id)
{
    DoctorCheck c{"namespaces", false, true, "", ""};
    unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
                          CLONE_NEWCGROUP | (id.privileged ? 0 : CLONE_NEWUSER);
    int result = inChild(flags, [] { return 0; });
    if (result == 0) {
        c.ok = true;
        c.detail = id.privileged ? "mount, pid, net, ipc, uts and cgroup namespaces (as root; the "
                                   "sandbox then runs as uid 65534 in its own user namespace)"
                                 : "user, mount, pid, net, ipc, uts and cgroup namespaces";
        return c;
    }
    c.detail = "cannot create namespaces: " + std::string(strerror(-result));
    if (readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1")
        c.fix = "AppArmor restricts unprivileged user namespaces (Ubuntu 24.04+): allow them with "
                "'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0', or install an "
                "AppArmor profile for sandbench-cli with the 'userns,' rule";
    else if (readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0")
        c.fix = "enable them: 'sudo sysctl -w kernel.unprivileged_userns_clone=1'";
    else if (readSysctl("/proc/sys/user/max_user_namespaces") == "0")
        c.fix = "enable them: 'sudo sysctl -w user.max_user_namespaces=10000'";
    else
        c.fix = "a kernel with CONFIG_USER_NS and CONFIG_PID_NS/NET_NS, outside a container that "
                "forbids them";
    return c;
}

int tryOverlay(bool privileged)
{
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 1;
    if (::mount("tmpfs", "/tmp", "tmpfs", 0, "mode=0755") != 0) return 2;
    for (const char* d : {"/tmp/l", "/tmp/u", "/tmp/w", "/tmp/m"})
        if (::mkdir(d, 0755) != 0) return 3;
    if (privileged) {
        // Root sessions show a root-owned project as the sandbox user's: idmapped lower layer.
        auto ns = makeIdmapNamespace(0, 0, kRootSandboxUid, kRootSandboxGid);
        if (!ns) return 4;
        int tree = ::open_tree(AT_FDCWD, "/tmp/l", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
        mount_attr attr{};
        attr.attr_set = MOUNT_ATTR_IDMAP;
        attr.userns_fd = static_cast<std::uint64_t>(*ns);
        if (tree < 0 || ::mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0 ||
            ::move_mount(tree, "", AT_FDCWD, "/tmp/l", MOVE_MOUNT_F_EMPTY_PATH) != 0)
            return 5;
    }
    return ::mount("overlay", "/tmp/m", "overlay", 0,
                   "lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w,userxattr") == 0
               ? 0
               : 6;
}

DoctorCheck checkOverlay(const SandboxIdentity& id)
{
    DoctorCheck c{"overlayfs", false, true, "", ""};
    unsigned long flags = CLONE_NEWNS | (id.privileged ? 0 : CLONE_NEWUSER);
    int result = inChild(flags, [&] { return tryOverlay(id.privileged); });
    c.ok = result == 0;
    if (c.ok) {
        c.detail = id.privileged ? "overlay over an idmapped lower layer (root sessions)"
                                 : "overlay mounts inside a user namespace";
    } else if (id.privileged && (result == 4 || result == 5)) {
        c.detail = "idmapped mounts are unavailable";
        c.fix = "Linux 5.19 or later; or run Sandbench as your normal user instead of root";
    } else {
        c.detail =
            "cannot mount overlayfs" + std::string(id.privileged ? "" : " inside a user namespace");
        c.fix = "Linux 5.11 or later with CONFIG_OVERLAY_FS (modprobe overlay)";
    }
    return c;
}

DoctorCheck checkSeccomp()
{
    DoctorCheck c{"seccomp", ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0, true, "", ""};
    c.detail = c.ok ? seccompSummary() : "the kernel has no seccomp filters";
    if (!c.ok) c.fix = "a kernel with CONFIG_SECCOMP_FILTER";
    return c;
}

DoctorCheck checkSeccompNotify()
{
    DoctorCheck c{"seccomp-notify", seccompUserNotifSupported(), false, "", ""};
    c.detail = c.ok ? "SECCOMP_RET_USER_NOTIF available (for command approval)"
                    : "SECCOMP_RET_USER_NOTIF is missing: command approval will be unavailable";
    if (!c.ok) c.fix = "Linux 5.5 or later";
    return c;
}

DoctorCheck checkLandlock()
{
    int abi = landlockAbi();
    DoctorCheck c{"landlock", abi > 0, false, "", ""};
    if (c.ok) {
        c.detail = "ABI " + std::to_string(abi) +
                   ": writes confined to the workspace, /tmp, the "
                   "sandbox home and declared paths";
    } else {
        c.detail = "not available: writes are confined by read-only mounts only";
        c.fix = "Linux 5.13+ with 'landlock' in the lsm= boot parameter (CONFIG_SECURITY_LANDLOCK)";
    }
    return c;
}

DoctorCheck checkCgroups()
{
    CgroupSupport support = probeCgroupSupport();
    DoctorCheck c{"cgroups", support.available(), false, "", ""};
    if (c.ok) {
        c.detail = "memory, pids and cpu limits for the whole sandbox, their hits reported: " +
                   support.describe();
    } else {
        c.detail = support.reason +
                   "; limits fall back to per-process rlimits (memory and process limit hits "
                   "are not reported)";
        c.fix = "a cgroup v2 (unified) system with delegation, e.g. run from a systemd user "
                "service or 'systemd-run --user --scope -p Delegate=yes sandbench-cli …'";
    }
    return c;
}

DoctorCheck checkTransparentNetwork(const SandboxIdentity& id)
{
    DoctorCheck c{"transparent network", false, false, "", ""};
    auto why = makePipe();
    if (!why) return c;
    const int writeEnd = why->write.get();
    int result = inChild(CLONE_NEWNET | (id.privileged ? 0 : CLONE_NEWUSER), [writeEnd] {
        auto e = bringUpLoopback();
        if (!e) e = redirectOutboundTraffic();
        if (!e) return 0;
        const std::string text = e->describe();
        (void)!::write(writeEnd, text.data(), text.size());
        return 1;
    });
    why->write.reset();
    char buf[1024];
    const ssize_t n = ::read(why->read.get(), buf, sizeof buf);
    c.ok = result == 0;
    if (c.ok) {
        c.detail = "every TCP connection of a filtered sandbox meets the policy, also from "
                   "programs that ignore HTTP_PROXY (nftables redirect to the proxy, connect() "
                   "held by the seccomp filter until decided); UDP and ICMP out are refused";
    } else {
        c.detail = (n > 0 ? std::string(buf, static_cast<std::size_t>(n))
                          : "the probe failed (" + std::to_string(result) + ")") +
                   "; a filtered sandbox then lets only programs that use the proxy connect";
        c.fix = "libnftables1 (apt install libnftables1) and a kernel with nf_tables NAT "
                "(CONFIG_NFT_NAT, CONFIG_NFT_REDIR)";
    }
    return c;
}

} // namespace

// Not a kernel feature: which list of files that run later this build holds back.
DoctorCheck describeRunLater()
{
    DoctorCheck c;
    c.name = "files that run later";
    c.ok = true;
    c.required = false;
    c.detail = "list version " + std::to_string(kRunLaterListVersion) + ", " +
               std::to_string(builtinRunLater().size()) +
               " entries (git hooks and configuration, .envrc, editor tasks, CI, package "
               "managers, shell start-up files, agents' settings): held at apply, read-only in "
               "exposed folders; docs/workspace.md lists them";
    return c;
}

std::vector<DoctorCheck> runDoctor()
{
    SandboxIdentity id = sandboxIdentity();
    return {checkUserNamespaces(id),     checkOverlay(id),  checkSeccomp(),
            checkSeccompNotify(),        checkLandlock(),   checkCgroups(),
            checkTransparentNetwork(id), describeRunLater()};
}

} // namespace sb
