#include "sandbox/ExecHelper.h"

#include "base/Bytes.h"
#include "sandbox/ExecHelperFiles.h"
#include "sandbox/SandboxChannel.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace sb {
namespace {

using json = nlohmann::json;

// Set in the errno a child reports when it could not enter its working folder.
constexpr int kCwdFailed = 1 << 20;

// What is wrong with a process's working folder, named: a chdir failing in the child would read
// as the program's own failure ("command not found" for a folder that does not exist).
std::optional<std::string> workingFolderProblem(const std::string& cwd)
{
    if (cwd.empty()) return std::nullopt;
    const std::string named = "working folder '" + cwd + "'";
    struct stat st {};
    if (::stat(cwd.c_str(), &st) != 0)
        return errno == ENOENT ? named + " does not exist" : named + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return named + " is not a folder";
    if (::access(cwd.c_str(), X_OK) != 0) return named + ": " + std::strerror(errno);
    return std::nullopt;
}

struct Spawned {
    pid_t pid = -1;
    int execErrors = -1; // read end: execve's errno, or EOF when the exec went through
};

class Helper {
  public:
    Helper(int channel, const SandboxConfig& config)
        : m_channel(channel), m_files(config.projectInside)
    {
    }
    [[noreturn]] void run();

  private:
    void onRequest();
    void onChildren();
    void onExecError(std::uint64_t id, Spawned& s);
    void reply(const json& body, const std::vector<int>& fds = {});
    void spawn(std::uint64_t id, const json& request, const std::vector<UniqueFd>& fds);

    int m_channel;
    int m_signals = -1;
    std::map<std::uint64_t, Spawned> m_spawned;
    Files m_files;
};

void Helper::reply(const json& body, const std::vector<int>& fds)
{
    // A supervisor that went away leaves nothing to tell; init's end takes us along.
    (void)sendChannelMessage(m_channel, dumpJson(body), fds);
}

[[noreturn]] void Helper::run()
{
    sigset_t children;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &children, nullptr);
    m_signals = ::signalfd(-1, &children, SFD_CLOEXEC | SFD_NONBLOCK);
    std::vector<pollfd> fds;
    std::vector<std::uint64_t> ids;
    for (;;) {
        fds = {{m_channel, POLLIN, 0}, {m_signals, POLLIN, 0}};
        ids.clear();
        for (auto& [id, s] : m_spawned)
            if (s.execErrors >= 0) {
                fds.push_back({s.execErrors, POLLIN, 0});
                ids.push_back(id);
            }
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) continue;
            ::_exit(1);
        }
        for (std::size_t i = 2; i < fds.size(); ++i)
            if (fds[i].revents != 0)
                if (auto it = m_spawned.find(ids[i - 2]); it != m_spawned.end())
                    onExecError(it->first, it->second);
        if (fds[1].revents & POLLIN) onChildren();
        if (fds[0].revents & (POLLHUP | POLLERR) && !(fds[0].revents & POLLIN)) ::_exit(0);
        if (fds[0].revents & POLLIN) onRequest();
    }
}

void Helper::onExecError(std::uint64_t id, Spawned& s)
{
    int err = 0;
    ssize_t n = ::read(s.execErrors, &err, sizeof err);
    ::close(s.execErrors);
    s.execErrors = -1;
    if (n == sizeof err)
        reply({{"op", "exec_failed"},
               {"id", id},
               {"errno", err & ~kCwdFailed},
               {"cwd", (err & kCwdFailed) != 0}});
}

void Helper::onChildren()
{
    signalfd_siginfo info;
    while (::read(m_signals, &info, sizeof info) == sizeof info) {
    }
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
        for (auto it = m_spawned.begin(); it != m_spawned.end(); ++it) {
            if (it->second.pid != pid) continue;
            // What execve said comes first: its pipe is read before the exit is reported.
            if (it->second.execErrors >= 0) onExecError(it->first, it->second);
            reply({{"op", "exited"}, {"id", it->first}, {"status", status}});
            m_spawned.erase(it);
            break;
        }
    }
}

void Helper::onRequest()
{
    ChannelMessage m = receiveChannelMessage(m_channel, kMaxChannelMessage);
    if (m.text.empty() && !m.truncated) {
        if (errno == EAGAIN) return;
        ::_exit(0); // the supervisor closed the channel
    }
    if (m.truncated) {
        reply({{"ok", false}, {"errno", E2BIG}, {"message", "request too large"}});
        return;
    }
    json request = json::parse(m.text, nullptr, false);
    std::uint64_t id = 0;
    if (request.is_object() && request.contains("id") && request["id"].is_number_unsigned())
        id = request["id"].get<std::uint64_t>();
    std::string op = request.is_object() ? request.value("op", "") : "";
    if (op == "spawn") {
        spawn(id, request, m.fds);
    } else if (op == "signal") {
        auto it = m_spawned.find(id);
        int sig = request.value("signal", SIGTERM);
        if (it != m_spawned.end() && ::kill(-it->second.pid, sig) != 0)
            (void)::kill(it->second.pid, sig);
    } else {
        std::vector<int> out;
        json answer = m_files.handle(op, request, out);
        answer["id"] = id;
        reply(answer, out);
        for (int fd : out)
            ::close(fd);
    }
}

// Opened inside the sandbox's devpts, so the process sees a terminal that means something.
bool openPty(const json& size, int& master, int& slave)
{
    master = ::open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return false;
    int unlock = 0;
    if (::ioctl(master, TIOCSPTLCK, &unlock) != 0) return false;
    slave = ::ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0) return false;
    winsize ws{size.value("rows", static_cast<unsigned short>(24)),
               size.value("cols", static_cast<unsigned short>(80)), 0, 0};
    ::ioctl(master, TIOCSWINSZ, &ws);
    return true;
}

[[noreturn]] void execChild(const std::vector<std::string>& argv,
                            const std::vector<std::string>& env, const std::string& cwd,
                            const int stdio[3], int errors, bool tty)
{
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig)
        ::signal(sig, SIG_DFL);
    auto fail = [&errors](int err) {
        (void)!::write(errors, &err, sizeof err);
        ::_exit(err == ENOENT ? 127 : 126);
    };
    if (::setsid() < 0) fail(errno);
    int moved[3], keep = ::fcntl(errors, F_DUPFD_CLOEXEC, 10);
    for (int i = 0; i < 3; ++i)
        if ((moved[i] = ::fcntl(stdio[i], F_DUPFD_CLOEXEC, 10)) < 0) fail(errno);
    for (int i = 0; i < 3; ++i)
        if (::dup2(moved[i], i) < 0) fail(errno);
    errors = ::dup3(keep, 3, O_CLOEXEC) < 0 ? keep : 3;
    ::close_range(4, ~0U, 0);
    if (tty && ::ioctl(0, TIOCSCTTY, 0) != 0) fail(errno);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) fail(errno | kCwdFailed);
    // The supervisor reads the first exec's arguments from this process's memory.
    if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) fail(errno);
    std::vector<char*> args, vars;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& v : env)
        vars.push_back(const_cast<char*>(v.c_str()));
    vars.push_back(nullptr);
    environ = vars.data(); // execvp searches the process's PATH
    ::execvp(args[0], args.data());
    fail(errno);
    ::_exit(126); // fail() does not return
}

void Helper::spawn(std::uint64_t id, const json& request, const std::vector<UniqueFd>& fds)
{
    auto failed = [&](int err, const std::string& what) {
        reply({{"op", "spawn_failed"},
               {"id", id},
               {"errno", err},
               {"message", what + ": " + std::strerror(err)}});
    };
    auto argv = getBytesList(request, "argv");
    auto env = getBytesList(request, "env");
    auto cwd = getBytes(request, "cwd");
    if (!argv || argv->empty() || !env || !cwd) return failed(EINVAL, "malformed spawn request");
    if (auto problem = workingFolderProblem(*cwd))
        return reply(
            {{"op", "spawn_failed"}, {"id", id}, {"errno", ENOENT}, {"message", *problem}});
    const bool tty = request.contains("pty");
    UniqueFd master, slave;
    if (tty) {
        int m = -1, s = -1;
        const bool opened = openPty(request["pty"], m, s);
        const int err = errno;
        master.reset(m);
        slave.reset(s);
        if (!opened) return failed(err, "open a terminal");
    } else if (fds.size() != 3) {
        return failed(EINVAL, "spawn without its three descriptors");
    }
    auto errors = makePipe();
    if (!errors) return failed(errors.error().sysErrno, "create a pipe");
    const int stdio[3] = {tty ? slave.get() : fds[0].get(), tty ? slave.get() : fds[1].get(),
                          tty ? slave.get() : fds[2].get()};
    pid_t pid = ::fork();
    if (pid == 0) {
        errors->read.reset();
        execChild(*argv, *env, *cwd, stdio, errors->write.get(), tty);
    }
    const int err = errno;
    if (pid < 0) return failed(err, "fork");
    m_spawned[id] = Spawned{pid, errors->read.release()};
    std::vector<int> back;
    if (master) back.push_back(master.get());
    reply({{"op", "spawned"}, {"id", id}, {"pid", pid}}, back);
}

} // namespace

[[noreturn]] void runExecHelper(int channel, const SandboxConfig& config)
{
    Helper(channel, config).run();
}

} // namespace sb
