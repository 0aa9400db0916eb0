// How fast a terminal flood reaches an attached client compared with the supervisor itself.
//
// One run: an "agent" process writes N MiB (default 50) into a pty; the "supervisor" (this
// process) reads the pty master on a poll() loop and publishes every chunk to a real
// ControlServer; a real ControlClient in a third process, subscribed before the flood starts,
// receives it over the unix socket and checks every byte. Both sides time the moment their last
// byte arrives against the same CLOCK_MONOTONIC start, so
//   ratio = (N / client time) / (N / supervisor time) = supervisor time / client time
// (target: >= 0.5). Rounds alternate with a reference flood that no client watches, which
// shows what the client costs the agent (ideally nothing).
//
//   control_flood_bench [--mib 50] [--rounds 5] [--ring-mib 4]
#include "control/ControlClient.h"
#include "control/ControlServer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pty.h>
#include <string>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace {

double nowSec()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

char patternAt(std::uint64_t i)
{
    return static_cast<char>(' ' + (i * 7 + i / 4099) % 95);
}

struct NullBackend : sb::SessionBackend {
    sb::SessionSummary summary() const override
    {
        sb::SessionSummary s;
        s.id = "flood";
        s.command = {"flood"};
        return s;
    }
    void writeTerminalInput(std::string_view) override {}
    void resize(unsigned, unsigned) override {}
    sb::Status answerApproval(std::uint64_t, const sb::ApprovalAnswer&) override { return {}; }
    std::vector<sb::ApprovalRequest> pendingApprovals() const override { return {}; }
    void stop(bool) override {}
};

struct ClientReport {
    double lastByte = 0; // CLOCK_MONOTONIC
    std::uint64_t received = 0, lost = 0, corrupt = 0;
};

// The attached client: receive until `total` bytes are accounted for, verifying each one.
[[noreturn]] void clientMain(const std::string& socket, std::uint64_t total, int readyFd,
                             int reportFd)
{
    auto client = sb::ControlClient::connectPath(socket, "flood-bench", sb::proto::Role::Viewer);
    if (!client || (*client)->subscribe(0)) {
        std::fprintf(stderr, "client: cannot attach\n");
        ::_exit(1);
    }
    (void)!::write(readyFd, "r", 1);
    ClientReport report;
    while (report.received + report.lost < total) {
        auto m = (*client)->receive(60000);
        if (!m) {
            std::fprintf(stderr, "client: %s\n", m.error().describe().c_str());
            ::_exit(1);
        }
        if (m->type == sb::proto::MsgType::Lagged)
            report.lost += m->body.value("lost_bytes", std::uint64_t{0});
        if (m->type != sb::proto::MsgType::Output) continue;
        for (std::size_t i = 0; i < m->bytes.size(); ++i)
            report.corrupt += m->bytes[i] != patternAt(m->seq + i);
        report.received += m->bytes.size();
        report.lastByte = nowSec();
    }
    (void)!::write(reportFd, &report, sizeof report);
    ::_exit(0);
}

// The agent: wait for the go, then write the flood into the pty.
[[noreturn]] void agentMain(int slave, std::uint64_t total, int goFd)
{
    char go;
    if (::read(goFd, &go, 1) != 1) ::_exit(1);
    std::vector<char> buf(64 * 1024);
    for (std::uint64_t off = 0; off < total;) {
        std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), total - off));
        for (std::size_t i = 0; i < n; ++i)
            buf[i] = patternAt(off + i);
        for (std::size_t done = 0; done < n;) {
            ssize_t w = ::write(slave, buf.data() + done, n - done);
            if (w <= 0) ::_exit(2);
            done += static_cast<std::size_t>(w);
        }
        off += n;
    }
    ::pause(); // keep the slave open until the supervisor has read everything
    ::_exit(0);
}

struct Round {
    double supervisorSec = 0, clientSec = 0;
    ClientReport client;
};

Round runRound(std::uint64_t total, std::size_t ringBytes, bool withClient)
{
    NullBackend backend;
    sb::ControlServerOptions options;
    options.ringBytes = ringBytes;
    auto server = sb::ControlServer::listen("flood", backend, options);
    if (!server) {
        std::fprintf(stderr, "listen: %s\n", server.error().describe().c_str());
        std::exit(1);
    }
    int master = -1, slave = -1;
    termios raw{};
    ::cfmakeraw(&raw);
    if (::openpty(&master, &slave, nullptr, &raw, nullptr) != 0) {
        std::perror("openpty");
        std::exit(1);
    }
    int go[2], ready[2], report[2];
    if (::pipe(go) != 0 || ::pipe(ready) != 0 || ::pipe(report) != 0) std::exit(1);
    pid_t agent = ::fork();
    if (agent == 0) {
        ::close(master);
        agentMain(slave, total, go[0]);
    }
    ::close(slave);
    pid_t client = -1;
    if (withClient) {
        client = ::fork();
        if (client == 0) clientMain((*server)->socketPath().string(), total, ready[1], report[1]);
    } else {
        (void)!::write(ready[1], "r", 1);
    }

    Round round;
    std::uint64_t got = 0;
    double start = 0, supervisorDone = 0;
    bool started = false, clientDone = !withClient;
    std::vector<char> buf(64 * 1024);
    std::vector<pollfd> fds;
    while (got < total || !clientDone) {
        fds = {{ready[0], POLLIN, 0}, {report[0], POLLIN, 0}, {master, POLLIN, 0}};
        if (got == total) fds[2].fd = -1;
        (*server)->fillPollFds(fds);
        ::poll(fds.data(), fds.size(), 1000);
        if (fds[0].revents & POLLIN) {
            char r;
            (void)!::read(ready[0], &r, 1);
            // Released once the client's subscription is in place, so it sees byte 0 live.
            while (withClient && (*server)->subscriberCount() == 0) {
                std::vector<pollfd> sfds;
                (*server)->fillPollFds(sfds);
                ::poll(sfds.data(), sfds.size(), 100);
                (*server)->handle(sfds);
            }
            start = nowSec();
            started = true;
            (void)!::write(go[1], "g", 1);
        }
        if (fds[1].revents & POLLIN) {
            (void)!::read(report[0], &round.client, sizeof round.client);
            clientDone = true;
        }
        if (started && (fds[2].revents & (POLLIN | POLLHUP))) {
            ssize_t n = ::read(master, buf.data(), buf.size());
            if (n > 0) {
                (*server)->publishOutput({buf.data(), static_cast<std::size_t>(n)});
                got += static_cast<std::uint64_t>(n);
                if (got == total) supervisorDone = nowSec();
            }
        }
        (*server)->handle(fds);
    }
    round.supervisorSec = supervisorDone - start;
    round.clientSec = withClient ? round.client.lastByte - start : 0;
    ::kill(agent, SIGKILL);
    ::waitpid(agent, nullptr, 0);
    if (client > 0) ::waitpid(client, nullptr, 0);
    for (int fd : {master, go[0], go[1], ready[0], ready[1], report[0], report[1]})
        ::close(fd);
    return round;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::uint64_t mib = 50;
    int rounds = 5;
    std::size_t ringMib = 4;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        long value = std::strtol(argv[i + 1], nullptr, 10);
        if (flag == "--mib")
            mib = static_cast<std::uint64_t>(value);
        else if (flag == "--rounds")
            rounds = static_cast<int>(value);
        else if (flag == "--ring-mib")
            ringMib = static_cast<std::size_t>(value);
    }
    char dir[] = "/tmp/sb-flood-XXXXXX";
    if (::mkdtemp(dir) == nullptr) return 1;
    ::setenv("XDG_RUNTIME_DIR", dir, 1);
    std::uint64_t total = mib << 20;
    std::printf("control flood: %llu MiB through a pty, ring %zu MiB, %d rounds (+1 warm-up)\n",
                static_cast<unsigned long long>(mib), ringMib, rounds);
    std::vector<double> ratios, sup, cli, alone, cost;
    std::uint64_t lost = 0, corrupt = 0;
    for (int r = 0; r <= rounds; ++r) {
        // Alternate the order so drift in the machine's load hits both alike.
        Round reference, watched;
        if (r % 2 == 0) {
            reference = runRound(total, ringMib << 20, false);
            watched = runRound(total, ringMib << 20, true);
        } else {
            watched = runRound(total, ringMib << 20, true);
            reference = runRound(total, ringMib << 20, false);
        }
        if (r == 0) continue;
        sup.push_back(watched.supervisorSec);
        cli.push_back(watched.clientSec);
        alone.push_back(reference.supervisorSec);
        ratios.push_back(watched.supervisorSec / watched.clientSec);
        cost.push_back(watched.supervisorSec / reference.supervisorSec);
        lost += watched.client.lost;
        corrupt += watched.client.corrupt;
        std::printf("  round %d: supervisor %.3f s, client %.3f s, ratio %.3f; no client %.3f s\n",
                    r, watched.supervisorSec, watched.clientSec, ratios.back(),
                    reference.supervisorSec);
    }
    double mb = static_cast<double>(total) / 1e6;
    std::printf("supervisor (client attached): %.0f MB/s\n", mb / median(sup));
    std::printf("attached client:              %.0f MB/s\n", mb / median(cli));
    std::printf("supervisor (no client):       %.0f MB/s\n", mb / median(alone));
    std::printf("ratio client/supervisor: %.3f (median; target >= 0.5) %s\n", median(ratios),
                median(ratios) >= 0.5 ? "MET" : "NOT MET");
    std::printf("agent slowdown with a client attached: %.3fx\n", median(cost));
    std::printf("bytes lost to lag: %llu, corrupt: %llu\n", static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(corrupt));
    ::rmdir((std::string(dir) + "/sandbench").c_str());
    ::rmdir(dir);
    return corrupt == 0 ? 0 : 1;
}
