#include "IntegrationSupport.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <random>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sbit {

bool runningAsRoot()
{
    return ::geteuid() == 0;
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

std::string dump(const sbtest::RunResult& r)
{
    return "status " + std::to_string(r.status) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

std::string uniqueToken()
{
    static std::mt19937_64 rng{std::random_device{}()};
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string out;
    for (int i = 0; i < 12; ++i)
        out += alphabet[rng() % (sizeof alphabet - 1)];
    return out;
}

Sandbench::Sandbench()
{
    m_home = m_root / "home";
    m_workspace = m_root / "workspace";
    m_outside = m_root / "outside";
    m_xdg = m_root / "xdg";
    for (const fs::path& dir : {m_home, m_workspace, m_outside})
        fs::create_directories(dir);
    for (const char* sub : {"state", "data", "runtime"}) {
        fs::create_directories(m_xdg / sub);
        fs::permissions(m_xdg / sub, fs::perms::owner_all, fs::perm_options::replace);
    }
    m_sessions = m_xdg / "state" / "sandbench" / "sessions";
    sbtest::writeFile(m_workspace / "README.md", "# a project\n");
}

std::map<std::string, std::string> Sandbench::env(std::map<std::string, std::string> extra) const
{
    extra["HOME"] = m_home.string();
    extra["XDG_STATE_HOME"] = (m_xdg / "state").string();
    extra["XDG_DATA_HOME"] = (m_xdg / "data").string();
    extra["XDG_RUNTIME_DIR"] = (m_xdg / "runtime").string();
    return extra;
}

sbtest::RunResult Sandbench::cli(const std::vector<std::string>& args, const RunSpec& spec) const
{
    std::vector<std::string> argv = {sbtest::cliPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    return sbtest::run(argv, spec.input, env(spec.env), spec.timeoutSeconds);
}

std::string Sandbench::nextSession() const
{
    return "it" + std::to_string(++m_sessionCount);
}

sbtest::RunResult Sandbench::run(const std::string& session,
                                 const std::vector<std::string>& command, const RunSpec& spec) const
{
    std::vector<std::string> args = {"run", "--workspace", m_workspace.string(), "--session-id",
                                     session};
    args.insert(args.end(), spec.options.begin(), spec.options.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return cli(args, spec);
}

sbtest::RunResult Sandbench::attempt(const std::string& script, const RunSpec& spec) const
{
    return sh(script + "\necho " + kRan, spec);
}

bool Sandbench::waitUntilEnded(const std::string& id, int timeoutMs) const
{
    const fs::path lock = m_sessions / id / "lock";
    for (int waited = 0; waited < timeoutMs; waited += 20) {
        const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) return true; // no session folder, or no lock: nothing runs there
        const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
        ::close(fd);
        if (free) return true;
        ::usleep(20'000);
    }
    return false;
}

fs::path Sandbench::installProbe() const
{
    fs::path copy = m_workspace / "try-syscall";
    if (!fs::exists(copy)) fs::copy_file(sbtest::trySyscallPath(), copy);
    return copy;
}

std::map<std::string, std::string> Sandbench::probe(const std::vector<std::string>& names,
                                                    const RunSpec& spec) const
{
    std::vector<std::string> command = {installProbe().string()};
    command.insert(command.end(), names.begin(), names.end());
    auto result = run(command, spec);
    std::map<std::string, std::string> out;
    std::istringstream in(result.out);
    std::string name, value;
    while (in >> name >> value)
        out[name] = value;
    if (out.size() != names.size())
        out["(run)"] = "status " + std::to_string(result.status) + ": " + result.out + result.err;
    return out;
}

fs::path Sandbench::writePolicy(const std::string& json) const
{
    fs::path file = m_root / ("policy-" + uniqueToken() + ".json");
    sbtest::writeFile(file, json);
    return file;
}

MarkerProcess::MarkerProcess() : m_marker("sbmarker" + uniqueToken())
{
    m_pid = ::fork();
    if (m_pid == 0) {
        ::setpgid(0, 0);
        int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
        ::execl("/bin/sleep", m_marker.c_str(), "300", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Wait until the exec shows in /proc, so a test never looks before the marker exists.
    for (int i = 0; i < 200; ++i) {
        std::string cmdline = sbtest::readFile("/proc/" + std::to_string(m_pid) + "/cmdline");
        if (cmdline.rfind(m_marker, 0) == 0) break;
        ::usleep(10'000);
    }
}

MarkerProcess::~MarkerProcess()
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
}

bool MarkerProcess::alive() const
{
    // WNOWAIT: look without reaping, so the destructor never signals a recycled pid.
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(m_pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0)
        return false;
    return info.si_pid == 0; // nothing to report: still running
}

HostListener HostListener::tcpLoopback()
{
    HostListener l;
    l.m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (l.m_fd < 0 || ::bind(l.m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(l.m_fd, 16) != 0 ||
        ::getsockname(l.m_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        throw std::runtime_error(std::string("tcp listener: ") + std::strerror(errno));
    l.m_port = ntohs(addr.sin_port);
    return l;
}

HostListener HostListener::abstractUnix(const std::string& name)
{
    HostListener l;
    l.m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path + 1, name.data(), name.size()); // sun_path[0] = 0: abstract
    auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    if (l.m_fd < 0 || ::bind(l.m_fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(l.m_fd, 16) != 0)
        throw std::runtime_error(std::string("abstract listener: ") + std::strerror(errno));
    return l;
}

HostListener HostListener::unixPath(const fs::path& path)
{
    HostListener l;
    l.m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string text = path.string();
    if (text.size() >= sizeof addr.sun_path)
        throw std::runtime_error("socket path too long: " + text);
    std::memcpy(addr.sun_path, text.c_str(), text.size() + 1);
    if (l.m_fd < 0 || ::bind(l.m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(l.m_fd, 16) != 0)
        throw std::runtime_error("unix listener " + text + ": " + std::strerror(errno));
    return l;
}

HostListener::HostListener(HostListener&& other) noexcept : m_fd(other.m_fd), m_port(other.m_port)
{
    other.m_fd = -1;
}

HostListener::~HostListener()
{
    if (m_fd >= 0) ::close(m_fd);
}

bool HostListener::acceptPending()
{
    int fd = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return false;
    ::close(fd);
    return true;
}

PtyProgram::PtyProgram(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env, unsigned short rows,
                       unsigned short columns)
{
    winsize ws{rows, columns, 0, 0};
    m_pid = ::forkpty(&m_master, nullptr, nullptr, &ws);
    if (m_pid < 0) throw std::runtime_error(std::string("forkpty: ") + std::strerror(errno));
    if (m_pid == 0) {
        for (const auto& [k, v] : env)
            ::setenv(k.c_str(), v.c_str(), 1);
        ::setenv("TERM", "xterm", 1);
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::fcntl(m_master, F_SETFD, FD_CLOEXEC);
}

PtyProgram::~PtyProgram()
{
    if (m_status < 0 && m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    if (m_master >= 0) ::close(m_master);
}

int PtyProgram::readSome(int timeoutMs)
{
    pollfd pfd{m_master, POLLIN, 0};
    int ready = ::poll(&pfd, 1, timeoutMs);
    if (ready == 0 || (ready < 0 && errno == EINTR)) return 0;
    char buf[4096];
    ssize_t n = ::read(m_master, buf, sizeof buf);
    if (n <= 0) return -1; // EIO: every slave fd is closed
    m_output.append(buf, static_cast<size_t>(n));
    return 1;
}

bool PtyProgram::waitFor(const std::string& text, std::chrono::milliseconds timeout)
{
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_output.find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() > deadline || readSome(100) < 0)
            return m_output.find(text) != std::string::npos;
    }
    return true;
}

void PtyProgram::send(const std::string& keys)
{
    size_t done = 0;
    while (done < keys.size()) {
        ssize_t n = ::write(m_master, keys.data() + done, keys.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<size_t>(n);
    }
}

int PtyProgram::wait(std::chrono::milliseconds timeout)
{
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_status < 0 && m_pid > 0) {
        int status = 0;
        pid_t done = ::waitpid(m_pid, &status, WNOHANG);
        if (done == m_pid) {
            while (readSome(20) > 0) {
            }
            m_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
            m_pid = -1; // reaped: the destructor must not signal a recycled pid
            return -1;
        }
        if (readSome(50) < 0) ::usleep(20'000); // output closed; the exit is near
    }
    return m_status;
}

std::string quote(const std::string& text)
{
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) out.push_back(line);
    }
    return out;
}

} // namespace sbit
