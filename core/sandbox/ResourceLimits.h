// Limits: rlimits always; cgroup v2 memory/pids/cpu when the user has a delegated subtree.
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"
#include "policy/Policy.h"

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <vector>

namespace sb {

// Called in the command's process just before exec; children inherit them. `cgroupBound`: a
// cgroup enforces memory and pids for the whole sandbox.
Status applyRlimits(const Limits& limits, bool cgroupBound = false);

// cgroups bound the sandbox as a whole (memory, process count, CPU), where rlimits only bound
// each process. cgroup v2 when the caller has a delegated subtree; as root on a host whose
// controllers are still on cgroup v1, the v1 memory, pids and cpu hierarchies.
struct CgroupSupport {
    enum class Kind { None, V2, V1 } kind = Kind::None;
    std::string base;                 // v2: the delegated folder sessions are created under
    std::vector<std::string> v1Bases; // v1: the caller's folder in each of memory, pids, cpu
    std::string reason;               // why there is none
    bool available() const { return kind != Kind::None; }
    std::string describe() const; // for doctor and notices
};

CgroupSupport probeCgroupSupport();

// This process's folder in the cgroup v1 hierarchy of `controller` ("freezer":
// /sys/fs/cgroup/freezer/…), from /proc/self/cgroup; empty when there is none.
std::filesystem::path ownV1Cgroup(const std::string& controller);
// Writes `value` to a cgroup control file; the error names both.
Status writeCgroupFile(const std::filesystem::path& file, const std::string& value);

// The folders createSessionCgroups makes for session `id`, known before they exist (v1: memory,
// pids, cpu).
std::vector<std::string> sessionCgroupPaths(const CgroupSupport& support, const std::string& id);
// Creates the session's cgroup folder(s) with the limits; the caller moves init into them.
Result<std::vector<std::string>> createSessionCgroups(const CgroupSupport& support,
                                                      const std::string& id, const Limits& limits);
// Moving a process into a cgroup takes a global lock whose write side first waits for an RCU
// grace period (~10 ms); a thread that moves itself through a v1 `tasks` file does not take it.
// So on v1, init moves itself: the supervisor opens each folder's `tasks` (openCgroupTasks) and
// hands them over, init writes "0" to them (enterCgroupsV1) while still single-threaded. On v2
// (where that file does not exist) the supervisor moves init with joinCgroups.
Result<std::vector<UniqueFd>> openCgroupTasks(const std::vector<std::string>& cgroups);
Status enterCgroupsV1(const std::vector<std::string>& cgroups,
                      const std::vector<UniqueFd>& tasksFds);
Status joinCgroups(const std::vector<std::string>& cgroups, pid_t pid);
void removeCgroups(const std::vector<std::string>& cgroups);
// Removes the (empty) cgroups of supervisors that were killed: "sandbench-ID-PID" folders whose
// PID is gone. It lists each base folder, control files and all (~0.1 ms of CPU as root on v1):
// a running session does it, off the next start's path.
void removeAbandonedCgroups(const CgroupSupport& support);

} // namespace sb
