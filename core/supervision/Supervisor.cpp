#include "supervision/Supervisor.h"

#include "base/ActivityKinds.h"
#include "base/FolderTree.h"
#include "base/OpenFileLimit.h"
#include "base/Paths.h"
#include "base/ProcessLimits.h"
#include "base/SignalFreeThread.h"
#include "base/Terminal.h"
#include "base/UniqueFd.h"
#include "policy/Exposure.h"
#include "policy/PolicyJson.h"
#include "recording/RecordingStore.h"
#include "recording/RecordingWriter.h"
#include "sandbox/Environment.h"
#include "sandbox/Freezer.h"
#include "sandbox/Identity.h"
#include "sandbox/Landlock.h"
#include "sandbox/ResourceLimits.h"
#include "sandbox/Sandbox.h"
#include "supervision/SessionLoop.h"
#include "supervision/SessionResume.h"
#include "supervision/SessionSecrets.h"
#include "supervision/SessionWatch.h"
#include "workspace/SessionSnapshots.h"
#include "workspace/Workspace.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;

namespace sb {
namespace {

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
    if (o.notice) o.notice(text);
}

// What the recording's writer says of a stall (the database locked by another process, a full
// disk), from its thread: to the user at once, and to watching clients while the loop lives.
class StallRelay {
  public:
    explicit StallRelay(const RunOptions& options) : m_options(options) {}
    void attach(SessionLoop* loop)
    {
        std::lock_guard lock(m_mutex);
        m_loop = loop;
    }
    void operator()(const RecordingStall& stall)
    {
        const std::string message =
            stall.stalled ? "recording stopped: " + stall.reason +
                                "; the session goes on, and its events wait in memory until "
                                "the database takes them again"
                          : "recording goes on: the database takes events again";
        say(m_options, message);
        std::lock_guard lock(m_mutex);
        if (m_loop)
            m_loop->publishActivity({{"kind", activity::kRecording},
                                     {"state", stall.stalled ? "stopped" : "resumed"},
                                     {"message", message}});
    }

  private:
    const RunOptions& m_options;
    std::mutex m_mutex;
    SessionLoop* m_loop = nullptr;
};

// The overlay's root folder takes its owner and mode from the upper layer's root: make them the
// project's, as the sandbox user sees it, or the agent could not create files at the top.
Status prepareUpperLayer(const SessionInfo& session, const fs::path& workspace)
{
    struct stat st {};
    if (::stat(workspace.c_str(), &st) != 0) return sysError("stat " + workspace.string());
    fs::path upper = session.upperDir();
    if (::chmod(upper.c_str(), st.st_mode & 07777) != 0) return sysError("chmod " + upper.string());
    SandboxIdentity id = sandboxIdentity();
    if (id.privileged && ::chown(upper.c_str(), id.uid, id.gid) != 0)
        return sysError("chown " + upper.string());
    return {};
}

// overlayfs's scratch space, left marked "volatile" after the unmount: never mounted again (a
// session's overlay is mounted once). Its folders are mode 000, which would stop the owner from
// removing the session folder later, so they are opened up. It is not removed here: on ext4
// without a journal, every deleted inode is skipped by the allocator for the next 60 s, and the
// five deleted at each session's end slowed the next sessions' mounts and mkdirs measurably.
void releaseWorkDir(const SessionInfo& session)
{
    for (const char* sub : {"", "work", "work/incompat", "work/incompat/volatile", "index"})
        ::chmod((session.workDir() / sub).c_str(), 0700);
}

SessionRecordInfo recordInfoOf(const SessionInfo& session, const RunOptions& options,
                               const SandboxConfig& config)
{
    SessionRecordInfo info;
    info.id = session.id;
    info.command = options.command;
    info.workspace = session.project;
    info.policy = {{"network", toString(options.policy.network.mode)},
                   {"network_default", toString(options.policy.network.defaultAction)},
                   {"commands_default", toString(options.policy.commands.defaultAction)},
                   {"memory_mb", options.policy.limits.memoryMb},
                   {"pids", options.policy.limits.pids},
                   {"wall_seconds", options.policy.limits.wallSeconds},
                   // The whole policy and where it came from: the window shows an ended session
                   // the policy it ran under, and Resume starts from it.
                   {"document", policyToJson(options.policy)},
                   {"file", options.policyFile.string()},
                   {"preset", options.policyPreset}};
    info.startedNs = session.startedNs;
    if (config.terminal.enabled)
        info.rows = config.terminal.rows, info.cols = config.terminal.columns;
    return info;
}

// What the session left for review, as the recording's last events: the net result, marked
// "final" so that timelines, which showed the live file events, leave them out. Returns how
// many changes there are.
std::size_t recordChanges(RecordingWriter& recorder, const SessionInfo& session)
{
    auto changes = listChanges(session.upperDir(), session.project);
    if (!changes) return 0;
    static const char* const kinds[] = {"added", "modified", "deleted"};
    for (const Change& c : *changes)
        recorder.event(
            EventKind::WorkspaceChange,
            {{"path", c.path}, {"kind", kinds[static_cast<int>(c.kind)]}, {"final", true}});
    return changes->size();
}

// Blocks SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGWINCH for the supervisor's life.
class StopSignalsBlocked {
  public:
    StopSignalsBlocked()
    {
        sigset_t stops;
        sigemptyset(&stops);
        for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH})
            sigaddset(&stops, signal);
        ::pthread_sigmask(SIG_BLOCK, &stops, &m_previous);
    }
    ~StopSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &m_previous, nullptr); }
    StopSignalsBlocked(const StopSignalsBlocked&) = delete;
    StopSignalsBlocked& operator=(const StopSignalsBlocked&) = delete;

  private:
    sigset_t m_previous;
};

// `path` as the sandbox sees it when the workspace is at `inside` there.
fs::path seenInside(const fs::path& path, const fs::path& workspace, const fs::path& inside)
{
    const fs::path rel = path.lexically_relative(workspace);
    if (inside == workspace || rel.empty() || rel.begin()->string() == "..") return path;
    return rel == "." ? inside : inside / rel;
}

// The policy's part is RunningPolicy::describe()'s.
SessionSummary summaryOf(const SessionInfo& session, const RunOptions& options,
                         const SandboxConfig& config)
{
    SessionSummary s;
    s.id = session.id;
    s.command = options.command;
    s.workspace = session.project.string();
    if (config.projectInside != session.project) s.workspaceInside = config.projectInside.string();
    s.startedUnixMs = session.startedNs / 1000000;
    if (config.terminal.enabled) s.rows = config.terminal.rows, s.cols = config.terminal.columns;
    return s;
}

// The sandbox a session gets: its command, environment, workspace, exposures and limits.
SandboxConfig sandboxConfigOf(const RunOptions& options, const PreparedRun& prepared)
{
    const fs::path& workspace = prepared.workspace;
    SandboxConfig config;
    config.argv = options.command;
    config.env = buildEnvironment(options.policy.env, callerEnvironment());
    config.project = workspace;
    config.projectInside = options.workspaceInside.empty() ? workspace : options.workspaceInside;
    config.home = options.workspaceInside.empty() ? homeDirectory() : options.workspaceInside;
    config.systemRoot = prepared.systemRoot;
    for (const ResolvedExposure& m : prepared.exposures.mounts)
        config.binds.push_back({m.path, m.mode});
    for (const fs::path& pin : prepared.exposures.pins) { // the project's overlay needs none
        const fs::path rel = pin.lexically_relative(workspace);
        if (rel.empty() || rel.begin()->string() == "..")
            config.binds.push_back({pin, AccessMode::ReadWrite});
    }
    for (const Protection& p : prepared.exposures.protections)
        config.protections.push_back({p.path, p.mode});
    // Secrets inside the workspace are masked where the sandbox sees them.
    for (const fs::path& mask : prepared.exposures.masks)
        config.masks.push_back(seenInside(mask, workspace, config.projectInside));
    if (!options.workspaceInside.empty()) setVariable(config.env, "HOME", config.home.string());
    if (!options.userInside.empty()) {
        config.userName = options.userInside;
        setVariable(config.env, "USER", options.userInside);
        setVariable(config.env, "LOGNAME", options.userInside);
    }
    config.network = options.policy.network.mode;
    config.limits = options.policy.limits;
    config.superviseExec = true;
    config.superviseOutbound = true; // in network mode filtered, where init redirects (Sandbox.h)
    if (config.network == NetworkMode::Filtered)
        addProxyVariables(config.env, kProxyPort, options.policy.env);
    return config;
}

// What the user should know before it starts: a weaker sandbox than the policy reads as, and
// the files that run later that it holds back or, by the policy's word, does not.
void announceRisks(const RunOptions& options, const PreparedRun& prepared)
{
    if (options.policy.network.mode == NetworkMode::Host)
        say(options, "warning: network mode 'host': the sandbox shares this machine's network");
    if (prepared.systemRoot != "/")
        say(options, "system folders from " + options.policy.filesystem.root + " (" +
                         prepared.systemRoot.string() + ")");
    if (landlockAbi() == 0)
        say(options, "note: this kernel has no Landlock; writes are confined by mounts only");
    for (const RunLaterUnprotect& u : prepared.runLater.unprotected())
        say(options, "warning: the policy turns off the protection of " + u.path +
                         " (a file that runs later): apply will write it (because: " + u.because +
                         ")");
    if (!prepared.exposures.protectedNotes.empty()) {
        std::string list;
        for (const std::string& note : prepared.exposures.protectedNotes)
            list += (list.empty() ? "" : ", ") + note;
        say(options, "files that run later, protected in exposed folders: " + list);
    }
}

// The session's cgroups, or a note that says which limits then apply per process or not at all.
CgroupSupport chooseCgroups(const RunOptions& options, const SessionInfo& session,
                            SandboxConfig& config)
{
    CgroupSupport cgroups = probeCgroupSupport();
    if (cgroups.available()) {
        // Made while init builds the sandbox, joined before the command starts.
        config.cgroups = sessionCgroupPaths(cgroups, session.id);
        config.cgroupsV1 = cgroups.kind == CgroupSupport::Kind::V1;
        return cgroups;
    }
    std::string note = "note: no cgroup for the sandbox (" + cgroups.reason +
                       "); memory and process limits apply per process (rlimits)";
    if (options.policy.limits.cpuPercent > 0)
        note += ", and the CPU limit (" + std::to_string(options.policy.limits.cpuPercent) +
                "% of a core) does not apply: it needs a cgroup";
    say(options, note);
    return cgroups;
}

// The command's terminal or pipes. Pipes (no terminal anywhere) are the supervisor's to relay,
// so clients and the recording see the output too: their ends are returned in `out` and `err`.
Status chooseStdio(const RunOptions& options, SandboxConfig& config, Pipe& out, Pipe& err)
{
    config.stdioFds[0] = config.stdioFds[1] = config.stdioFds[2] = -1;
    if (options.command.empty()) return {}; // its terminal stream is what programs run in it
    if (options.headless) {
        config.terminal.enabled = true;
        config.terminal.rows = options.rows;
        config.terminal.columns = options.cols;
        return {};
    }
    if (anyTerminal(options)) {
        // The host's terminal never enters the sandbox: the command gets a pty of its own.
        config.terminal.enabled = true;
        config.terminal.translateNewlines = ::isatty(options.stdoutFd) != 0;
        if (auto size = windowSize(options.stdinFd))
            config.terminal.rows = size->first, config.terminal.columns = size->second;
        return {};
    }
    auto outPipe = makePipe(), errPipe = makePipe();
    if (!outPipe) return outPipe.error().within("create output pipes");
    if (!errPipe) return errPipe.error().within("create output pipes");
    out = std::move(*outPipe);
    err = std::move(*errPipe);
    config.stdioFds[0] = options.stdinFd;
    config.stdioFds[1] = out.write.get();
    config.stdioFds[2] = err.write.get();
    return {};
}

// A snapshot of the running session's layer: the sandbox frozen (nothing writes meanwhile),
// the layer copied, the sandbox thawed. The supervisor holds the session's lock all along.
// A paused session's sandbox is frozen already (`frozenAlready`): it stays so.
Result<nlohmann::json> snapshotRunningSession(const std::vector<std::string>& cgroups, bool v1,
                                              const fs::path& dir, const fs::path& upper,
                                              const std::string& id, std::string name,
                                              bool frozenAlready)
{
    if (name.empty()) {
        auto session = loadSession(id);
        if (!session) return session.error();
        name = nextSnapshotName(*session);
    }
    if (auto e = checkSnapshotName(name)) return *e;
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<SandboxFreeze> frozen;
    if (!frozenAlready) {
        auto freeze = SandboxFreeze::freeze(cgroups, v1);
        if (!freeze) return freeze.error().within("freeze session " + id + " for its snapshot");
        frozen = std::move(*freeze);
    }
    auto taken = takeSnapshot(dir, upper, name);
    frozen.reset();
    const auto frozenMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!taken) return taken.error();
    return nlohmann::json{{"name", taken->name},
                          {"taken_unix_ms", taken->takenUnixMs},
                          {"entries", taken->stats.entries},
                          {"bytes", taken->stats.bytes},
                          {"cloned", taken->stats.cloned},
                          {"frozen_ms", frozenMs}};
}

// How the session loop relays, records and times the session. It takes the pipes' read ends.
LoopOptions loopOptionsOf(const RunOptions& options, const SandboxConfig& config,
                          const SandboxProcess& sandbox, const SessionInfo& session,
                          RecordingWriter& recorder, Pipe& out, Pipe& err)
{
    LoopOptions loop;
    loop.inFd = options.headless ? -1 : options.stdinFd;
    loop.outFd = options.headless ? -1 : options.stdoutFd;
    loop.errFd = options.headless ? -1 : options.stderrFd;
    // The loop owns the read ends from here on and closes them (at end of output, or when it
    // is destroyed): closing them here too would close whatever reused the numbers meanwhile,
    // such as the recording's database files, opened on the writer's thread.
    loop.commandOut = out.read.release();
    loop.commandErr = err.read.release();
    loop.interactive = !options.headless && sandbox.ptyMaster >= 0 && ::isatty(options.stdinFd);
    loop.sessionId = session.id;
    loop.environment = config.env;
    loop.transcript = options.command.empty();
    if (options.command.empty()) {
        loop.liveAfterMs = 0;
        loop.idleMs = static_cast<long long>(options.policy.limits.idleSeconds) * 1000;
    }
    loop.lifeline = options.lifeline; // the loop closes it
    loop.observe = options.observe;
    loop.shadow = options.shadow;
    loop.notice = options.notice;
    loop.recorder = &recorder;
    if (config.limits.wallSeconds > 0)
        loop.deadlineMs = monotonicMs() + static_cast<long long>(config.limits.wallSeconds) * 1000;
    // A paused session's sandbox stays frozen until it is resumed, or the session ends.
    auto paused = std::make_shared<std::unique_ptr<SandboxFreeze>>();
    loop.snapshot = [cgroups = config.cgroups, v1 = config.cgroupsV1, dir = session.directory(),
                     upper = session.upperDir(), id = session.id, paused](const std::string& name) {
        return snapshotRunningSession(cgroups, v1, dir, upper, id, name, *paused != nullptr);
    };
    loop.pause = [cgroups = config.cgroups, v1 = config.cgroupsV1, id = session.id,
                  paused](bool pause) -> Status {
        if (!pause) {
            paused->reset();
            return {};
        }
        if (*paused) return {};
        // A sandbox starting processes (a login shell reading its profile) can outrun one
        // attempt to move them all into the freezer (cgroup v1): a few more usually catch it.
        auto frozen = SandboxFreeze::freeze(cgroups, v1);
        for (int attempt = 1;
             attempt < 5 && !frozen && frozen.error().code != ErrorCode::Unsupported; ++attempt)
            frozen = SandboxFreeze::freeze(cgroups, v1);
        if (!frozen) return frozen.error().within("pause session " + id);
        *paused = std::move(*frozen);
        return {};
    };
    return loop;
}

// The session's life, from the loop's start to the sandbox's end: the loop relays, decides and
// records; the watch reports file changes and limits; the exit status is the command's (124 at
// the wall-clock limit, 128+N after stop signal N).
struct Ended {
    RunOutcome outcome;
    Status setUpFailed;     // the loop could not run: the sandbox was stopped at once
    Status recordingFailed; // the recording's database refused it: stopped as well
};
Ended superviseSession(const RunOptions& options, PreparedRun& prepared,
                       const SandboxConfig& config, const CgroupSupport& cgroups,
                       const SandboxProcess& sandbox, const SessionInfo& session,
                       const LoopOptions& loopOptions, RecordingWriter& recorder,
                       StallRelay& stalls)
{
    Ended ended;
    SessionLoop loop(std::move(prepared.policy), sandbox, loopOptions);
    stalls.attach(&loop);
    // The command's first exec waits for the loop's answer: what comes after it is set up
    // while the command runs, and what only matters to somebody watching once the session
    // is worth watching (a command over within milliseconds is recorded all the same).
    SessionWatch watch(
        SessionWatchOptions{session.upperDir(), session.project, prepared.runLater, config.home,
                            cgroups.kind, config.cgroups, config.limits},
        [&loop](nlohmann::json e) { loop.publishActivity(std::move(e)); }, options.notice);
    std::jthread spare; // tidies up for the next start while this command runs
    loop.whenStarted([&] {
        // Without it (no thread to be had), the next start makes its own folder.
        auto tidy = startThread<std::jthread>("the tidying thread", [&cgroups] {
            prepareSpareSession();
            removeAbandonedCgroups(cgroups);
        });
        if (tidy) spare = std::move(tidy.value());
    });
    loop.whenLive([&] {
        if (auto e = loop.listen(summaryOf(session, options, config)))
            say(options, "warning: no control socket, clients cannot attach: " + e->describe());
        if (options.listening) options.listening();
        watch.start();
    });
    loop.whenClientSubscribes([&watch] { watch.clientSubscribed(); });
    // A loop that cannot run stops the sandbox; runSession then ends the session its one way.
    ended.setUpFailed = loop.setUpError();
    if (!ended.setUpFailed && sandbox.proxyListener >= 0)
        if (auto e = loop.startProxy(sandbox.proxyListener, sandbox.transparentListener,
                                     sandbox.resolverSocket, sandbox.initPid, sandbox.diagSocket))
            ended.setUpFailed = e->within("network proxy");
    bool finished = true;
    if (ended.setUpFailed) {
        ::kill(sandbox.initPid, SIGKILL);
    } else {
        std::optional<RawMode> raw;
        if (loopOptions.interactive) raw.emplace(options.stdinFd);
        finished = loop.run();
    }
    if (!finished) {
        ended.outcome.timedOut = true;
        ::kill(sandbox.initPid, SIGKILL); // the whole pid namespace goes with init
        say(options, "wall-clock limit of " + std::to_string(config.limits.wallSeconds) +
                         " s reached: session stopped");
    }
    ended.outcome.exitStatus = ended.outcome.timedOut ? 124 : 0;
    // Before init is reaped: a failing open may still signal it (through the pidfd).
    ended.recordingFailed = recorder.opened();
    int status = waitSandbox(sandbox);
    if (!ended.outcome.timedOut) ended.outcome.exitStatus = status;
    // Ended by a stop signal to the supervisor: 128 + it, as a shell reports such an end.
    if (const int signal = loop.stopSignal(); signal != 0 && !ended.outcome.timedOut)
        ended.outcome.exitStatus = 128 + signal;
    watch.sessionEnded(ended.outcome.timedOut, ended.outcome.exitStatus);
    loop.finish(ended.outcome.exitStatus);
    stalls.attach(nullptr);
    return ended;
}

} // namespace

Result<RunOutcome> runSession(const RunOptions& options)
{
    auto prepared = prepareRun(options);
    if (!prepared) return prepared.error();
    return runSession(options, std::move(*prepared));
}

Result<RunOutcome> runSession(const RunOptions& options, PreparedRun prepared)
{
    const fs::path& workspace = prepared.workspace;
    if (auto e = raiseOpenFileLimit()) return *e;
    if (auto e = checkProcessLimits()) return *e;
    // A stop signal waits for the session loop's signalfd, whichever thread the kernel would
    // give it: blocked before any thread starts, so that every one inherits the block (the
    // sandbox's processes set their own masks). Arriving before the loop runs, it waits.
    StopSignalsBlocked stopSignalsBlocked;
    SandboxConfig config = sandboxConfigOf(options, prepared);
    announceRisks(options, prepared);

    auto session = createSession(workspace, options.command, options.sessionId);
    if (!session) return session.error();
    // Held from here on, so that gc and rm leave the folder alone whatever happens to it.
    auto lock = lockSession(*session);
    if (!lock) {
        (void)removeFolderTree(session->directory());
        return lock.error();
    }
    config.sessionDir = session->directory();
    // Refused before it was recorded: nothing of the session is left, and its id is free for the
    // next try, unless its folder holds changes (resumed ones, or what a sandbox wrote), which
    // stay as an ended session's.
    auto abandon = [&](Error e) {
        if (!prepared.resumed && !mayHoldFiles(session->upperDir())) {
            (void)removeFolderTree(session->directory());
        } else {
            session->state = SessionState::Ended;
            session->endedNs = nowNs();
            (void)saveSession(*session);
        }
        lock->reset();
        return e;
    };
    if (auto e = saveSessionRunLaterRules(*session, prepared.runLater))
        return abandon(e->within("cannot save the session's list of files that run later"));
    if (prepared.resumed) {
        if (auto e = takeOverChanges(*prepared.resumed, *session)) return abandon(*e);
        say(options, "session " + session->id + " continues " + prepared.resumed->id +
                         ": its changes are this session's now");
    }
    if (auto e = prepareUpperLayer(*session, workspace)) return abandon(*e);

    const CgroupSupport cgroups = chooseCgroups(options, *session, config);
    Pipe out, err;
    if (auto e = chooseStdio(options, config, out, err)) return abandon(*e);
    auto secrets = prepareSecrets(options.policy, callerEnvironment(), session->id, config);
    if (!secrets) return abandon(secrets.error());
    for (const std::string& note : secrets->notes)
        say(options, note);

    // Recorded, or stopped at once: never a sandbox running unrecorded without saying so. What
    // can fail cheaply (folder, file, header) is checked before anything starts. The database
    // itself opens on the writer's thread, started the moment init is cloned (no thread may
    // exist before) so that it overlaps init's mounts, and nothing on the command's path waits
    // for it. Should it fail after all, the writer kills init through a pidfd (never another
    // process of a reused pid) and the session is reported as not recorded.
    auto endEarly = [&](Error e, bool recorded = true) {
        out = {};
        err = {};
        removeCgroups(config.cgroups);
        if (!recorded) return abandon(std::move(e));
        session->state = SessionState::Ended;
        session->endedNs = nowNs();
        (void)saveSession(*session);
        lock->reset();
        return e;
    };
    if (auto e = checkRecordingDb(options.recordingsDb))
        return endEarly(e->within("cannot record the session, so it was not started"), false);
    say(options, "session " + session->id + " started");
    // Init's pidfd for the writer's thread; declared before the writer, so closed after it.
    UniqueFd killFd;
    StallRelay stalls(options); // outlives the writer, which calls it
    std::unique_ptr<RecordingWriter> recorder;
    std::optional<Error> recorderError;
    SessionRecordInfo recordInfo = recordInfoOf(*session, options, config);
    auto sandbox = startSandbox(config, [&](pid_t, int pidFd) -> Status {
        killFd.reset(::fcntl(pidFd, F_DUPFD_CLOEXEC, 3));
        WriterOptions writer;
        writer.onOpenFailed = [fd = killFd.get()](const Error&) {
            ::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0);
        };
        writer.onStall = [&stalls](const RecordingStall& stall) { stalls(stall); };
        auto started = RecordingWriter::startInBackground(options.recordingsDb, recordInfo, writer);
        if (started)
            recorder = std::move(started.value());
        else
            recorderError = started.error();
        if (!config.cgroups.empty())
            if (auto made = createSessionCgroups(cgroups, session->id, config.limits); !made)
                return made.error();
        return {};
    });
    out.write.reset(); // the sandbox has them: the command's end of output is theirs alone
    err.write.reset();
    if (!sandbox) {
        // The writer may have stopped init itself (its database refused the session): say why.
        Status notRecorded = recorder ? recorder->opened() : Status{};
        if (recorder) (void)recorder->finish(125);
        if (notRecorded)
            return endEarly(notRecorded->within("cannot record the session, so it was not started"),
                            false);
        return endEarly(withLimitsHint(sandbox.error().within("sandbox setup failed")));
    }
    // The command's first exec waits for exec approval, which starts with the loop below: the
    // recording must be open by then (it opened beside the sandbox's setup, so this rarely
    // waits), or a quick command could run unrecorded before the writer's failure stops it.
    if (Status notOpened = recorder ? recorder->opened() : Status{}) {
        (void)recorder->finish(125);
        recorder.reset();
        recorderError = *notOpened;
    }
    if (!recorder) {
        ::kill(sandbox->initPid, SIGKILL);
        waitSandbox(*sandbox);
        for (int fd : {sandbox->ptyMaster, sandbox->execListener, sandbox->proxyListener,
                       sandbox->transparentListener, sandbox->resolverSocket, sandbox->diagSocket})
            if (fd >= 0) ::close(fd);
        releaseWorkDir(*session);
        return endEarly(recorderError->within("cannot record the session, so it was not started"),
                        false);
    }

    if (!sandbox->noTransparent.empty())
        say(options, "note: only programs that use the proxy (HTTP_PROXY, ALL_PROXY) can connect "
                     "out; the others' connections fail: " +
                         sandbox->noTransparent);
    LoopOptions loopOptions =
        loopOptionsOf(options, config, *sandbox, *session, *recorder, out, err);
    loopOptions.intercept = secrets->interceptor;
    Ended ended = superviseSession(options, prepared, config, cgroups, *sandbox, *session,
                                   loopOptions, *recorder, stalls);
    RunOutcome& outcome = ended.outcome;
    const Status& setUpFailed = ended.setUpFailed;
    const Status& recordingFailed = ended.recordingFailed;
    if (sandbox->ptyMaster >= 0) ::close(std::exchange(sandbox->ptyMaster, -1));

    releaseWorkDir(*session);
    if (setUpFailed) {
        (void)recorder->finish(125);
        return endEarly(*setUpFailed);
    }
    if (recordingFailed) {
        (void)recorder->finish(outcome.exitStatus);
        return endEarly(recordingFailed->within("cannot record the session, so it was stopped"),
                        false);
    }
    outcome.changes = recordChanges(*recorder, *session);
    recorder->requestFinish(outcome.exitStatus); // its last commit overlaps what follows
    session->state = SessionState::Ended;
    session->endedNs = nowNs();
    session->exitStatus = outcome.exitStatus;
    (void)saveSession(*session);
    removeCgroups(config.cgroups);
    if (auto e = recorder->finish(outcome.exitStatus))
        say(options, "warning: the end of the recording was not saved: " + e->describe());
    lock->reset();
    outcome.session = *session;
    return outcome;
}

} // namespace sb
