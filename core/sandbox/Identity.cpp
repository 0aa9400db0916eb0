#include "sandbox/Identity.h"

#include "sandbox/Sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <string>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sb {
namespace {

// The parked child's whole life: it shares its parent's memory, so it must write none of it.
int parkUntilKilled(void*)
{
    for (;;)
        ::pause(); // never returns: nothing here handles a signal, and SIGKILL ends it
}

Status writeProcFile(const std::string& path, const std::string& content)
{
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return sysError("open " + path);
    ssize_t n = ::write(fd, content.data(), content.size());
    int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(content.size()))
        return sysError("write " + path, n < 0 ? err : EIO);
    return {};
}

Status writeMaps(const std::string& procDir, const std::string& uidMap, const std::string& gidMap,
                 bool denySetgroups)
{
    if (denySetgroups)
        if (auto e = writeProcFile(procDir + "/setgroups", "deny")) return e;
    if (auto e = writeProcFile(procDir + "/uid_map", uidMap)) return e;
    return writeProcFile(procDir + "/gid_map", gidMap);
}

std::string mapLine(unsigned inside, unsigned outside)
{
    return std::to_string(inside) + " " + std::to_string(outside) + " 1\n";
}

} // namespace

SandboxIdentity sandboxIdentity()
{
    if (geteuid() == 0) return {true, kRootSandboxUid, kRootSandboxGid};
    return {false, geteuid(), getegid()};
}

Status writeIdMaps(pid_t child, uid_t uid, gid_t gid)
{
    return writeMaps("/proc/" + std::to_string(child), mapLine(uid, uid), mapLine(gid, gid), true);
}

Result<int> makeIdmapNamespace(uid_t fromUid, gid_t fromGid, uid_t toUid, gid_t toGid,
                               const std::string& procRoot)
{
    // A namespace is only reachable through a process in it: park a child there, map it from
    // outside, keep a handle on the namespace, and end the child. The child shares our memory
    // (CLONE_VM) on a small stack of its own: a copy of the address space would cost more to
    // make and to tear down than everything else here.
    alignas(16) char stack[16 * 1024]; // ours until the child is reaped, below
    pid_t child =
        ::clone(parkUntilKilled, stack + sizeof stack, CLONE_VM | CLONE_NEWUSER | SIGCHLD, nullptr);
    if (child < 0) return sysError("create a user namespace for the idmapped mount");
    std::string proc = procRoot + "/" + std::to_string(child);
    Status failed = writeMaps(proc, mapLine(fromUid, toUid), mapLine(fromGid, toGid), false);
    int nsFd = -1;
    if (!failed) {
        nsFd = ::open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC);
        if (nsFd < 0) failed = sysError("open " + proc + "/ns/user");
    }
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    if (failed) return *failed;
    return nsFd;
}

Status becomeSandboxUser(const SandboxIdentity& id)
{
    if (::setgroups(0, nullptr) != 0) return sysError("clear supplementary groups");
    if (::setresgid(id.gid, id.gid, id.gid) != 0)
        return sysError("set gid " + std::to_string(id.gid));
    if (::setresuid(id.uid, id.uid, id.uid) != 0)
        return sysError("set uid " + std::to_string(id.uid));
    // Changing uid made us non-dumpable, which puts /proc/self out of our own reach.
    if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) return sysError("set dumpable");
    if (::unshare(CLONE_NEWUSER) != 0)
        return sysError("enter a user namespace as uid " + std::to_string(id.uid));
    return writeMaps("/proc/self", mapLine(id.uid, id.uid), mapLine(id.gid, id.gid), true);
}

Status dropCapabilities()
{
    // Capabilities are numbered from 0 to the kernel's last without gaps: EINVAL means past it.
    for (int cap = 0; cap <= 63; ++cap) {
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) continue;
        if (errno == EINVAL && cap > 0) break;
        return sysError("drop capability " + std::to_string(cap) + " from the bounding set");
    }
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return sysError("clear ambient capabilities");
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capset, &header, data) != 0) return sysError("clear capabilities");
    return {};
}

} // namespace sb
