#include "sandbox/Freezer.h"

#include "base/AtomicFile.h"
#include "sandbox/ResourceLimits.h"

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace sb {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kMaxSweeps = 50; // moving a sandbox that forks faster than we move gives up

std::set<long> pidsIn(const fs::path& cgroup)
{
    std::set<long> pids;
    std::istringstream in(readWholeFile(cgroup / "cgroup.procs"));
    for (long pid; in >> pid;)
        pids.insert(pid);
    return pids;
}

// Moves every process listed in `from` into `to`, again until none is left behind (a process
// forked meanwhile by one not yet moved). False when the sandbox forks faster than that.
bool moveAll(const fs::path& from, const fs::path& to)
{
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
        const std::set<long> members = pidsIn(from);
        const std::set<long> moved = pidsIn(to);
        bool all = true;
        for (long pid : members)
            if (!moved.count(pid)) {
                all = false;
                (void)writeCgroupFile(to / "cgroup.procs", std::to_string(pid)); // gone: ESRCH
            }
        if (all) return true;
    }
    return false;
}

// Waits until `file` holds `state` (after trailing blanks), up to the deadline.
bool waitFor(const fs::path& file, const std::string& state, Clock::time_point deadline)
{
    for (;;) {
        const std::string text = readWholeFile(file);
        if (text.find(state) != std::string::npos) return true;
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

} // namespace

Result<std::unique_ptr<SandboxFreeze>>
SandboxFreeze::freeze(const std::vector<std::string>& cgroups, bool v1, int timeoutMs)
{
    if (cgroups.empty())
        return unsupported("the sandbox has no cgroup of its own to freeze it with (sandbench-cli "
                           "doctor, \"cgroups\"): stop the session to take its snapshot");
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    std::unique_ptr<SandboxFreeze> f(new SandboxFreeze);
    if (!v1) {
        f->m_dir = cgroups.front();
        if (auto e = writeCgroupFile(fs::path(f->m_dir) / "cgroup.freeze", "1")) return *e;
        if (!waitFor(fs::path(f->m_dir) / "cgroup.events", "frozen 1", deadline))
            return Error{ErrorCode::System, ETIMEDOUT,
                         "the sandbox did not freeze within " + std::to_string(timeoutMs) +
                             " ms"}; // f's destructor thaws
        return f;
    }
    const fs::path parent = ownV1Cgroup("freezer");
    if (parent.empty() || !fs::exists(parent / "cgroup.procs"))
        return unsupported("this machine has no cgroup v1 freezer hierarchy "
                           "(/sys/fs/cgroup/freezer): stop the session to take its snapshot");
    const fs::path dir = parent / fs::path(cgroups.front()).filename();
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        return sysError("create the freezer cgroup " + dir.string());
    f->m_dir = dir.string();
    f->m_v1Parent = parent.string();
    if (!moveAll(cgroups.front(), dir))
        return Error{ErrorCode::System, 0, "the sandbox forks faster than it can be frozen"};
    if (auto e = writeCgroupFile(dir / "freezer.state", "FROZEN")) return *e;
    if (!waitFor(dir / "freezer.state", "FROZEN", deadline))
        return Error{ErrorCode::System, ETIMEDOUT,
                     "the sandbox did not freeze within " + std::to_string(timeoutMs) + " ms"};
    // Frozen: nothing forks any more, so every process is in the freezer or never will be.
    if (!moveAll(cgroups.front(), dir))
        return Error{ErrorCode::System, 0, "the sandbox forks faster than it can be frozen"};
    return f;
}

void SandboxFreeze::thaw()
{
    if (m_dir.empty()) return;
    if (m_v1Parent.empty()) {
        (void)writeCgroupFile(fs::path(m_dir) / "cgroup.freeze", "0");
    } else {
        (void)writeCgroupFile(fs::path(m_dir) / "freezer.state", "THAWED");
        // Back where they were, and the folder goes.
        for (int sweep = 0; sweep < kMaxSweeps && !pidsIn(m_dir).empty(); ++sweep)
            for (long pid : pidsIn(m_dir))
                (void)writeCgroupFile(fs::path(m_v1Parent) / "cgroup.procs", std::to_string(pid));
        ::rmdir(m_dir.c_str());
    }
    m_dir.clear();
}

SandboxFreeze::~SandboxFreeze()
{
    thaw();
}

} // namespace sb
