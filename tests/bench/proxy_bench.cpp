// The filtering proxy's cost, as ratios measured in one run (see BENCHMARKS.md; the analysis:
// docs/benchmarks-log.md, "Network proxy"): bulk transfer through the proxy against the same
// transfer direct on loopback, added connect latency, 1,000 concurrent connections held; and the
// same for the HTTP proxy of the npm package
// @anthropic-ai/sandbox-runtime when its proxy script is given (--srt-script FILE).
// Everything talks only to servers this program starts on 127.0.0.1, with bounded loops.
// --quick: 128 MiB bulk rounds, 200 connects; --bulk-only: stop after the bulk table (for A/B
// runs of two builds); --rounds N: bulk rounds after the warm-up.
#include "network/Proxy.h"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d)
{
    return std::chrono::duration<double>(d).count();
}

int listenLoopback(std::uint16_t& port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 4096) != 0) {
        perror("listen");
        std::exit(1);
    }
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    return fd;
}

int connectTo(std::uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

bool sendAll(int fd, const char* data, std::size_t n)
{
    while (n > 0) {
        auto k = send(fd, data, n, MSG_NOSIGNAL);
        if (k <= 0) return false;
        data += k;
        n -= static_cast<std::size_t>(k);
    }
    return true;
}

// CONNECT through an HTTP proxy; true on a 2xx reply.
bool tunnel(int fd, const std::string& host, std::uint16_t port)
{
    std::string request = "CONNECT " + host + ":" + std::to_string(port) +
                          " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(port) + "\r\n\r\n";
    if (!sendAll(fd, request.data(), request.size())) return false;
    std::string reply;
    char c;
    while (reply.size() < 4096 && reply.find("\r\n\r\n") == std::string::npos) {
        if (recv(fd, &c, 1, 0) != 1) return false;
        reply += c;
    }
    return reply.starts_with("HTTP/1.1 2") || reply.starts_with("HTTP/1.0 2");
}

// A source that sends `bytes` on every connection and closes.
class Source {
  public:
    explicit Source(std::uint64_t bytes) : m_bytes(bytes)
    {
        m_fd = listenLoopback(m_port);
        m_thread = std::thread([this] {
            std::vector<char> buffer(1 << 20, 'x');
            for (;;) {
                int c = accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0) return;
                std::uint64_t left = m_bytes;
                while (left > 0) {
                    auto n = send(c, buffer.data(), std::min<std::uint64_t>(left, buffer.size()),
                                  MSG_NOSIGNAL);
                    if (n <= 0) break;
                    left -= static_cast<std::uint64_t>(n);
                }
                close(c);
            }
        });
    }
    ~Source()
    {
        shutdown(m_fd, SHUT_RDWR);
        m_thread.join();
        close(m_fd);
    }
    std::uint16_t port() const { return m_port; }

  private:
    std::uint64_t m_bytes;
    int m_fd = -1;
    std::uint16_t m_port = 0;
    std::thread m_thread;
};

// An echo server on one epoll thread, so 1,000 held connections cost no threads.
class Echo {
  public:
    Echo()
    {
        m_fd = listenLoopback(m_port);
        m_epoll = epoll_create1(EPOLL_CLOEXEC);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = m_fd;
        epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_fd, &ev);
        m_thread = std::thread([this] {
            epoll_event events[256];
            char buffer[16384];
            while (!m_stop) {
                int n = epoll_wait(m_epoll, events, 256, 100);
                for (int i = 0; i < n; ++i) {
                    int fd = events[i].data.fd;
                    if (fd == m_fd) {
                        int c = accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
                        if (c < 0) continue;
                        int one = 1;
                        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                        epoll_event cev{};
                        cev.events = EPOLLIN;
                        cev.data.fd = c;
                        epoll_ctl(m_epoll, EPOLL_CTL_ADD, c, &cev);
                        continue;
                    }
                    auto k = recv(fd, buffer, sizeof buffer, 0);
                    if (k <= 0 || !sendAll(fd, buffer, static_cast<std::size_t>(k))) {
                        epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
                        close(fd);
                    }
                }
            }
        });
    }
    ~Echo()
    {
        m_stop = true;
        m_thread.join();
        close(m_epoll);
        close(m_fd);
    }
    std::uint16_t port() const { return m_port; }

  private:
    int m_fd = -1, m_epoll = -1;
    std::uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

// The way to a server: direct, or through an HTTP proxy at `proxyPort` naming `host`.
struct Route {
    std::string name;
    std::uint16_t proxyPort = 0; // 0: direct
    std::string host = "127.0.0.1";
    int open(std::uint16_t target) const
    {
        if (proxyPort == 0) return connectTo(target);
        int fd = connectTo(proxyPort);
        if (fd >= 0 && !tunnel(fd, host, target)) {
            close(fd);
            return -1;
        }
        return fd;
    }
};

// The CPU time of this whole process (source, proxy and client threads), in seconds.
double processCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto s = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return s(u.ru_utime) + s(u.ru_stime);
}

struct Bulk {
    double mbps = 0;  // 0: the transfer failed
    double cores = 0; // CPU time of this process over wall time: how many cores were busy
};

Bulk bulkOnce(const Route& route, std::uint16_t source, std::uint64_t bytes)
{
    static std::vector<char> buffer(1 << 20);
    const double cpuStart = processCpuSeconds();
    auto start = Clock::now();
    int fd = route.open(source);
    if (fd < 0) return {};
    std::uint64_t got = 0;
    for (;;) {
        auto n = recv(fd, buffer.data(), buffer.size(), 0);
        if (n <= 0) break;
        got += static_cast<std::uint64_t>(n);
    }
    close(fd);
    if (got != bytes) return {};
    const double wall = seconds(Clock::now() - start);
    return {static_cast<double>(bytes) / wall / 1e6, (processCpuSeconds() - cpuStart) / wall};
}

// connect (+ CONNECT) + one byte echoed, in microseconds.
double latencyOnce(const Route& route, std::uint16_t echo)
{
    auto start = Clock::now();
    int fd = route.open(echo);
    if (fd < 0) return -1;
    char c = 'x';
    bool ok = send(fd, &c, 1, MSG_NOSIGNAL) == 1 && recv(fd, &c, 1, 0) == 1;
    auto us = seconds(Clock::now() - start) * 1e6;
    close(fd);
    return ok ? us : -1;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

long rssKb(pid_t pid)
{
    std::ifstream status("/proc/" + (pid ? std::to_string(pid) : std::string("self")) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.starts_with("VmRSS:")) return std::atol(line.c_str() + 6);
    return 0;
}

struct Held {
    double openSeconds = 0, echoSeconds = 0;
    int established = 0, echoed = 0;
    long rssDeltaKb = 0;
};

Held holdMany(const Route& route, std::uint16_t echo, int count, pid_t proxyPid,
              const std::function<void()>& atPeak)
{
    Held h;
    long before = rssKb(proxyPid);
    std::vector<int> fds;
    auto start = Clock::now();
    for (int i = 0; i < count; ++i) {
        int fd = route.open(echo);
        if (fd < 0) break;
        timeval tv{10, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        fds.push_back(fd);
    }
    h.established = static_cast<int>(fds.size());
    h.openSeconds = seconds(Clock::now() - start);
    start = Clock::now();
    for (int fd : fds) {
        char c = 'e';
        send(fd, &c, 1, MSG_NOSIGNAL);
    }
    for (int fd : fds) {
        char c = 0;
        if (recv(fd, &c, 1, 0) == 1 && c == 'e') ++h.echoed;
    }
    h.echoSeconds = seconds(Clock::now() - start);
    h.rssDeltaKb = rssKb(proxyPid) - before;
    atPeak();
    for (int fd : fds)
        close(fd);
    return h;
}

struct Srt {
    pid_t pid = -1;
    std::uint16_t port = 0;
};

Srt startSrt(const std::string& script)
{
    int out[2];
    if (pipe(out) != 0) return {};
    Srt s;
    s.pid = fork();
    if (s.pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        execlp("node", "node", script.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]);
    char line[32] = {};
    auto n = read(out[0], line, sizeof line - 1);
    close(out[0]);
    s.port = n > 0 ? static_cast<std::uint16_t>(std::atoi(line)) : 0;
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    bool quick = false;
    bool bulkOnly = false;
    int rounds = 0;
    std::string srtScript;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--bulk-only")
            bulkOnly = true;
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::atoi(argv[++i]);
        else if (a == "--srt-script" && i + 1 < argc)
            srtScript = argv[++i];
    }
    signal(SIGPIPE, SIG_IGN);
    // 1,000 held connections through an in-process proxy need ~4,000 descriptors here.
    rlimit nofile{};
    getrlimit(RLIMIT_NOFILE, &nofile);
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);

    const std::uint64_t bulkBytes = quick ? (128ULL << 20) : (1024ULL << 20);
    const int bulkRounds = rounds > 0 ? rounds : quick ? 3 : 7;
    const int latencyRounds = quick ? 200 : 2000;
    const int held = 1000;

    std::uint16_t listenPort = 0;
    int listenFd = listenLoopback(listenPort);
    sb::NetworkPolicy policy;
    policy.mode = sb::NetworkMode::Filtered;
    policy.defaultAction = sb::RuleAction::Deny;
    policy.rules = {{sb::RuleAction::Allow, "127.0.0.1", {}, {}},
                    {sb::RuleAction::Allow, "bench.test", {}, {}}};
    sb::Proxy::Options options;
    options.maxConnections = 4 * held;
    options.resolve = [](const std::string&) -> sb::Result<std::vector<sb::IpAddress>> {
        return std::vector<sb::IpAddress>{*sb::IpAddress::parse("127.0.0.1")};
    };
    auto proxy = sb::Proxy::start(listenFd, policy, {}, options);
    if (!proxy) {
        std::fprintf(stderr, "proxy: %s\n", proxy.error().describe().c_str());
        return 1;
    }
    Srt srt;
    if (!srtScript.empty()) {
        srt = startSrt(srtScript);
        if (srt.port == 0) {
            std::fprintf(stderr, "sandbox-runtime proxy did not start\n");
            return 1;
        }
    }

    auto stopAll = [&] {
        (*proxy)->stop();
        if (srt.pid > 0) {
            kill(srt.pid, SIGTERM);
            waitpid(srt.pid, nullptr, 0);
        }
        return 0;
    };

    std::vector<Route> routes = {{"direct", 0, ""}, {"sandbench", (*proxy)->port(), "127.0.0.1"}};
    if (srt.port) routes.push_back({"sandbox-runtime", srt.port, "127.0.0.1"});
    Route sandbenchByName{"sandbench (name, DNS pool)", (*proxy)->port(), "bench.test"};

    // Bulk: rounds interleaved A,B,C then C,B,A; round 0 is a discarded warm-up.
    Source source(bulkBytes);
    std::vector<std::vector<double>> mbps(routes.size());
    std::vector<std::vector<double>> ratios(routes.size());
    std::vector<std::vector<double>> cores(routes.size());
    for (int round = 0; round <= bulkRounds; ++round) {
        std::vector<Bulk> got(routes.size());
        for (std::size_t k = 0; k < routes.size(); ++k) {
            auto i = round % 2 ? routes.size() - 1 - k : k;
            got[i] = bulkOnce(routes[i], source.port(), bulkBytes);
        }
        if (round == 0) continue;
        for (std::size_t i = 0; i < routes.size(); ++i) {
            mbps[i].push_back(got[i].mbps);
            ratios[i].push_back(got[0].mbps > 0 ? got[i].mbps / got[0].mbps : 0);
            cores[i].push_back(got[i].cores);
        }
    }
    std::printf("## bulk transfer, %llu MiB per round, %d rounds (median, [p25-p75])\n\n",
                static_cast<unsigned long long>(bulkBytes >> 20), bulkRounds);
    // Cores busy: the benchmark's own CPU time over the transfer's wall time (the source, the
    // client and Sandbench's proxy are threads of this process; srt's proxy is not).
    std::printf("| route | MB/s | ratio to direct | cores busy (this process) |\n"
                "| --- | --- | --- | --- |\n");
    for (std::size_t i = 0; i < routes.size(); ++i)
        std::printf("| %s | %.0f | %.2f [%.2f-%.2f] | %.2f%s |\n", routes[i].name.c_str(),
                    percentile(mbps[i], 0.5), percentile(ratios[i], 0.5),
                    percentile(ratios[i], 0.25), percentile(ratios[i], 0.75),
                    percentile(cores[i], 0.5),
                    routes[i].name == "sandbox-runtime" ? " + node" : "");
    if (bulkOnly) return stopAll();

    // Latency: connect + (CONNECT) + 1-byte echo, interleaved per iteration.
    Echo echo;
    auto latencyRoutes = routes;
    latencyRoutes.insert(latencyRoutes.begin() + 2, sandbenchByName);
    std::vector<std::vector<double>> us(latencyRoutes.size());
    for (int n = 0; n < latencyRounds + 50; ++n)
        for (std::size_t k = 0; k < latencyRoutes.size(); ++k) {
            auto i = n % 2 ? latencyRoutes.size() - 1 - k : k;
            double v = latencyOnce(latencyRoutes[i], echo.port());
            if (n >= 50 && v >= 0) us[i].push_back(v);
        }
    std::printf("\n## connect + first byte echoed, %d connections each (microseconds)\n\n",
                latencyRounds);
    std::printf("| route | p50 | p99 | added p50 vs direct |\n| --- | --- | --- | --- |\n");
    for (std::size_t i = 0; i < latencyRoutes.size(); ++i)
        std::printf("| %s | %.0f | %.0f | %.0f |\n", latencyRoutes[i].name.c_str(),
                    percentile(us[i], 0.5), percentile(us[i], 0.99),
                    percentile(us[i], 0.5) - percentile(us[0], 0.5));

    // 1,000 connections held open at once, then one byte echoed on each.
    std::printf("\n## %d concurrent connections held\n\n", held);
    std::printf("| route | established | echoed | open all (ms) | echo all (ms) | proxy RSS "
                "growth (KiB) |\n| --- | --- | --- | --- | --- | --- |\n");
    for (std::size_t i = 1; i < routes.size(); ++i) {
        pid_t pid = routes[i].name == "sandbox-runtime" ? srt.pid : 0;
        std::size_t counted = 0;
        auto h = holdMany(routes[i], echo.port(), held, pid,
                          [&] { counted = (*proxy)->activeConnections(); });
        if (i == 1 && counted != static_cast<std::size_t>(h.established))
            std::printf("(the proxy counted %zu connections)\n", counted);
        std::printf("| %s | %d | %d | %.0f | %.0f | %ld%s |\n", routes[i].name.c_str(),
                    h.established, h.echoed, h.openSeconds * 1e3, h.echoSeconds * 1e3, h.rssDeltaKb,
                    pid ? "" : " (whole bench process)");
    }
    return stopAll();
}
