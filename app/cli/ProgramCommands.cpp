// start / exec / files: sessions that programs drive. `start` leaves a session running without
// a command of its own; `exec` runs a process in any running session, `files` (FilesCommand.cpp)
// reads and writes its files as the sandbox sees them (control protocol version 2,
// docs/protocol.md).
#include "Commands.h"
#include "PolicyOptions.h"
#include "base/Bytes.h"
#include "base/Paths.h"
#include "base/Session.h"
#include "base/Terminal.h"
#include "base/UniqueFd.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using sb::proto::Message;
using sb::proto::MsgType;
using sb::proto::Role;

namespace sbcli {
namespace {

struct ProgramArgs {
    PolicyChoice policy;
    std::string workspace = ".";
    std::string session;
    std::string name;
    std::string workspaceAt; // start: where the sandbox sees the workspace
    std::string resume;      // start: an ended session whose changes it goes on with
    bool json = false;
    // exec
    std::vector<std::string> command;
    std::string cwd;
    unsigned timeoutSeconds = 0;
    bool tty = false;
    bool detach = false;
    std::vector<std::string> env;
};

} // namespace

sb::Result<sb::RunOptions> detachedSessionOptions(const PolicyChoice& choice,
                                                  const std::string& workspace,
                                                  const std::string& name)
{
    auto policy = choice.resolve();
    if (!policy) return policy.error();
    sb::RunOptions options;
    options.policy = std::move(policy.value());
    options.workspace = workspace;
    options.programmable = true;
    options.sessionId = name.empty() ? sb::newSessionId() : name; // prepareRun checks it
    if (auto e = choice.describeSource(options)) return *e;
    return options;
}

sb::Result<StartedSession> startDetachedSession(const PolicyChoice& choice,
                                                const std::string& workspace,
                                                const std::string& name, bool tied)
{
    auto options = detachedSessionOptions(choice, workspace, name);
    if (!options) return options.error();
    return startDetachedSession(std::move(*options), tied);
}

sb::Result<StartedSession> startDetachedSession(sb::RunOptions options, bool tied)
{
    auto prepared = sb::prepareRun(options);
    if (!prepared) return prepared.error();

    // The supervisor goes on in a process of its own, in a session of its own (a closed
    // terminal does not end it). Until its control socket is up it reports on a pipe, and one
    // byte on another says the socket is up.
    auto report = sb::makePipe();
    if (!report) return report.error();
    auto ready = sb::makePipe();
    if (!ready) return ready.error();
    sb::Pipe lifeline;
    if (tied) {
        auto made = sb::makePipe();
        if (!made) return made.error();
        lifeline = std::move(*made);
    }
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return sb::sysError("fork");
    if (pid == 0) {
        report->read.reset();
        ready->read.reset();
        lifeline.write.reset();
        options.lifeline = lifeline.read.release();
        ::setsid();
        int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(report->write.get(), 2); // its notices, as long as somebody reads them
        report->write.reset();
        ::signal(SIGPIPE, SIG_IGN);
        options.stdinFd = options.stdoutFd = options.stderrFd = null;
        options.notice = [](const std::string& text) {
            std::fprintf(stderr, "sandbench: %s\n", text.c_str());
        };
        options.listening = [fd = ready->write.release()] {
            (void)!::write(fd, "R", 1);
            ::close(fd);
        };
        auto outcome = sb::runSession(options, std::move(*prepared));
        if (!outcome) {
            ::_exit(fail(outcome.error(), kSandboxFailure)); // as run says it
        }
        ::_exit(0);
    }
    report->write.reset();
    ready->write.reset();
    (void)lifeline.write.release(); // stays open until this process ends: the session's lifeline
    lifeline.read.reset();
    StartedSession started{options.sessionId, pid, {}};
    const int reportFd = report->read.get();
    auto readNotices = [&] { // what the supervisor said, without waiting for more
        ::fcntl(reportFd, F_SETFL, O_NONBLOCK);
        for (char buf[4096];;) {
            ssize_t n = ::read(reportFd, buf, sizeof buf);
            if (n <= 0) break;
            started.notices.append(buf, static_cast<std::size_t>(n));
        }
    };
    // Notices until the ready byte; the end of both pipes without it is a session that died.
    constexpr int kStartLimitMs = 20000;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartLimitMs);
    bool reportOpen = true;
    for (;;) {
        pollfd fds[2] = {{ready->read.get(), POLLIN, 0}, {reportOpen ? reportFd : -1, POLLIN, 0}};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            ::kill(pid, SIGKILL);
            return sb::Error{sb::ErrorCode::System, ETIMEDOUT,
                             "the session did not come up within 20 s:\n" + started.notices};
        }
        // Capped: a process of the sandbox may hold the pipes open after the supervisor died.
        if (::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 100))) < 0 &&
            errno != EINTR)
            return sb::sysError("poll");
        if (fds[1].revents != 0) {
            char buf[4096];
            ssize_t n = ::read(reportFd, buf, sizeof buf);
            if (n > 0) started.notices.append(buf, static_cast<std::size_t>(n));
            if (n == 0) reportOpen = false;
        }
        char byte = 0;
        if (fds[0].revents != 0 && ::read(ready->read.get(), &byte, 1) == 1) break;
        int status = 0;
        // The ready pipe closed without its byte, or the supervisor is gone: it ended before
        // listening.
        if (fds[0].revents != 0 || ::waitpid(pid, &status, WNOHANG) == pid) {
            if (fds[0].revents != 0) ::waitpid(pid, &status, 0);
            if (reportOpen) readNotices();
            return sb::Error{sb::ErrorCode::System, 0,
                             "the session did not start:\n" + started.notices};
        }
    }
    readNotices(); // it writes its notices before it listens
    return started;
}

sb::Result<std::unique_ptr<sb::ControlClient>> programClient(const std::string& session,
                                                             const std::string& name)
{
    auto client = connectSession(session, Role::Viewer, name);
    if (!client) return client.error();
    if (!(*client)->servesPrograms())
        return sb::Error{sb::ErrorCode::Unsupported, 0,
                         "session " + session +
                             " runs no processes for programs (its supervisor "
                             "predates exec)"};
    return client;
}

namespace {

int startCommand(const ProgramArgs& args)
{
    auto options = detachedSessionOptions(args.policy, args.workspace, args.name);
    if (!options) return fail(options.error(), kUsageError);
    options->workspaceInside = args.workspaceAt;
    options->resumeFrom = args.resume;
    if (!args.resume.empty()) (void)followChain(args.resume, "resuming");
    auto started = startDetachedSession(std::move(*options), false);
    if (!started)
        return fail(started.error(), started.error().code == sb::ErrorCode::InvalidInput
                                         ? kUsageError
                                         : kSandboxFailure);
    std::fputs(started->notices.c_str(), stderr);
    if (args.json)
        std::printf("%s\n", sb::dumpJson({{"id", started->id},
                                          {"pid", started->pid},
                                          {"socket", sb::proto::socketPath(started->id).string()}})
                                .c_str());
    else
        std::printf("%s\n", started->id.c_str());
    return 0;
}

// exec: the process's output on ours, our input on its, its status as ours.
class Exec {
  public:
    Exec(sb::ControlClient& client, const ProgramArgs& args) : m_client(client), m_args(args) {}

    int run()
    {
        json start = {{"id", 1}, {"origin", "sandbench-cli exec"}, {"detach", m_args.detach}};
        sb::putBytesList(start, "argv", m_args.command);
        if (!m_args.cwd.empty()) sb::putBytes(start, "cwd", m_args.cwd);
        if (m_args.timeoutSeconds > 0) start["timeout_ms"] = m_args.timeoutSeconds * 1000ULL;
        json env = json::object();
        for (const std::string& kv : m_args.env) {
            auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0)
                return fail("--env takes NAME=VALUE, got '" + kv + "'", kUsageError);
            env[kv.substr(0, eq)] = kv.substr(eq + 1);
        }
        start["env"] = env;
        const bool tty = m_args.tty && ::isatty(0);
        if (tty) {
            auto size = sb::windowSize(0);
            start["tty"] = {{"rows", size ? size->first : 24}, {"cols", size ? size->second : 80}};
        }
        start["stdin"] = !m_args.detach;
        if (auto e = m_client.send(sb::proto::jsonMessage(MsgType::ExecStart, start)))
            return fail(*e);
        std::optional<sb::RawMode> raw;
        if (tty) raw.emplace(0);
        return loop(tty);
    }

  private:
    int loop(bool tty)
    {
        sigset_t sigs;
        sigemptyset(&sigs);
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH})
            sigaddset(&sigs, s);
        ::sigprocmask(SIG_BLOCK, &sigs, nullptr);
        int signals = ::signalfd(-1, &sigs, SFD_CLOEXEC);
        bool inputOpen = !m_args.detach;
        for (;;) {
            pollfd fds[3] = {
                {m_client.fd(), POLLIN, 0}, {inputOpen ? 0 : -1, POLLIN, 0}, {signals, POLLIN, 0}};
            if (::poll(fds, 3, -1) < 0 && errno != EINTR) return fail(sb::sysError("poll"));
            if (fds[2].revents & POLLIN) {
                signalfd_siginfo info{};
                if (::read(signals, &info, sizeof info) == sizeof info) {
                    const int sig = static_cast<int>(info.ssi_signo);
                    json control = {{"id", 1}};
                    if (sig == SIGWINCH) {
                        auto size = sb::windowSize(0);
                        if (!size) continue;
                        control["rows"] = size->first;
                        control["cols"] = size->second;
                    } else {
                        control["signal"] = sig; // ours goes on to the process
                    }
                    (void)m_client.send(sb::proto::jsonMessage(MsgType::ExecControl, control));
                }
            }
            if (fds[1].revents & (POLLIN | POLLHUP)) {
                char buf[65536];
                ssize_t n = ::read(0, buf, sizeof buf);
                if (n > 0) {
                    Message in;
                    in.type = MsgType::ExecInput;
                    in.seq = 1;
                    in.bytes.assign(buf, static_cast<std::size_t>(n));
                    if (auto e = m_client.send(in)) return fail(*e);
                } else if (n == 0 || errno != EINTR) {
                    inputOpen = false;
                    if (!tty)
                        (void)m_client.send(sb::proto::jsonMessage(
                            MsgType::ExecControl, {{"id", 1}, {"close_stdin", true}}));
                }
            }
            if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                if (auto e = m_client.readAvailable())
                    return fail("the session ended while the process ran: " + e->describe());
                Message m;
                for (auto got = m_client.next(m); got && *got; got = m_client.next(m))
                    if (auto status = onMessage(m)) return *status;
            }
        }
    }

    std::optional<int> onMessage(const Message& m)
    {
        switch (m.type) {
        case MsgType::ExecStarted:
            if (m_args.detach) {
                std::printf("%lld\n", m.body.value("pid", 0LL));
                return 0;
            }
            return std::nullopt;
        case MsgType::ExecOutput: {
            const int fd = (m.seq & 0xff) == sb::proto::kExecStderr ? 2 : 1;
            for (std::string_view rest = m.bytes; !rest.empty();) {
                ssize_t n = ::write(fd, rest.data(), rest.size());
                if (n <= 0 && errno != EINTR) break;
                if (n > 0) rest.remove_prefix(static_cast<std::size_t>(n));
            }
            return std::nullopt;
        }
        case MsgType::ExecEvent:
            if (m.body.contains("approval")) {
                auto r = sb::proto::approvalRequestFromJson(m.body["approval"]);
                if (r)
                    std::fprintf(stderr,
                                 "sandbench: waiting for approval #%llu (%s); answer in the window "
                                 "or with 'sandbench-cli approve %s %llu allow|deny'\n",
                                 static_cast<unsigned long long>(r->id),
                                 sb::proto::describeRequest(*r).c_str(), m_args.session.c_str(),
                                 static_cast<unsigned long long>(r->id));
            }
            return std::nullopt;
        case MsgType::ExecExit: {
            if (m.body.contains("denied")) {
                std::fprintf(stderr, "sandbench: denied by the session's policy: %s (%s)\n",
                             m.body.value("denied_command", std::string()).c_str(),
                             m.body["denied"].get<std::string>().c_str());
                // The process itself denied: 126, as a shell says of what it cannot run; a
                // child of it denied: the process's own status.
                if (!m.body["exit_code"].is_number()) return 126;
            }
            if (m.body.contains("error")) {
                const std::string error = m.body["error"].get<std::string>();
                std::fprintf(stderr, "sandbench: %s\n", error.c_str());
                return error.starts_with("command not found") ? 127 : 126;
            }
            if (m.body.value("timed_out", false)) return 124;
            if (m.body["exit_code"].is_number()) return m.body["exit_code"].get<int>();
            if (m.body["signal"].is_string()) {
                const std::string name = m.body["signal"].get<std::string>();
                for (int s = 1; s < NSIG; ++s)
                    if (const char* abbrev = ::sigabbrev_np(s);
                        abbrev && name == std::string("SIG") + abbrev)
                        return 128 + s;
            }
            return 1;
        }
        case MsgType::Error:
            std::fprintf(stderr, "sandbench-cli: %s\n",
                         m.body.value("message", std::string("error")).c_str());
            return kFailure;
        case MsgType::Exit:
            return fail("the session ended while the process ran");
        default:
            return std::nullopt;
        }
    }

    sb::ControlClient& m_client;
    const ProgramArgs& m_args;
};

int execCommand(ProgramArgs args)
{
    // CLI11 keeps the "--" before the command among the positionals.
    if (!args.command.empty() && args.command.front() == "--")
        args.command.erase(args.command.begin());
    if (args.command.empty()) return fail("no command to run (put it after --)", kUsageError);
    auto client = programClient(args.session, "sandbench-cli exec");
    if (!client) return fail(client.error(), kUsageError);
    return Exec(**client, args).run();
}

} // namespace

void addProgramCommands(CLI::App& app)
{
    auto args = std::make_shared<ProgramArgs>();
    CLI::App* start = app.add_subcommand(
        "start", "Start a session without a command of its own, for programs to run processes "
                 "and use files in (exec, files, mcp); prints its id and returns");
    args->policy.addTo(*start);
    start->add_option("--workspace,-w", args->workspace,
                      "Project folder (default: current folder; with --resume, that session's)");
    start->add_option("--name", args->name, "The session's id (default: a fresh one)");
    start->add_option(
        "--resume", args->resume,
        "Go on with an ended session's changes (they move to this session); any id of "
        "sessions resumed one from another names the latest");
    start->parse_complete_callback([args, start] {
        if (!args->resume.empty() && start->count("--workspace") == 0) args->workspace.clear();
    });
    start->add_option("--workspace-at", args->workspaceAt,
                      "Where the sandbox sees the workspace, which is then its home folder too "
                      "(e.g. /workspace; default: at its own path)");
    start->add_flag("--json", args->json, "Print {\"id\", \"pid\", \"socket\"}");
    start->callback([args] { exitWith(startCommand(*args)); });

    CLI::App* exec = app.add_subcommand(
        "exec", "Run a command inside a running session's sandbox (its filter, approvals and "
                "limits apply); exit status is the command's");
    exec->add_option("session", args->session, "Session id")->required();
    exec->add_option("--cwd", args->cwd,
                     "Working folder inside the sandbox (default: the workspace)");
    exec->add_option("--timeout", args->timeoutSeconds, "Kill it after this many seconds (124)");
    exec->add_flag("--tty,-t", args->tty, "Give it a terminal (when ours is one)");
    exec->add_flag("--detach,-d", args->detach, "Leave it running; print its pid");
    // One value a flag: a list option would go on taking words, up to and past "--".
    exec->add_option("--env,-e", args->env, "NAME=VALUE for its environment (repeatable)")
        ->allow_extra_args(false);
    exec->add_option("command", args->command, "The command and its arguments, after --")
        ->required();
    exec->callback([args] { exitWith(execCommand(*args)); });

    addFilesCommand(app);
}

} // namespace sbcli
