// Reading a session's resource use for E2B's metrics (SandboxMetrics.h): its cgroup's files and
// its layer, found by the session's id.
#include "e2b/SandboxMetrics.h"

#include "base/Session.h"
#include "sandbox/ResourceLimits.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <vector>

namespace sb::e2b {

namespace fs = std::filesystem;

namespace {

std::optional<std::uint64_t> number(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.remove_suffix(1);
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

std::optional<std::string> readSmall(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(std::size_t{1} << 16, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

std::optional<std::uint64_t> readNumber(const fs::path& file)
{
    auto text = readSmall(file);
    return text ? number(*text) : std::nullopt; // "max" (no limit) too
}

// The session's folder under `base`: the supervisor names it sandbench-ID-PID
// (sessionCgroupPaths), with its own pid, which the server does not know.
fs::path sessionFolder(const std::string& base, const std::string& id)
{
    const std::string prefix = "sandbench-" + id + "-";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(prefix) && number(std::string_view(name).substr(prefix.size())))
            return entry.path();
    }
    return {};
}

std::uint64_t machineMemory()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    while (in >> key >> kib)
        if (key == "MemTotal:") return kib * 1024;
    return 0;
}

// v1: the times of the processes its memory cgroup lists.
std::uint64_t processesCpuUs(const fs::path& folder)
{
    auto procs = readSmall(folder / "cgroup.procs");
    if (!procs) return 0;
    std::istringstream in(*procs);
    std::uint64_t ticks = 0;
    for (std::string pid; in >> pid;)
        if (auto stat = readSmall(fs::path("/proc") / pid / "stat"))
            ticks += procStatTicks(*stat).value_or(0);
    const long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? ticks * 1000000 / static_cast<std::uint64_t>(hz) : 0;
}

// The blocks the layer's files take, and the room left beside them.
void readDisk(const std::string& sessionId, SandboxUsage& usage)
{
    const fs::path upper = sessionsDirectory() / sessionId / "upper";
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             upper, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) == 0)
            usage.diskUsed += static_cast<std::uint64_t>(st.st_blocks) * 512;
    }
    struct statvfs vfs {};
    usage.diskTotal = usage.diskUsed;
    if (::statvfs(upper.c_str(), &vfs) == 0)
        usage.diskTotal += static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
}

const CgroupSupport& cgroupSupport()
{
    static const CgroupSupport support = probeCgroupSupport();
    return support;
}

} // namespace

std::map<std::string, std::uint64_t> parseKeyValues(std::string_view text)
{
    std::map<std::string, std::uint64_t> out;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        const std::size_t space = line.find(' ');
        if (space != std::string_view::npos && space > 0)
            if (auto value = number(line.substr(space + 1)))
                out[std::string(line.substr(0, space))] = *value;
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return out;
}

std::optional<std::uint64_t> procStatTicks(std::string_view stat)
{
    // "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses; the fields after the
    // last ')' are fixed, utime the 12th of them.
    const std::size_t close = stat.rfind(')');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view rest = stat.substr(close + 1);
    std::vector<std::string_view> fields;
    while (!rest.empty() && fields.size() < 15) {
        const std::size_t start = rest.find_first_not_of(" \n");
        if (start == std::string_view::npos) break;
        rest.remove_prefix(start);
        const std::size_t end = rest.find_first_of(" \n");
        fields.push_back(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    }
    if (fields.size() < 15) return std::nullopt;
    std::uint64_t total = 0;
    for (std::size_t i = 11; i <= 14; ++i) {
        auto ticks = number(fields[i]);
        if (!ticks) return std::nullopt;
        total += *ticks;
    }
    return total;
}

Result<SandboxUsage> readSessionUsage(const std::string& sessionId)
{
    const CgroupSupport& support = cgroupSupport();
    if (!support.available())
        return unsupported("the sandbox has no cgroup of its own to measure (" + support.reason +
                           "; sandbench-cli doctor, \"cgroups\")");
    SandboxUsage usage;
    const bool v2 = support.kind == CgroupSupport::Kind::V2;
    const fs::path memory = sessionFolder(v2 ? support.base : support.v1Bases.at(0), sessionId);
    if (memory.empty())
        return Error{ErrorCode::NotFound, 0, "no cgroup of session " + sessionId + " was found"};
    const auto stat = parseKeyValues(readSmall(memory / "memory.stat").value_or(""));
    auto statValue = [&stat](const char* key) {
        auto it = stat.find(key);
        return it == stat.end() ? std::uint64_t{0} : it->second;
    };
    const std::uint64_t charged =
        readNumber(memory / (v2 ? "memory.current" : "memory.usage_in_bytes")).value_or(0);
    const std::uint64_t inactive = statValue(v2 ? "inactive_file" : "total_inactive_file");
    usage.memUsed = charged > inactive ? charged - inactive : 0;
    usage.memCache = statValue(v2 ? "file" : "total_cache");
    const std::uint64_t machine = machineMemory();
    // An unlimited cgroup says "max" (v2) or a figure near 2^63 (v1): the machine's memory then.
    const auto limit = readNumber(memory / (v2 ? "memory.max" : "memory.limit_in_bytes"));
    usage.memTotal = limit && (*limit < machine || machine == 0) ? *limit : machine;
    if (v2) {
        const auto cpu = parseKeyValues(readSmall(memory / "cpu.stat").value_or(""));
        auto it = cpu.find("usage_usec");
        usage.cpuUsageUs = it == cpu.end() ? 0 : it->second;
    } else {
        usage.cpuUsageUs = processesCpuUs(memory);
    }
    readDisk(sessionId, usage);
    return usage;
}

} // namespace sb::e2b
