#include "sandbox/ResourceLimits.h"

#include "base/UniqueFd.h"

#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

constexpr rlim_t kMiB = 1024 * 1024;

// Soft limit `value`, hard limit `value + grace`.
Status setLimit(int resource, const char* name, rlim_t value, rlim_t grace = 0)
{
    rlimit current{};
    ::getrlimit(resource, &current);
    // Never raise above the hard limit the caller already had.
    auto capped = [&current](rlim_t v) {
        return current.rlim_max == RLIM_INFINITY ? v : std::min(v, current.rlim_max);
    };
    rlimit wanted{capped(value), capped(value + grace)};
    if (::setrlimit(resource, &wanted) != 0) return sysError(std::string("set ") + name);
    return {};
}

std::string readFirstLine(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

} // namespace

Status writeCgroupFile(const fs::path& file, const std::string& value)
{
    const UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) return sysError("open " + file.string());
    const ssize_t n = ::write(fd.get(), value.data(), value.size());
    const int err = errno;
    if (n != static_cast<ssize_t>(value.size()))
        return sysError("write '" + value + "' to " + file.string(), n < 0 ? err : EIO);
    return {};
}

Status applyRlimits(const Limits& limits, bool cgroupBound)
{
    if (auto e = setLimit(RLIMIT_CORE, "RLIMIT_CORE", 0)) return e;
    if (auto e = setLimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", limits.openFiles)) return e;
    if (limits.fileSizeMb > 0)
        if (auto e = setLimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", limits.fileSizeMb * kMiB)) return e;
    // SIGXCPU at the limit (the supervisor reports it as a limit hit), SIGKILL a second later
    // for a process that ignores it. At an equal hard limit the kernel sends SIGKILL only.
    if (limits.cpuSeconds > 0)
        if (auto e = setLimit(RLIMIT_CPU, "RLIMIT_CPU", limits.cpuSeconds, 1)) return e;
    // Counted per user namespace: this bounds the sandbox's processes, not the user's. Under a
    // cgroup it is only a backstop, above pids.max: the cgroup counts the whole sandbox, and its
    // refusals are what the supervisor sees and reports (pids.events).
    if (limits.pids > 0) {
        rlim_t nproc = cgroupBound ? 2 * static_cast<rlim_t>(limits.pids) : limits.pids;
        if (auto e = setLimit(RLIMIT_NPROC, "RLIMIT_NPROC", nproc)) return e;
    }
    // Per process, and only without a cgroup: under one, memory.max bounds the whole sandbox and
    // its OOM kill is what the supervisor sees and reports (memory.events); RLIMIT_DATA would
    // fail one large allocation first, with no limit event.
    if (limits.memoryMb > 0 && !cgroupBound)
        if (auto e = setLimit(RLIMIT_DATA, "RLIMIT_DATA", limits.memoryMb * kMiB)) return e;
    return {};
}

namespace {

// "N:controllers:/path" lines of /proc/self/cgroup, by controller ("" for the v2 line).
std::map<std::string, std::string> ownCgroups()
{
    std::map<std::string, std::string> out;
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    while (std::getline(self, line)) {
        auto first = line.find(':');
        auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        std::string controllers = line.substr(first + 1, second - first - 1);
        std::string path = line.substr(second + 1);
        std::stringstream list(controllers);
        std::string one;
        if (controllers.empty()) out[""] = path;
        while (std::getline(list, one, ','))
            out[one] = path;
    }
    return out;
}

std::string probeV2(const std::map<std::string, std::string>& own, fs::path& base)
{
    auto v2 = own.find("");
    if (v2 == own.end()) return "no cgroup v2 hierarchy for this process";
    fs::path mount = "/sys/fs/cgroup";
    if (!fs::exists(mount / "cgroup.controllers"))
        mount = "/sys/fs/cgroup/unified"; // hybrid layout: v2 without controllers
    fs::path mine = (mount / fs::path(v2->second).relative_path()).lexically_normal();
    // A process may not sit in a cgroup that distributes controllers, so sessions go in a
    // sibling folder: the delegated subtree is the parent of the caller's cgroup.
    base = mine.has_filename() ? mine.parent_path() : mine.parent_path().parent_path();
    std::string controllers = readFirstLine(base / "cgroup.controllers");
    for (const char* needed : {"memory", "pids", "cpu"}) {
        if ((" " + controllers + " ").find(std::string(" ") + needed + " ") == std::string::npos)
            return "cgroup v2 controller '" + std::string(needed) + "' is not available in " +
                   base.string();
    }
    if (::access(base.c_str(), W_OK) != 0 ||
        ::access((base / "cgroup.subtree_control").c_str(), W_OK) != 0)
        return base.string() + " is not delegated to this user";
    return {};
}

// One base folder's, by the PID in the name: a live supervisor's folder is empty for a moment
// before its init joins, so emptiness alone does not tell (rmdir(2) refuses a folder with
// processes in any case).
void removeAbandonedCgroupsIn(const fs::path& base)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base, ec)) {
        std::string name = entry.path().filename().string();
        auto dash = name.rfind('-');
        if (name.rfind("sandbench-", 0) != 0 || dash == std::string::npos) continue;
        pid_t owner = static_cast<pid_t>(std::strtol(name.c_str() + dash + 1, nullptr, 10));
        if (owner > 0 && ::kill(owner, 0) != 0 && errno == ESRCH) ::rmdir(entry.path().c_str());
    }
}

} // namespace

std::string CgroupSupport::describe() const
{
    switch (kind) {
    case Kind::V2:
        return "cgroup v2 under " + base;
    case Kind::V1:
        return "cgroup v1 memory, pids and cpu hierarchies (as root)";
    case Kind::None:
        break;
    }
    return "none: " + reason;
}

namespace {

// This process's folder in the v1 hierarchy of `controller`; empty when that hierarchy is not
// mounted at /sys/fs/cgroup/CONTROLLER or holds it nowhere.
fs::path v1Folder(const std::map<std::string, std::string>& own, const std::string& controller)
{
    const fs::path root = fs::path("/sys/fs/cgroup") / controller;
    auto it = own.find(controller);
    if (it == own.end() || !fs::exists(root / "cgroup.procs")) return {};
    return (root / fs::path(it->second).relative_path()).lexically_normal();
}

} // namespace

fs::path ownV1Cgroup(const std::string& controller)
{
    return v1Folder(ownCgroups(), controller);
}

CgroupSupport probeCgroupSupport()
{
    CgroupSupport out;
    auto own = ownCgroups();
    fs::path base;
    std::string v2Problem = probeV2(own, base);
    if (v2Problem.empty()) {
        out.kind = CgroupSupport::Kind::V2;
        out.base = base.string();
        return out;
    }
    if (::geteuid() == 0) {
        std::vector<std::string> bases;
        for (const char* controller : {"memory", "pids", "cpu"}) {
            fs::path folder = v1Folder(own, controller);
            if (folder.empty()) break;
            bases.push_back(folder);
        }
        if (bases.size() == 3) {
            out.kind = CgroupSupport::Kind::V1;
            out.v1Bases = std::move(bases);
            return out;
        }
    }
    out.reason = v2Problem;
    return out;
}

std::vector<std::string> sessionCgroupPaths(const CgroupSupport& support, const std::string& id)
{
    // Unique on the machine (two users, or two test runs, may use the same session id).
    std::string name = "sandbench-" + id + "-" + std::to_string(::getpid());
    if (support.kind == CgroupSupport::Kind::V2) return {(fs::path(support.base) / name).string()};
    std::vector<std::string> paths;
    if (support.kind == CgroupSupport::Kind::V1)
        for (const std::string& base : support.v1Bases)
            paths.push_back((fs::path(base) / name).string());
    return paths;
}

Result<std::vector<std::string>> createSessionCgroups(const CgroupSupport& support,
                                                      const std::string& id, const Limits& limits)
{
    const std::vector<std::string> dirs = sessionCgroupPaths(support, id);
    std::vector<std::pair<fs::path, std::vector<std::pair<std::string, std::string>>>> plan;
    if (support.kind == CgroupSupport::Kind::V2) {
        if (auto e = writeCgroupFile(fs::path(support.base) / "cgroup.subtree_control",
                                     "+memory +pids +cpu"))
            return *e;
        std::vector<std::pair<std::string, std::string>> v;
        if (limits.memoryMb > 0)
            v.emplace_back("memory.max", std::to_string(limits.memoryMb * kMiB));
        if (limits.pids > 0) v.emplace_back("pids.max", std::to_string(limits.pids));
        if (limits.cpuPercent > 0)
            v.emplace_back("cpu.max", std::to_string(limits.cpuPercent * 1000) + " 100000");
        plan.emplace_back(dirs.at(0), std::move(v));
    } else if (support.kind == CgroupSupport::Kind::V1) {
        std::vector<std::pair<std::string, std::string>> memory, pids, cpu;
        if (limits.memoryMb > 0)
            memory.emplace_back("memory.limit_in_bytes", std::to_string(limits.memoryMb * kMiB));
        if (limits.pids > 0) pids.emplace_back("pids.max", std::to_string(limits.pids));
        if (limits.cpuPercent > 0) {
            cpu.emplace_back("cpu.cfs_period_us", "100000");
            cpu.emplace_back("cpu.cfs_quota_us", std::to_string(limits.cpuPercent * 1000));
        }
        plan.emplace_back(dirs.at(0), std::move(memory));
        plan.emplace_back(dirs.at(1), std::move(pids));
        plan.emplace_back(dirs.at(2), std::move(cpu));
    }
    // Where the machine has swap and its accounting, the sandbox may not swap either (v1's memsw
    // limit counts memory plus swap, so equal to the memory limit means none). The file exists
    // only then, and only in the memory cgroup: the first folder of the plan.
    const std::pair<const char*, std::string> swapLimit =
        support.kind == CgroupSupport::Kind::V2
            ? std::pair<const char*, std::string>{"memory.swap.max", "0"}
            : std::pair<const char*, std::string>{"memory.memsw.limit_in_bytes",
                                                  std::to_string(limits.memoryMb * kMiB)};
    std::vector<std::string> created;
    for (const auto& [dir, values] : plan) {
        if (::mkdir(dir.c_str(), 0755) != 0) {
            Error e = sysError("create cgroup " + dir.string());
            removeCgroups(created);
            return e;
        }
        created.push_back(dir.string());
        std::vector<std::pair<std::string, std::string>> all = values;
        if (created.size() == 1 && limits.memoryMb > 0 && fs::exists(dir / swapLimit.first))
            all.emplace_back(swapLimit);
        for (const auto& [file, value] : all) {
            if (auto e = writeCgroupFile(dir / file, value)) {
                removeCgroups(created);
                return *e;
            }
        }
    }
    return created;
}

Result<std::vector<UniqueFd>> openCgroupTasks(const std::vector<std::string>& cgroups)
{
    std::vector<UniqueFd> fds;
    for (const std::string& cgroup : cgroups) {
        fs::path tasks = fs::path(cgroup) / "tasks";
        fds.emplace_back(::open(tasks.c_str(), O_WRONLY | O_CLOEXEC));
        if (!fds.back()) return sysError("open " + tasks.string());
    }
    return fds;
}

Status enterCgroupsV1(const std::vector<std::string>& cgroups,
                      const std::vector<UniqueFd>& tasksFds)
{
    if (tasksFds.size() != cgroups.size())
        return Error{ErrorCode::Internal, 0, "cgroup tasks files missing for init to join"};
    for (size_t i = 0; i < tasksFds.size(); ++i)
        if (::write(tasksFds[i].get(), "0", 1) != 1)
            return sysError("join cgroup " + cgroups.at(i));
    return {};
}

Status joinCgroups(const std::vector<std::string>& cgroups, pid_t pid)
{
    for (const std::string& cgroup : cgroups)
        if (auto e = writeCgroupFile(fs::path(cgroup) / "cgroup.procs", std::to_string(pid)))
            return e;
    return {};
}

void removeAbandonedCgroups(const CgroupSupport& support)
{
    if (support.kind == CgroupSupport::Kind::V2) removeAbandonedCgroupsIn(support.base);
    for (const std::string& base : support.v1Bases)
        removeAbandonedCgroupsIn(base);
}

void removeCgroups(const std::vector<std::string>& cgroups)
{
    for (const std::string& cgroup : cgroups)
        ::rmdir(cgroup.c_str());
}

} // namespace sb
