#include "Supervisor.h"

#include "Environment.h"
#include "Exposure.h"
#include "Identity.h"
#include "Landlock.h"
#include "Paths.h"
#include "ResourceLimits.h"
#include "Sandbox.h"
#include "TerminalRelay.h"

#include <chrono>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;

namespace sb {
namespace {

const char* const kSystemFolders[] = {"/", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64",
                                      "/proc", "/sys", "/dev", "/boot", "/var", "/run"};

Result<fs::path> checkWorkspace(const fs::path& workspace)
{
    std::error_code ec;
    fs::path real = fs::canonical(workspace, ec);
    if (ec)
        return inputError("workspace " + workspace.string() + ": " + ec.message());
    if (!fs::is_directory(real, ec))
        return inputError("workspace " + workspace.string() + " is not a folder");
    for (const char* system : kSystemFolders)
        if (real == system)
            return inputError("workspace " + real.string() +
                              " is a system folder; choose a project folder");
    return real;
}

std::vector<std::string> callerEnvironment()
{
    std::vector<std::string> out;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e)
        out.emplace_back(*e);
    return out;
}

bool anyTerminal(const RunOptions& o)
{
    return ::isatty(o.stdinFd) || ::isatty(o.stdoutFd) || ::isatty(o.stderrFd);
}

std::int64_t nowNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

void say(const RunOptions& o, const std::string& text)
{
    if (o.notice)
        o.notice(text);
}

// The overlay's root folder takes its owner and mode from the upper layer's root: make them the
// project's, as the sandbox user sees it, or the agent could not create files at the top.
Status prepareUpperLayer(const SessionInfo& session, const fs::path& workspace)
{
    struct stat st{};
    if (::stat(workspace.c_str(), &st) != 0)
        return sysError("stat " + workspace.string());
    fs::path upper = session.upperDir();
    if (::chmod(upper.c_str(), st.st_mode & 07777) != 0)
        return sysError("chmod " + upper.string());
    SandboxIdentity id = sandboxIdentity();
    if (id.privileged && ::chown(upper.c_str(), id.uid, id.gid) != 0)
        return sysError("chown " + upper.string());
    return {};
}

} // namespace

Status checkRunnable(const RunOptions& options)
{
    if (options.command.empty())
        return inputError("no command to run (put it after --)");
    if (auto ws = checkWorkspace(options.workspace); !ws)
        return ws.error();
    if (options.policy.network.mode == NetworkMode::Filtered)
        return unsupported("network mode 'filtered' needs the filtering proxy, which this version "
                           "does not have yet; choose 'none' (loopback only) or 'host'");
    if (auto plan = planExposures(options.policy.filesystem, homeDirectory()); !plan)
        return plan.error();
    return {};
}

Result<RunOutcome> runSession(const RunOptions& options)
{
    if (auto e = checkRunnable(options))
        return *e;
    fs::path workspace = checkWorkspace(options.workspace).value();
    auto plan = planExposures(options.policy.filesystem, homeDirectory());
    if (!plan)
        return plan.error();

    SandboxConfig config;
    config.argv = options.command;
    config.env = buildEnvironment(options.policy.env, callerEnvironment());
    config.project = workspace;
    config.home = homeDirectory();
    for (const ResolvedExposure& m : plan->mounts)
        config.binds.push_back({m.path, m.mode});
    config.masks = plan->masks;
    config.network = options.policy.network.mode;
    config.limits = options.policy.limits;

    if (config.network == NetworkMode::Host)
        say(options, "warning: network mode 'host': the sandbox shares this machine's network");
    if (landlockAbi() == 0)
        say(options, "note: this kernel has no Landlock; writes are confined by mounts only");

    auto session = createSession(workspace, options.command, options.sessionId);
    if (!session)
        return session.error();
    config.sessionDir = session->directory();
    if (auto e = prepareUpperLayer(*session, workspace))
        return *e;
    auto lock = lockSession(*session);
    if (!lock)
        return lock.error();

    CgroupSupport cgroups = probeCgroupSupport();
    if (cgroups.available) {
        auto cg = createSessionCgroup(cgroups, session->id, config.limits);
        if (!cg)
            return cg.error();
        config.cgroupPath = *cg;
    } else {
        say(options, "note: no delegated cgroup v2 (" + cgroups.reason +
                         "); memory and process limits apply per process (rlimits)");
    }

    if (anyTerminal(options)) {
        // The host's terminal never enters the sandbox: the command gets a pty of its own.
        config.terminal.enabled = true;
        config.terminal.translateNewlines = ::isatty(options.stdoutFd) != 0;
        if (auto size = windowSize(options.stdinFd))
            config.terminal.rows = size->first, config.terminal.columns = size->second;
        config.stdioFds[0] = config.stdioFds[1] = config.stdioFds[2] = -1;
    } else {
        config.stdioFds[0] = options.stdinFd;
        config.stdioFds[1] = options.stdoutFd;
        config.stdioFds[2] = options.stderrFd;
    }

    say(options, "session " + session->id + " started");
    auto sandbox = startSandbox(config);
    if (!sandbox) {
        session->state = SessionState::Ended;
        session->endedNs = nowNs();
        (void)saveSession(*session);
        removeCgroup(config.cgroupPath);
        ::close(*lock);
        return Error{sandbox.error().code, sandbox.error().sysErrno,
                     "sandbox setup failed: " + sandbox.error().message};
    }

    long long deadline = 0;
    if (config.limits.wallSeconds > 0)
        deadline = monotonicMs() + static_cast<long long>(config.limits.wallSeconds) * 1000;
    RelayHooks hooks;
    hooks.onSignal = [&](int sig) { ::kill(sandbox->initPid, sig); };
    hooks.onResize = [&] { copyWindowSize(options.stdinFd, sandbox->ptyMaster); };
    bool finished;
    {
        std::optional<RawMode> raw;
        if (sandbox->ptyMaster >= 0 && ::isatty(options.stdinFd))
            raw.emplace(options.stdinFd);
        finished = relay(options.stdinFd, options.stdoutFd, sandbox->ptyMaster, sandbox->pidFd,
                         deadline, hooks);
    }
    if (sandbox->ptyMaster >= 0)
        ::close(sandbox->ptyMaster);
    RunOutcome outcome;
    if (!finished) {
        outcome.timedOut = true;
        ::kill(sandbox->initPid, SIGKILL); // the whole pid namespace goes with init
        say(options, "wall-clock limit of " + std::to_string(config.limits.wallSeconds) +
                         " s reached: session stopped");
    }
    outcome.exitStatus = waitSandbox(*sandbox);
    if (outcome.timedOut)
        outcome.exitStatus = 124;

    session->state = SessionState::Ended;
    session->endedNs = nowNs();
    session->exitStatus = outcome.exitStatus;
    (void)saveSession(*session);
    removeCgroup(config.cgroupPath);
    ::close(*lock);
    outcome.session = *session;
    return outcome;
}

} // namespace sb
