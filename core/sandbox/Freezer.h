// Freezing a running sandbox, for a consistent copy of its layer (a snapshot of a running
// session): every process of it stops where it is, without noticing (unlike SIGSTOP, which a
// shell's job control sees), until the freeze ends. cgroup v2: the session cgroup's
// cgroup.freeze. cgroup v1 (root): a freezer cgroup beside the session's, into which the
// processes its memory cgroup lists are moved first, and out of which they go again after.
// A session without cgroups (an unprivileged user without a delegated subtree) cannot be frozen:
// the error says so.
#pragma once

#include "base/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace sb {

class SandboxFreeze {
  public:
    // `cgroups`: the session's cgroup folders (SandboxConfig::cgroups), `v1` as there. Returns
    // once every process is frozen, or an error (nothing stays frozen then).
    static Result<std::unique_ptr<SandboxFreeze>> freeze(const std::vector<std::string>& cgroups,
                                                         bool v1, int timeoutMs = 5000);
    ~SandboxFreeze(); // thaws
    SandboxFreeze(const SandboxFreeze&) = delete;
    SandboxFreeze& operator=(const SandboxFreeze&) = delete;

  private:
    SandboxFreeze() = default;
    void thaw();
    std::string m_dir;      // the cgroup whose freezer holds the sandbox
    std::string m_v1Parent; // v1: where the processes go back to
};

} // namespace sb
