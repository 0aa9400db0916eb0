#include "DemoServer.h"

#include <arpa/inet.h>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sbcli {
namespace {

constexpr int kHeadTimeoutMs = 3000;
constexpr std::size_t kMaxHead = 16 * 1024;

sb::Result<int> listenOnLoopback(std::uint16_t& port)
{
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return sb::sysError("socket for the demo server");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        sb::Error e = sb::sysError("listen on 127.0.0.1 for the demo server");
        ::close(fd);
        return e;
    }
    port = ntohs(addr.sin_port);
    return fd;
}

// Reads until the end of the request head (or a timeout, or too much): the demo's clients send
// small GET/POST requests, and what they send beyond the head is not needed to answer.
bool readHead(int fd)
{
    std::string head;
    char buffer[2048];
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxHead) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, kHeadTimeoutMs) <= 0) return false;
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0) return false;
        head.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
}

void writeAll(int fd, const std::string& data)
{
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

// One request a connection, answered in turn: the demo sends a handful. True when a request
// arrived.
bool answer(int listener, const std::string& body)
{
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return false;
    const bool request = readHead(fd);
    if (request)
        writeAll(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    ::close(fd);
    return request;
}

// The child: serves until `control` reaches end of file (the parent closed it, or died), then
// writes "TEAM COLLECTOR" to `results`.
[[noreturn]] void serve(int team, int collector, int control, int results)
{
    DemoServer::Counts counts;
    for (;;) {
        pollfd fds[3] = {{team, POLLIN, 0}, {collector, POLLIN, 0}, {control, POLLIN, 0}};
        if (::poll(fds, 3, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[2].revents != 0) break;
        if ((fds[0].revents & POLLIN) != 0 &&
            answer(team, "Team guidelines: every fix comes with a test; run the whole suite "
                         "before you push.\n"))
            ++counts.team;
        if ((fds[1].revents & POLLIN) != 0 &&
            answer(collector, "Collector: thank you for the source code.\n"))
            ++counts.collector;
    }
    const std::string line = std::to_string(counts.team) + " " + std::to_string(counts.collector);
    (void)!::write(results, line.data(), line.size());
    ::_exit(0);
}

} // namespace

sb::Result<std::unique_ptr<DemoServer>> DemoServer::start()
{
    std::unique_ptr<DemoServer> server(new DemoServer);
    auto team = listenOnLoopback(server->m_teamPort);
    if (!team) return team.error();
    auto collector = listenOnLoopback(server->m_collectorPort);
    if (!collector) {
        ::close(*team);
        return collector.error();
    }
    int control[2], results[2];
    if (::pipe2(control, O_CLOEXEC) != 0) return sb::sysError("pipe for the demo server");
    if (::pipe2(results, O_CLOEXEC) != 0) return sb::sysError("pipe for the demo server");
    const pid_t parent = ::getpid();
    pid_t child = ::fork();
    if (child < 0) return sb::sysError("fork the demo server");
    if (child == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(0);
        // Ctrl-C in the demo's terminal is the agent's, not the server's.
        std::signal(SIGINT, SIG_IGN);
        std::signal(SIGQUIT, SIG_IGN);
        ::close(control[1]);
        ::close(results[0]);
        serve(*team, *collector, control[0], results[1]);
    }
    for (int fd : {*team, *collector, control[0], results[1]})
        ::close(fd);
    server->m_child = child;
    server->m_control = control[1];
    server->m_results = results[0];
    return server;
}

DemoServer::Counts DemoServer::stop()
{
    Counts counts;
    if (m_child < 0) return counts;
    ::close(m_control);
    m_control = -1;
    std::string text;
    char buffer[64];
    ssize_t n;
    while ((n = ::read(m_results, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
    ::close(m_results);
    m_results = -1;
    while (::waitpid(m_child, nullptr, 0) < 0 && errno == EINTR) {
    }
    m_child = -1;
    std::sscanf(text.c_str(), "%d %d", &counts.team, &counts.collector);
    return counts;
}

DemoServer::~DemoServer()
{
    (void)stop();
}

} // namespace sbcli
