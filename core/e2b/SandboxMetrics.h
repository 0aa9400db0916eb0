// A sandbox's resource use, as E2B's metrics report it (getMetrics): read from the session's own
// cgroup (memory, and CPU time) and its layer (disk), by the server, which runs as the
// supervisor's user. Figures that this machine cannot give for a session are not made up: a
// session without a cgroup of its own has no metrics (Unsupported, saying why).
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sb::e2b {

struct SandboxUsage {
    // The CPU time its processes used so far, microseconds (cgroup v2 cpu.stat usage_usec; on
    // cgroup v1, whose session has no cpuacct folder, the times of the processes in its memory
    // cgroup and of the children they reaped).
    std::uint64_t cpuUsageUs = 0;
    // Bytes: in use (the cgroup's charge without its inactive file cache), the most it may use
    // (its memory limit, else the machine's memory), and its page cache.
    std::uint64_t memUsed = 0, memTotal = 0, memCache = 0;
    // Bytes: what the sandbox wrote to its workspace (the session's layer), and that plus the
    // room left on the file system holding the layer.
    std::uint64_t diskUsed = 0, diskTotal = 0;
};

// The session's usage now; Unsupported when the session has no cgroup of its own (an
// unprivileged user without a delegated cgroup v2 subtree) or it is not found.
Result<SandboxUsage> readSessionUsage(const std::string& sessionId);

// "key value" lines (cpu.stat, memory.stat); a value that is no number is left out.
std::map<std::string, std::uint64_t> parseKeyValues(std::string_view text);
// utime + stime + cutime + cstime (clock ticks) of a /proc/PID/stat line; nullopt when it is
// not one.
std::optional<std::uint64_t> procStatTicks(std::string_view stat);

} // namespace sb::e2b
