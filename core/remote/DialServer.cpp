#include "remote/DialServer.h"

#include "base/Paths.h"
#include "base/Session.h"
#include "control/Protocol.h"
#include "remote/MuxLoop.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace sb::remote {

namespace {

Status setNonBlocking(int fd)
{
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
        return sysError("make a descriptor non-blocking");
    return {};
}

// A relayed command: its process, the descriptor that says when it exited, its channels.
struct Command {
    pid_t pid = -1;
    UniqueFd pidfd;
    std::uint32_t io = 0, err = 0; // err is 0 with a terminal (one stream)
    int ttyMaster = -1;            // borrowed from the io channel
};

class DialServer {
  public:
    DialServer(int in, int out, const DialServerOptions& options)
        : m_loop(in, out), m_options(options)
    {
        m_loop.onControl = [this](const json& message) { onControl(message); };
    }

    Status run()
    {
        Status status = m_loop.run();
        for (auto& [channel, command] : m_commands)
            ::kill(command.pid, SIGHUP);
        return status;
    }

  private:
    void reply(const json& request, json body)
    {
        body["op"] = "reply";
        body["id"] = request.value("id", json());
        if (!body.contains("ok")) body["ok"] = true;
        m_loop.sendControl(body);
    }
    void refuse(const json& request, const std::string& message)
    {
        reply(request, {{"ok", false}, {"error", message}});
    }

    void onControl(const json& message)
    {
        const std::string op = fieldString(message, "op");
        if (!m_welcomed && op != "hello") {
            m_loop.sendControl({{"op", "error"}, {"message", "the dial stream starts with hello"}});
            m_loop.stop();
            return;
        }
        if (op == "hello") return hello(message);
        if (op == "list") return list(message);
        if (op == "open") return open(message);
        if (op == "run") return run(message);
        if (op == "resize") return resize(message);
        refuse(message, "unknown op \"" + op + "\" (this Sandbench speaks dial protocol " +
                            std::to_string(kDialVersion) + ")");
    }

    void hello(const json& message)
    {
        const auto version = fieldU32(message, "version", 0);
        if (version < kOldestDialVersion) {
            m_loop.sendControl(
                {{"op", "error"},
                 {"message", "this Sandbench (" + m_options.version + ") speaks dial protocol " +
                                 std::to_string(kOldestDialVersion) + " to " +
                                 std::to_string(kDialVersion) + "; the client speaks " +
                                 std::to_string(version)}});
            m_loop.stop();
            return;
        }
        m_welcomed = true;
        m_loop.sendControl({{"op", "welcome"},
                            {"version", std::min(version, kDialVersion)},
                            {"sandbench", m_options.version},
                            {"control_version", proto::kVersion},
                            {"features", {"list", "open", "run"}}});
    }

    void list(const json& request)
    {
        json ids = json::array();
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(runtimeDirectory(), ec)) {
            if (entry.path().extension() != ".sock") continue;
            const std::string id = entry.path().stem().string();
            if (!isValidSessionId(id)) continue;
            auto session = loadSession(id);
            if (session && sessionIsLive(*session)) ids.push_back(id);
        }
        std::sort(ids.begin(), ids.end());
        reply(request, {{"sessions", ids}});
    }

    // A channel number the client chose: not the control channel, not one in use.
    std::optional<std::uint32_t> newChannel(const json& request, const char* key)
    {
        const auto channel = fieldU32(request, key, 0);
        if (channel == kControlChannel || m_loop.hasChannel(channel)) {
            refuse(request, std::string("\"") + key + "\" must be a channel not in use");
            return std::nullopt;
        }
        return channel;
    }

    void open(const json& request)
    {
        auto channel = newChannel(request, "channel");
        if (!channel) return;
        const std::string id = fieldString(request, "session");
        if (!isValidSessionId(id)) return refuse(request, "\"" + id + "\" is no session id");
        const fs::path path = proto::socketPath(id);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (path.native().size() >= sizeof addr.sun_path)
            return refuse(request, "the socket path " + path.string() + " is too long");
        std::memcpy(addr.sun_path, path.c_str(), path.native().size() + 1);
        UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!fd) return refuse(request, sysError("socket").describe());
        if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
            if (errno == ENOENT || errno == ECONNREFUSED)
                return refuse(request, "no running session " + id + " on this host");
            return refuse(request, sysError("connect to " + path.string()).describe());
        }
        if (auto e = setNonBlocking(fd.get())) return refuse(request, e->describe());
        m_loop.addSocketChannel(*channel, std::move(fd));
        reply(request, json::object());
    }

    void run(const json& request)
    {
        auto io = newChannel(request, "channel");
        if (!io) return;
        const json argv = request.value("argv", json());
        if (!argv.is_array()) return refuse(request, "\"argv\" must be an array of strings");
        std::vector<std::string> args;
        for (const json& a : argv)
            if (a.is_string()) args.push_back(a.get<std::string>());
        if (args.size() != argv.size())
            return refuse(request, "\"argv\" must be an array of strings");
        if (!args.empty() && args[0] == "dial-stdio")
            return refuse(request, "dial-stdio does not run inside a dial stream");
        const json tty = request.value("tty", json());
        std::uint32_t err = 0;
        if (!tty.is_object()) {
            auto errChannel = newChannel(request, "stderr_channel");
            if (!errChannel || *errChannel == *io) {
                if (errChannel) refuse(request, "\"stderr_channel\" must differ from \"channel\"");
                return;
            }
            err = *errChannel;
        }
        auto started =
            tty.is_object() ? startOnTerminal(args, tty, *io) : startOnPipes(args, *io, err);
        if (!started) return refuse(request, started.error().describe());
        Command command = std::move(*started);
        command.io = *io;
        command.err = err;
        const int pidfd = command.pidfd.get();
        const std::uint32_t key = *io;
        m_commands[key] = std::move(command);
        m_loop.watch(pidfd, [this, key] { exited(key); });
        reply(request, json::object());
    }

    void resize(const json& message)
    {
        auto it = m_commands.find(fieldU32(message, "channel", 0));
        if (it == m_commands.end() || it->second.ttyMaster < 0) return;
        winsize size{};
        size.ws_row = static_cast<unsigned short>(fieldU32(message, "rows", 24));
        size.ws_col = static_cast<unsigned short>(fieldU32(message, "cols", 80));
        ::ioctl(it->second.ttyMaster, TIOCSWINSZ, &size);
    }

    void exited(std::uint32_t key)
    {
        auto it = m_commands.find(key);
        if (it == m_commands.end()) return;
        int wstatus = 0;
        if (::waitpid(it->second.pid, &wstatus, WNOHANG) <= 0) return;
        const int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        m_loop.unwatch(it->second.pidfd.get());
        // What the command wrote before it exited goes out before its status.
        m_loop.finishChannel(it->second.io);
        if (it->second.err != 0) m_loop.finishChannel(it->second.err);
        m_loop.sendControl({{"op", "exited"}, {"channel", key}, {"status", status}});
        m_commands.erase(it);
    }

    // argv and environment for exec, built before fork: the child only calls exec.
    struct Exec {
        std::vector<std::string> storage;
        std::vector<char*> argv, envp;
    };
    // Fills `e` in place: its pointers point into its own strings.
    void prepare(Exec& e, const std::vector<std::string>& args, const std::string& term)
    {
        e.storage.push_back(m_options.program);
        e.storage.insert(e.storage.end(), args.begin(), args.end());
        const std::size_t argc = e.storage.size();
        for (char** env = environ; *env; ++env) {
            const std::string_view entry(*env);
            // Never dial again from here; the terminal's type is the client's.
            if (entry.starts_with("SANDBENCH_HOST=")) continue;
            if (!term.empty() && entry.starts_with("TERM=")) continue;
            e.storage.emplace_back(entry);
        }
        if (!term.empty()) e.storage.push_back("TERM=" + term);
        for (std::size_t i = 0; i < argc; ++i)
            e.argv.push_back(e.storage[i].data());
        e.argv.push_back(nullptr);
        for (std::size_t i = argc; i < e.storage.size(); ++i)
            e.envp.push_back(e.storage[i].data());
        e.envp.push_back(nullptr);
    }

    static void childExec(const Exec& e)
    {
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGPIPE, SIG_DFL);
        ::signal(SIGXFSZ, SIG_DFL);
        ::execve(e.argv[0], e.argv.data(), e.envp.data());
        _exit(127);
    }

    Result<Command> finishStart(pid_t pid)
    {
        Command command;
        command.pid = pid;
        command.pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
        if (!command.pidfd) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            return sysError("pidfd_open");
        }
        return command;
    }

    Result<Command> startOnPipes(const std::vector<std::string>& args, std::uint32_t io,
                                 std::uint32_t err)
    {
        auto in = makePipe(O_CLOEXEC), out = makePipe(O_CLOEXEC), errPipe = makePipe(O_CLOEXEC);
        if (!in || !out || !errPipe) return sysError("pipe");
        Exec e;
        prepare(e, args, {});
        const pid_t pid = ::fork();
        if (pid < 0) return sysError("fork");
        if (pid == 0) {
            ::dup2(in->read.get(), 0);
            ::dup2(out->write.get(), 1);
            ::dup2(errPipe->write.get(), 2);
            childExec(e);
        }
        for (int fd : {in->write.get(), out->read.get(), errPipe->read.get()})
            (void)setNonBlocking(fd);
        m_loop.addChannel(io, std::move(out->read), std::move(in->write));
        m_loop.addChannel(err, std::move(errPipe->read), UniqueFd());
        return finishStart(pid);
    }

    Result<Command> startOnTerminal(const std::vector<std::string>& args, const json& tty,
                                    std::uint32_t io)
    {
        winsize size{};
        size.ws_row = static_cast<unsigned short>(fieldU32(tty, "rows", 24));
        size.ws_col = static_cast<unsigned short>(fieldU32(tty, "cols", 80));
        int master = -1, slave = -1;
        if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0) return sysError("openpty");
        UniqueFd masterFd(master), slaveFd(slave);
        ::fcntl(master, F_SETFD, FD_CLOEXEC);
        ::fcntl(slave, F_SETFD, FD_CLOEXEC);
        Exec e;
        prepare(e, args, fieldString(tty, "term", "xterm-256color"));
        const pid_t pid = ::fork();
        if (pid < 0) return sysError("fork");
        if (pid == 0) {
            ::setsid();
            ::ioctl(slave, TIOCSCTTY, 0);
            for (int fd = 0; fd <= 2; ++fd)
                ::dup2(slave, fd);
            childExec(e);
        }
        slaveFd.reset();
        (void)setNonBlocking(master);
        UniqueFd writer(::fcntl(master, F_DUPFD_CLOEXEC, 3));
        m_loop.addChannel(io, std::move(masterFd), std::move(writer));
        auto command = finishStart(pid);
        if (command) command->ttyMaster = master;
        return command;
    }

    MuxLoop m_loop;
    DialServerOptions m_options;
    bool m_welcomed = false;
    std::map<std::uint32_t, Command> m_commands; // by io channel
};

} // namespace

Status serveDial(int in, int out, const DialServerOptions& options)
{
    ::signal(SIGPIPE, SIG_IGN);
    if (auto e = setNonBlocking(in)) return e;
    if (auto e = setNonBlocking(out)) return e;
    return DialServer(in, out, options).run();
}

} // namespace sb::remote
