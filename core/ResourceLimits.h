// Limits: rlimits always; cgroup v2 memory/pids/cpu when the user has a delegated subtree.
#pragma once

#include "Error.h"
#include "Policy.h"

#include <string>
#include <sys/types.h>

namespace sb {

// Called in the command's process just before exec; children inherit them.
Status applyRlimits(const Limits& limits);

struct CgroupSupport {
    bool available = false;
    std::string base;   // the delegated folder sessions are created under
    std::string reason; // why not, when unavailable
};

// cgroup v2 with memory, pids and cpu controllers delegated to the caller (writable
// cgroup.subtree_control in the caller's own cgroup or a parent of it that it owns).
CgroupSupport probeCgroupSupport();

// Creates BASE/sandbench-ID with the limits; returns its path. The caller moves init into it.
Result<std::string> createSessionCgroup(const CgroupSupport& support, const std::string& id,
                                        const Limits& limits);
Status joinCgroup(const std::string& cgroup, pid_t pid);
void removeCgroup(const std::string& cgroup);

} // namespace sb
