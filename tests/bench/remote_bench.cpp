// A remote session over loopback ssh against the same session reached through its local socket
// (issue 40): run by remote_bench.sh, which starts an sshd of its own and the sessions.
//
// 1. Approval round trip: the client starts a program's process (exec_start) that an `ask` rule
//    stops, answers the approval request it is sent, and waits for the process's exit; the time
//    from exec_start to exec_exit, p50 and p90 over --rounds, locally and over the dial stream
//    (target: remote p50 <= local p50 + 5 ms).
// 2. Attach of a flood: a headless `run` session writes --mib MiB to its terminal (no newline,
//    no echo: the bytes that reach the client are those) each time it reads a key; the client,
//    subscribed, sends the key and takes the output until all of it came (or was skipped: a
//    client that falls behind is told how much it lost); MiB/s locally and remotely, the median
//    of --flood-rounds alternating rounds (target: remote >= 0.5 x local).
//
//   remote_bench --host ssh://ALIAS --ask SESSION --flood-local ID --flood-remote ID
//                [--rounds 50] [--mib 50] [--flood-rounds 5]
#include "control/ControlClient.h"
#include "remote/RemoteHost.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <time.h>
#include <vector>

using sb::proto::Message;
using sb::proto::MsgType;

namespace {

double nowMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

[[noreturn]] void die(const std::string& what)
{
    std::fprintf(stderr, "remote_bench: %s\n", what.c_str());
    std::exit(1);
}

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// One exec_start → approval_request → answer → exec_exit; its duration in ms.
double approvalRound(sb::ControlClient& client, std::uint64_t id)
{
    const double start = nowMs();
    Message m = sb::proto::jsonMessage(
        MsgType::ExecStart,
        {{"id", id}, {"argv", {"touch", "asked-" + std::to_string(id)}}, {"timeout_ms", 60000}});
    if (auto e = client.send(m)) die("exec_start: " + e->describe());
    for (;;) {
        auto got = client.receive(60000);
        if (!got) die("waiting for the approval: " + got.error().describe());
        if (got->type == MsgType::ApprovalRequest) {
            const auto request = got->body.value("id", std::uint64_t{0});
            Message answer = sb::proto::jsonMessage(
                MsgType::ApprovalAnswer,
                {{"id", request}, {"allow", true}, {"scope", "exact"}, {"duration", "once"}});
            if (auto e = client.send(answer)) die("answer: " + e->describe());
        } else if (got->type == MsgType::ExecExit &&
                   got->body.value("id", std::uint64_t{0}) == id) {
            if (got->body.value("exit_code", -1) != 0)
                die("the asked command failed: " + got->body.dump());
            return nowMs() - start;
        }
    }
}

struct Flood {
    double ms = 0;
    std::uint64_t bytes = 0, lost = 0;
};

// A subscribed client whose earlier output was taken.
void subscribe(sb::ControlClient& client)
{
    if (auto e = client.subscribe()) die("subscribe: " + e->describe());
    for (;;) { // the window the supervisor holds comes first: take it before the key
        auto got = client.receive(30000);
        if (!got) die("subscribed: " + got.error().describe());
        if (got->type == MsgType::Subscribed) break;
    }
    while (auto more = client.receive(300)) {
    }
}

Flood flood(sb::ControlClient& client, std::uint64_t size)
{
    Flood f;
    const double start = nowMs();
    if (auto e = client.sendInput("\n")) die("the key: " + e->describe());
    while (f.bytes + f.lost < size) {
        auto got = client.receive(120000);
        if (!got) die("the flood: " + got.error().describe());
        if (got->type == MsgType::Output) f.bytes += got->bytes.size();
        if (got->type == MsgType::Lagged) f.lost += got->body.value("lost_bytes", std::uint64_t{0});
        if (got->type == MsgType::Exit) die("the flood's session ended");
    }
    f.ms = nowMs() - start;
    return f;
}

double rate(const Flood& f)
{
    // What reached the client: bytes the supervisor skipped for a client that fell behind
    // count as not delivered.
    return static_cast<double>(f.bytes) / 1048576.0 / (f.ms / 1000.0);
}

} // namespace

int main(int argc, char** argv)
{
    std::string host, ask, floodLocal, floodRemote;
    int rounds = 50, mib = 50, floodRounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--host")
            host = value;
        else if (key == "--ask")
            ask = value;
        else if (key == "--flood-local")
            floodLocal = value;
        else if (key == "--flood-remote")
            floodRemote = value;
        else if (key == "--rounds")
            rounds = std::atoi(value.c_str());
        else if (key == "--mib")
            mib = std::atoi(value.c_str());
        else if (key == "--flood-rounds")
            floodRounds = std::atoi(value.c_str());
        else
            die("unknown option " + key);
    }
    if (host.empty() || ask.empty() || floodLocal.empty() || floodRemote.empty() || rounds < 2)
        die("usage: remote_bench --host URL --ask SESSION --flood-local ID --flood-remote ID "
            "[--rounds N]");
    auto target = sb::remote::parseSshTarget(host);
    if (!target) die(target.error().message);
    auto options = sb::remote::dialOptionsFromEnvironment();
    if (!options) die(options.error().message);
    const double dialStart = nowMs();
    auto remote = sb::remote::RemoteHost::dial(*target, *options);
    if (!remote) die(remote.error().describe());
    std::printf("dial (ssh login + hello): %.1f ms\n", nowMs() - dialStart);

    auto local = sb::ControlClient::connect(ask, "remote_bench", sb::proto::Role::Viewer);
    if (!local) die("local: " + local.error().describe());
    auto far = (*remote)->connectSession(ask, "remote_bench", sb::proto::Role::Viewer);
    if (!far) die("remote: " + far.error().describe());
    std::vector<double> localMs, remoteMs;
    std::uint64_t id = 1;
    for (int i = 0; i < 3; ++i) { // warm-up: the first execs load the programs
        approvalRound(**local, id++);
        approvalRound(**far, id++);
    }
    for (int i = 0; i < rounds; ++i) { // alternating, so that drift hits both alike
        localMs.push_back(approvalRound(**local, id++));
        remoteMs.push_back(approvalRound(**far, id++));
    }
    const double localP50 = percentile(localMs, 0.5), remoteP50 = percentile(remoteMs, 0.5);
    std::printf("approval round trip, %d rounds: local p50 %.2f ms p90 %.2f ms; over ssh p50 "
                "%.2f ms p90 %.2f ms; +%.2f ms at p50 (target <= +5 ms): %s\n",
                rounds, localP50, percentile(localMs, 0.9), remoteP50, percentile(remoteMs, 0.9),
                remoteP50 - localP50, remoteP50 - localP50 <= 5.0 ? "met" : "NOT met");

    auto floodLocalClient =
        sb::ControlClient::connect(floodLocal, "remote_bench", sb::proto::Role::Interactive);
    if (!floodLocalClient) die("flood, local: " + floodLocalClient.error().describe());
    auto floodRemoteClient =
        (*remote)->connectSession(floodRemote, "remote_bench", sb::proto::Role::Interactive);
    if (!floodRemoteClient) die("flood, remote: " + floodRemoteClient.error().describe());
    subscribe(**floodLocalClient);
    subscribe(**floodRemoteClient);
    const std::uint64_t size = static_cast<std::uint64_t>(mib) << 20;
    std::vector<double> localRates, remoteRates, ratios;
    std::uint64_t lostRemote = 0, lostLocal = 0;
    for (int i = 0; i < floodRounds; ++i) {
        const Flood l = flood(**floodLocalClient, size);
        const Flood r = flood(**floodRemoteClient, size);
        localRates.push_back(rate(l));
        remoteRates.push_back(rate(r));
        ratios.push_back(rate(r) / rate(l));
        lostLocal += l.lost;
        lostRemote += r.lost;
    }
    const double ratio = percentile(ratios, 0.5);
    std::printf("attach flood of %d MiB, %d rounds: local median %.1f MiB/s (%.1f-%.1f, lost %llu "
                "bytes); over ssh median %.1f MiB/s (%.1f-%.1f, lost %llu bytes); ratio median "
                "%.2f (%.2f-%.2f; target >= 0.5): %s\n",
                mib, floodRounds, percentile(localRates, 0.5), percentile(localRates, 0),
                percentile(localRates, 1), static_cast<unsigned long long>(lostLocal),
                percentile(remoteRates, 0.5), percentile(remoteRates, 0),
                percentile(remoteRates, 1), static_cast<unsigned long long>(lostRemote), ratio,
                percentile(ratios, 0), percentile(ratios, 1), ratio >= 0.5 ? "met" : "NOT met");
    return 0;
}
