#include "ResourceLimits.h"

#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

constexpr rlim_t kMiB = 1024 * 1024;

Status setLimit(int resource, const char* name, rlim_t value)
{
    rlimit current{};
    ::getrlimit(resource, &current);
    // Never raise above the hard limit the caller already had.
    rlim_t hard = current.rlim_max == RLIM_INFINITY ? value : std::min(value, current.rlim_max);
    rlimit wanted{hard, hard};
    if (::setrlimit(resource, &wanted) != 0)
        return sysError(std::string("set ") + name);
    return {};
}

std::string readFirstLine(const fs::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

Status writeValue(const fs::path& file, const std::string& value)
{
    int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return sysError("open " + file.string());
    ssize_t n = ::write(fd, value.data(), value.size());
    int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(value.size()))
        return sysError("write '" + value + "' to " + file.string(), n < 0 ? err : EIO);
    return {};
}

} // namespace

Status applyRlimits(const Limits& limits)
{
    if (auto e = setLimit(RLIMIT_CORE, "RLIMIT_CORE", 0))
        return e;
    if (auto e = setLimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", limits.openFiles))
        return e;
    if (limits.fileSizeMb > 0)
        if (auto e = setLimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", limits.fileSizeMb * kMiB))
            return e;
    if (limits.cpuSeconds > 0)
        if (auto e = setLimit(RLIMIT_CPU, "RLIMIT_CPU", limits.cpuSeconds))
            return e;
    // Counted per user namespace: this bounds the sandbox's processes, not the user's.
    if (limits.pids > 0)
        if (auto e = setLimit(RLIMIT_NPROC, "RLIMIT_NPROC", limits.pids))
            return e;
    // Per process; the cgroup bounds the whole sandbox where one is delegated.
    if (limits.memoryMb > 0)
        if (auto e = setLimit(RLIMIT_DATA, "RLIMIT_DATA", limits.memoryMb * kMiB))
            return e;
    return {};
}

CgroupSupport probeCgroupSupport()
{
    CgroupSupport out;
    std::ifstream self("/proc/self/cgroup");
    std::string line, relative;
    while (std::getline(self, line))
        if (line.rfind("0::", 0) == 0)
            relative = line.substr(3);
    if (relative.empty()) {
        out.reason = "no cgroup v2 hierarchy for this process";
        return out;
    }
    fs::path mount = "/sys/fs/cgroup";
    if (!fs::exists(mount / "cgroup.controllers"))
        mount = "/sys/fs/cgroup/unified"; // hybrid layout: v2 without controllers
    fs::path own = mount / fs::path(relative).relative_path();
    // A process may not sit in a cgroup that distributes controllers, so sessions go in a
    // sibling folder: the delegated subtree is the parent of the caller's cgroup.
    fs::path base = own.parent_path();
    std::string controllers = readFirstLine(base / "cgroup.controllers");
    for (const char* needed : {"memory", "pids", "cpu"}) {
        if ((" " + controllers + " ").find(std::string(" ") + needed + " ") == std::string::npos) {
            out.reason = "cgroup v2 controller '" + std::string(needed) + "' is not available in " +
                         base.string();
            return out;
        }
    }
    if (::access(base.c_str(), W_OK) != 0 ||
        ::access((base / "cgroup.subtree_control").c_str(), W_OK) != 0) {
        out.reason = base.string() + " is not delegated to this user";
        return out;
    }
    out.available = true;
    out.base = base.string();
    return out;
}

Result<std::string> createSessionCgroup(const CgroupSupport& support, const std::string& id,
                                        const Limits& limits)
{
    fs::path base = support.base;
    if (auto e = writeValue(base / "cgroup.subtree_control", "+memory +pids +cpu"))
        return *e;
    fs::path dir = base / ("sandbench-" + id);
    if (::mkdir(dir.c_str(), 0755) != 0)
        return sysError("create cgroup " + dir.string());
    std::vector<std::pair<std::string, std::string>> values;
    if (limits.memoryMb > 0) {
        values.emplace_back("memory.max", std::to_string(limits.memoryMb * kMiB));
    }
    if (limits.pids > 0)
        values.emplace_back("pids.max", std::to_string(limits.pids));
    if (limits.cpuPercent > 0)
        values.emplace_back("cpu.max", std::to_string(limits.cpuPercent * 1000) + " 100000");
    // Without swap accounting the file is absent; where it exists, the hog may not swap either.
    if (limits.memoryMb > 0 && fs::exists(dir / "memory.swap.max"))
        values.emplace_back("memory.swap.max", "0");
    for (const auto& [file, value] : values) {
        if (auto e = writeValue(dir / file, value)) {
            removeCgroup(dir.string());
            return *e;
        }
    }
    return dir.string();
}

Status joinCgroup(const std::string& cgroup, pid_t pid)
{
    return writeValue(fs::path(cgroup) / "cgroup.procs", std::to_string(pid));
}

void removeCgroup(const std::string& cgroup)
{
    if (!cgroup.empty())
        ::rmdir(cgroup.c_str());
}

} // namespace sb
