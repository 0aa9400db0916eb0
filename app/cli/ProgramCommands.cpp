// start / exec / files: sessions that programs drive. `start` leaves a session running without
// a command of its own; `exec` runs a process in any running session, `files` reads and writes
// its files as the sandbox sees them (control protocol version 2, docs/protocol.md).
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
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sstream>
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
    // files
    std::string path, target;
    bool recursive = false, parents = false;
    std::string mode;
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
    choice.describeSource(options);
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
            std::fprintf(stderr, "sandbench-cli: %s\n", outcome.error().describe().c_str());
            ::_exit(kSandboxFailure);
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

namespace {

int startCommand(const ProgramArgs& args)
{
    auto options = detachedSessionOptions(args.policy, args.workspace, args.name);
    if (!options) return fail(options.error(), kUsageError);
    options->workspaceInside = args.workspaceAt;
    options->resumeFrom = args.resume;
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

// One file request and its reply.
sb::Result<json> fileRequest(sb::ControlClient& client, json request)
{
    static std::uint64_t next = 1;
    const std::uint64_t id = next++;
    request["id"] = id;
    request["origin"] = "sandbench-cli files";
    if (auto e = client.send(sb::proto::jsonMessage(MsgType::FileRequest, request))) return *e;
    for (;;) {
        auto m = client.receive(60000);
        if (!m) return m.error();
        if ((m->type == MsgType::FileReply || m->type == MsgType::Error) &&
            m->body.value("id", std::uint64_t{0}) == id) {
            if (m->type == MsgType::Error) return sb::proto::errorFromBody(m->body);
            if (!m->body.value("ok", false))
                return sb::Error{sb::ErrorCode::System, m->body["error"].value("errno", 0),
                                 m->body["error"].value("message", std::string("failed"))};
            return m->body;
        }
    }
}

int filesCommand(const std::string& op, const ProgramArgs& args)
{
    auto client = programClient(args.session, "sandbench-cli files");
    if (!client) return fail(client.error(), kUsageError);
    sb::ControlClient& c = **client;
    json request = {{"op", op}};
    sb::putBytes(request, "path", args.path);
    if (op == "get") {
        const bool toStdout = args.target.empty() || args.target == "-";
        std::ofstream out;
        if (!toStdout) {
            out.open(args.target, std::ios::binary | std::ios::trunc);
            if (!out) return fail("cannot write " + args.target + ": " + std::strerror(errno));
        }
        for (std::uint64_t offset = 0;;) {
            json read = request;
            read["op"] = "read";
            read["offset"] = offset;
            auto reply = fileRequest(c, read);
            if (!reply) return fail(args.path + ": " + reply.error().describe());
            auto data = sb::fromBase64(reply->value("data_base64", std::string()));
            if (!data) return fail("a malformed reply from the supervisor");
            if (toStdout)
                std::fwrite(data->data(), 1, data->size(), stdout);
            else
                out.write(data->data(), static_cast<std::streamsize>(data->size()));
            offset += data->size();
            if (reply->value("eof", true) || data->empty()) break;
        }
        return 0;
    }
    if (op == "put") {
        std::string data;
        if (args.path == "-") {
            char buf[65536];
            for (ssize_t n; (n = ::read(0, buf, sizeof buf)) > 0;)
                data.append(buf, static_cast<std::size_t>(n));
        } else {
            std::ifstream in(args.path, std::ios::binary);
            if (!in) return fail("cannot read " + args.path + ": " + std::strerror(errno));
            std::ostringstream all;
            all << in.rdbuf();
            data = std::move(all).str();
        }
        json write = {{"op", "write"}};
        sb::putBytes(write, "path", args.target);
        if (!args.mode.empty()) write["mode"] = std::stoul(args.mode, nullptr, 8);
        // The first part replaces the file atomically; a file beyond one request's size is
        // appended to in further parts.
        for (std::size_t at = 0; at == 0 || at < data.size();) {
            const std::size_t n = std::min(data.size() - at, sb::proto::kMaxFileChunk);
            write["data_base64"] = sb::base64(std::string_view(data).substr(at, n));
            if (at > 0) write["append"] = true;
            auto reply = fileRequest(c, write);
            if (!reply) return fail(args.target + ": " + reply.error().describe());
            at += n;
            if (data.empty()) break;
        }
        return 0;
    }
    if (op == "list") request["recursive"] = args.recursive;
    if (op == "mkdir") request["parents"] = args.parents;
    if (op == "remove") request["recursive"] = args.recursive;
    if (op == "rename") sb::putBytes(request, "to", args.target);
    auto reply = fileRequest(c, request);
    if (!reply) return fail(args.path + ": " + reply.error().describe());
    if (args.json || op == "stat") {
        std::printf("%s\n", sb::dumpJson(*reply, 2).c_str());
    } else if (op == "list") {
        for (const auto& e : (*reply)["entries"]) {
            const std::string type = e.value("type", "");
            const std::string path = sb::getBytes(e, "path").value_or("?");
            if (type == "directory")
                std::printf("d %s/\n", path.c_str());
            else if (type == "symlink")
                std::printf("l %s -> %s\n", path.c_str(),
                            sb::getBytes(e, "target").value_or("").c_str());
            else
                std::printf("%c %s (%llu bytes)\n", type == "file" ? 'f' : 'o', path.c_str(),
                            e.value("size", 0ULL));
        }
        if (reply->value("truncated", false))
            std::fprintf(stderr, "sandbench: the list stops here (its size bound)\n");
    }
    return 0;
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
    start->add_option("--resume", args->resume,
                      "Go on with an ended session's changes (they move to this session)");
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
    exec->add_option("--env,-e", args->env, "NAME=VALUE for its environment (repeatable)");
    exec->add_option("command", args->command, "The command and its arguments, after --")
        ->required();
    exec->callback([args] { exitWith(execCommand(*args)); });

    CLI::App* files = app.add_subcommand(
        "files", "Read and write a running session's files as its sandbox sees them");
    files->require_subcommand(1);
    struct Op {
        const char* name;
        const char* op;
        const char* help;
        const char* path;
        const char* target; // second positional, or nullptr
    };
    static const Op ops[] = {
        {"ls", "list", "List a folder (-R: all the way down)", "Folder (default: the workspace)",
         nullptr},
        {"get", "get", "Copy a file out (to FILE, or - for stdout)", "File in the sandbox",
         "Local file"},
        {"put", "put", "Copy a file in, replacing the target atomically",
         "Local file (- for stdin)", "Path in the sandbox"},
        {"stat", "stat", "What is at a path", "Path", nullptr},
        {"mkdir", "mkdir", "Make a folder (-p: with its parents)", "Folder", nullptr},
        {"rm", "remove", "Remove a file (-r: a folder and what is in it)", "Path", nullptr},
        {"mv", "rename", "Rename or move", "Path", "New path"},
    };
    for (const Op& o : ops) {
        CLI::App* cmd = files->add_subcommand(o.name, o.help);
        cmd->add_option("session", args->session, "Session id")->required();
        auto* path = cmd->add_option("path", args->path, o.path);
        if (std::string(o.name) != "ls")
            path->required();
        else
            args->path = ".";
        if (o.target) {
            auto* target = cmd->add_option("target", args->target, o.target);
            if (std::string(o.name) != "get") target->required();
        }
        if (std::string(o.name) == "ls" || std::string(o.name) == "rm")
            cmd->add_flag(std::string(o.name) == "ls" ? "-R,--recursive" : "-r,--recursive",
                          args->recursive, "All the way down");
        if (std::string(o.name) == "mkdir")
            cmd->add_flag("-p,--parents", args->parents, "Make parents");
        if (std::string(o.name) == "put")
            cmd->add_option("--mode", args->mode, "Octal mode (0644)");
        if (std::string(o.name) == "ls") cmd->add_flag("--json", args->json, "Output as JSON");
        const std::string op = o.op;
        cmd->callback([args, op] { exitWith(filesCommand(op, *args)); });
    }
}

} // namespace sbcli
