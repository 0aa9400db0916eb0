#include "remote/RemoteHost.h"

#include "base/SignalFreeThread.h"
#include "base/Terminal.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <future>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using nlohmann::json;

namespace sb::remote {

namespace {

constexpr std::size_t kStderrKept = 8 * 1024;

void setNonBlocking(int fd)
{
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

UniqueFd duplicate(int fd)
{
    return UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

// Waits up to `timeoutMs` for `pid`, then ends it; its status as a shell gives it.
int reap(pid_t pid, int timeoutMs)
{
    int wstatus = 0;
    for (int waited = 0;; waited += 10) {
        const pid_t got = ::waitpid(pid, &wstatus, WNOHANG);
        if (got == pid) break;
        if (got < 0 && errno != EINTR) return -1;
        if (waited >= timeoutMs) {
            ::kill(pid, SIGTERM);
            if (::waitpid(pid, &wstatus, 0) != pid) return -1;
            break;
        }
        ::usleep(10000);
    }
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

} // namespace

Result<std::unique_ptr<RemoteHost>> RemoteHost::dial(const SshTarget& target,
                                                     const DialOptions& options)
{
    std::unique_ptr<RemoteHost> host(new RemoteHost);
    host->m_host = target.url;
    if (auto e = host->start(sshCommand(target, options), options.connectTimeoutMs)) return *e;
    return host;
}

Result<std::unique_ptr<RemoteHost>> RemoteHost::dialCommand(const std::vector<std::string>& argv,
                                                            const std::string& hostName,
                                                            int timeoutMs)
{
    std::unique_ptr<RemoteHost> host(new RemoteHost);
    host->m_host = hostName;
    if (auto e = host->start(argv, timeoutMs)) return *e;
    return host;
}

Status RemoteHost::start(const std::vector<std::string>& argv, int timeoutMs)
{
    if (argv.empty()) return inputError("no program to reach " + m_host + " with");
    auto toRemote = makePipe(O_CLOEXEC), fromRemote = makePipe(O_CLOEXEC),
         errors = makePipe(O_CLOEXEC);
    if (!toRemote) return toRemote.error();
    if (!fromRemote) return fromRemote.error();
    if (!errors) return errors.error();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toRemote->read.get(), 0);
    posix_spawn_file_actions_adddup2(&actions, fromRemote->write.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, errors->write.get(), 2);
    // ssh gets the default signal mask and dispositions, not this program's.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawnp(&m_pid, args[0], &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) {
        m_pid = -1;
        return sysError("start " + argv[0] + " to reach " + m_host +
                            (argv[0] == "ssh" ? " (is openssh-client installed?)" : ""),
                        rc);
    }
    // ssh's ends are its own now: the stream ends here when ssh exits.
    toRemote->read.reset();
    fromRemote->write.reset();
    errors->write.reset();
    m_toRemote = std::move(toRemote->write);
    m_fromRemote = std::move(fromRemote->read);
    m_stderr = std::move(errors->read);
    for (int fd : {m_toRemote.get(), m_fromRemote.get(), m_stderr.get()})
        setNonBlocking(fd);
    m_loop = std::make_unique<MuxLoop>(m_fromRemote.get(), m_toRemote.get());
    m_loop->onControl = [this](const json& message) { onControl(message); };
    m_loop->watch(m_stderr.get(), [this] { readStderr(); });
    m_loop->sendControl({{"op", "hello"}, {"version", kDialVersion}, {"client", "sandbench-cli"}});
    auto thread = startThread("the dial stream's thread", [this] {
        Status status = m_loop->run();
        bool closing;
        {
            std::lock_guard lock(m_mutex);
            closing = m_closing;
        }
        int sshStatus = -1;
        if (!closing) {
            // The other end is gone: ssh is exiting, and says why on stderr.
            sshStatus = reap(m_pid, 5000);
            m_pid = -1;
            readStderr();
        }
        std::lock_guard lock(m_mutex);
        m_ended = true;
        m_loopStatus = status;
        m_sshStatus = sshStatus;
        m_changed.notify_all();
    });
    if (!thread) return thread.error();
    m_thread = std::move(*thread);
    std::unique_lock lock(m_mutex);
    const bool done = m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [this] {
        return m_welcomed || m_ended || !m_refusal.empty();
    });
    if (m_welcomed) return {};
    lock.unlock();
    if (!done) {
        std::string said;
        {
            std::lock_guard again(m_mutex);
            said = m_sshStderr;
        }
        return Error{ErrorCode::System, ETIMEDOUT,
                     "no answer from " + m_host + " within " + std::to_string(timeoutMs / 1000) +
                         " s" + (said.empty() ? "" : " (ssh: " + said + ")")};
    }
    if (!m_refusal.empty()) return inputError(m_host + " refused the connection: " + m_refusal);
    return lastError();
}

RemoteHost::~RemoteHost()
{
    if (m_loop && m_thread.joinable()) {
        {
            std::lock_guard lock(m_mutex);
            m_closing = true;
        }
        m_loop->stop();
        m_thread.join();
    }
    m_toRemote.reset(); // the host's dial-stdio sees the stream end, and ssh exits
    if (m_pid > 0) reap(m_pid, 3000);
}

bool RemoteHost::connected() const
{
    std::lock_guard lock(m_mutex);
    return m_welcomed && !m_ended;
}

Error RemoteHost::lastError() const
{
    std::lock_guard lock(m_mutex);
    return lastErrorLocked();
}

Error RemoteHost::lastErrorLocked() const
{
    if (!m_refusal.empty()) return inputError(m_host + ": " + m_refusal);
    if (!m_ended) return Error{ErrorCode::Internal, 0, "the connection to " + m_host + " is up"};
    if (m_loopStatus && m_sshStatus < 0)
        return Error{m_loopStatus->code, m_loopStatus->sysErrno,
                     m_host + ": " + m_loopStatus->message};
    return dialFailure(m_host, m_sshStatus, m_sshStderr);
}

void RemoteHost::readStderr()
{
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(m_stderr.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) m_loop->unwatch(m_stderr.get());
            return;
        }
        std::lock_guard lock(m_mutex);
        m_sshStderr.append(buf, static_cast<std::size_t>(n));
        if (m_sshStderr.size() > kStderrKept)
            m_sshStderr.erase(0, m_sshStderr.size() - kStderrKept);
    }
}

void RemoteHost::onControl(const json& message)
{
    const std::string op = fieldString(message, "op");
    std::lock_guard lock(m_mutex);
    if (op == "welcome") {
        m_welcome = message;
        m_welcomed = true;
    } else if (op == "error") {
        m_refusal = fieldString(message, "message", "an error with no message");
    } else if (op == "reply") {
        if (message.contains("id") && message["id"].is_number_unsigned())
            m_replies[message["id"].get<std::uint64_t>()] = message;
    } else if (op == "exited") {
        m_exits[fieldU32(message, "channel", 0)] =
            static_cast<int>(fieldInt(message, "status", -1));
    }
    m_changed.notify_all();
}

std::uint32_t RemoteHost::nextChannel()
{
    std::lock_guard lock(m_mutex);
    return m_nextChannel++;
}

Result<json> RemoteHost::request(json message, int timeoutMs, std::function<void()> before)
{
    std::uint64_t id;
    {
        std::lock_guard lock(m_mutex);
        if (m_ended) return lastErrorLocked();
        id = m_nextRequest++;
    }
    message["id"] = id;
    m_loop->post([this, message, before = std::move(before)] {
        if (before) before();
        m_loop->sendControl(message);
    });
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                       [&] { return m_ended || m_replies.count(id) != 0; });
    auto it = m_replies.find(id);
    if (it == m_replies.end()) {
        if (m_ended) return lastErrorLocked();
        return Error{ErrorCode::System, ETIMEDOUT,
                     "no answer from " + m_host + " to " + message.value("op", "") + " within " +
                         std::to_string(timeoutMs / 1000) + " s"};
    }
    json reply = std::move(it->second);
    m_replies.erase(it);
    if (!reply.value("ok", json(false)).is_boolean() || !reply.value("ok", false))
        return Error{ErrorCode::NotFound, 0,
                     m_host + ": " + fieldString(reply, "error", "refused")};
    return reply;
}

Result<std::vector<std::string>> RemoteHost::listSessions(int timeoutMs)
{
    auto reply = request({{"op", "list"}}, timeoutMs, {});
    if (!reply) return reply.error();
    std::vector<std::string> ids;
    for (const json& id : reply->value("sessions", json::array()))
        if (id.is_string()) ids.push_back(id.get<std::string>());
    return ids;
}

Result<UniqueFd> RemoteHost::openSession(const std::string& id, int timeoutMs)
{
    auto pair = makeSocketPair(SOCK_STREAM | SOCK_CLOEXEC);
    if (!pair) return pair.error();
    setNonBlocking(pair->one.get());
    const std::uint32_t channel = nextChannel();
    auto ours = std::make_shared<UniqueFd>(std::move(pair->one));
    auto reply =
        request({{"op", "open"}, {"channel", channel}, {"session", id}}, timeoutMs,
                [this, channel, ours] { m_loop->addSocketChannel(channel, std::move(*ours)); });
    if (!reply) {
        m_loop->post([this, channel] { m_loop->dropChannel(channel); });
        return reply.error();
    }
    return std::move(pair->other);
}

Result<std::unique_ptr<ControlClient>> RemoteHost::connectSession(const std::string& id,
                                                                  const std::string& clientName,
                                                                  proto::Role role, int timeoutMs)
{
    auto stream = openSession(id, timeoutMs);
    if (!stream) return stream.error();
    return ControlClient::connectStream(std::move(*stream), clientName, role, timeoutMs);
}

Result<int> RemoteHost::runCommand(const std::vector<std::string>& args)
{
    const std::uint32_t io = nextChannel(), err = nextChannel();
    const bool tty = ::isatty(0) && ::isatty(1);
    json message = {{"op", "run"}, {"channel", io}, {"argv", args}};
    std::optional<RawMode> raw;
    UniqueFd winch;
    sigset_t mask, previous;
    sigemptyset(&mask);
    sigaddset(&mask, SIGWINCH);
    if (tty) {
        auto size = windowSize(1);
        const char* term = std::getenv("TERM");
        message["tty"] = {{"rows", size ? size->first : 24},
                          {"cols", size ? size->second : 80},
                          {"term", term ? term : "xterm-256color"}};
        ::pthread_sigmask(SIG_BLOCK, &mask, &previous);
        winch.reset(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
        raw.emplace(0);
    } else {
        message["stderr_channel"] = err;
    }
    auto in = std::make_shared<UniqueFd>(duplicate(0));
    auto out = std::make_shared<UniqueFd>(duplicate(1));
    auto errOut = std::make_shared<UniqueFd>(duplicate(2));
    const int winchFd = winch.get();
    auto reply = request(message, 30000, [this, io, err, tty, in, out, errOut, winchFd] {
        m_loop->addChannel(io, std::move(*in), std::move(*out));
        if (!tty) m_loop->addChannel(err, UniqueFd(), std::move(*errOut));
        if (winchFd >= 0)
            m_loop->watch(winchFd, [this, io, winchFd] {
                signalfd_siginfo info{};
                while (::read(winchFd, &info, sizeof info) == sizeof info) {
                }
                if (auto size = windowSize(1))
                    m_loop->sendControl({{"op", "resize"},
                                         {"channel", io},
                                         {"rows", size->first},
                                         {"cols", size->second}});
            });
    });
    std::optional<int> status;
    if (reply) {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_ended || m_exits.count(io) != 0; });
        if (auto it = m_exits.find(io); it != m_exits.end()) status = it->second;
    }
    // The loop lets go of this process's stdin and stdout (and the signal) before we return.
    auto released = std::make_shared<std::promise<void>>();
    auto done = released->get_future();
    m_loop->post([this, io, err, winchFd, released] {
        m_loop->dropChannel(io);
        m_loop->dropChannel(err);
        if (winchFd >= 0) m_loop->unwatch(winchFd);
        released->set_value();
    });
    while (connected() &&
           done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    }
    raw.reset();
    if (tty) ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (!reply) return reply.error();
    if (!status) {
        Error e = lastError();
        e.message = "the connection ended while the command ran: " + e.message;
        return e;
    }
    return *status;
}

Result<RemoteHost::Captured> RemoteHost::capture(const std::vector<std::string>& args,
                                                 int timeoutMs)
{
    auto outPipe = makePipe(O_CLOEXEC), errPipe = makePipe(O_CLOEXEC);
    if (!outPipe) return outPipe.error();
    if (!errPipe) return errPipe.error();
    setNonBlocking(outPipe->write.get());
    setNonBlocking(errPipe->write.get());
    const std::uint32_t io = nextChannel(), err = nextChannel();
    auto outWrite = std::make_shared<UniqueFd>(std::move(outPipe->write));
    auto errWrite = std::make_shared<UniqueFd>(std::move(errPipe->write));
    // No input: the commands it is for read none.
    auto reply = request({{"op", "run"}, {"channel", io}, {"argv", args}, {"stderr_channel", err}},
                         timeoutMs, [this, io, err, outWrite, errWrite] {
                             m_loop->addChannel(io, UniqueFd(), std::move(*outWrite));
                             m_loop->addChannel(err, UniqueFd(), std::move(*errWrite));
                         });
    if (!reply) {
        m_loop->post([this, io, err] {
            m_loop->dropChannel(io);
            m_loop->dropChannel(err);
        });
        return reply.error();
    }
    // Both pipes to their end (the loop closes them when the host ends the channel, or the
    // stream ends), then the exit status.
    Captured captured;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    pollfd fds[2] = {{outPipe->read.get(), POLLIN, 0}, {errPipe->read.get(), POLLIN, 0}};
    std::string* sinks[2] = {&captured.out, &captured.err};
    int open = 2;
    while (open > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) break;
        const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            char buf[16384];
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                --open;
            }
        }
    }
    std::unique_lock lock(m_mutex);
    m_changed.wait_until(lock, deadline, [&] { return m_ended || m_exits.count(io) != 0; });
    auto it = m_exits.find(io);
    if (it == m_exits.end()) {
        lock.unlock();
        m_loop->post([this, io, err] {
            m_loop->dropChannel(io);
            m_loop->dropChannel(err);
        });
        if (!connected()) {
            Error e = lastError();
            e.message = "the connection ended while the command ran: " + e.message;
            return e;
        }
        return Error{ErrorCode::System, ETIMEDOUT,
                     "sandbench-cli " + (args.empty() ? std::string() : args[0]) + " on " + m_host +
                         " did not finish within " + std::to_string(timeoutMs / 1000) + " s"};
    }
    captured.status = it->second;
    m_exits.erase(it);
    return captured;
}

} // namespace sb::remote
