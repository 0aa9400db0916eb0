// A real ControlServer on a real unix socket, on its own poll() loop thread, with a fake session
// behind it: the tests talk to it with real clients, as the GUI and the CLI will.
#pragma once

#include "TestSupport.h"
#include "control/ControlClient.h"
#include "control/ControlServer.h"
#include "supervision/RunningPolicy.h"

#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace sbtest {

// For a forked child of a process with threads (async-signal-safe calls only): connects to the
// control socket at `path` and reads until the server closes. 0 when it was refused at once, with
// an error frame (type 15) before any hello; 11 when it could not connect; 12 otherwise.
inline int refusedAtOnce(const char* path)
{
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return 11;
    char buf[4096];
    ssize_t total = 0, n;
    while ((n = ::read(fd, buf + total, sizeof buf - static_cast<size_t>(total))) > 0)
        total += n;
    return total > 5 && buf[4] == 15 ? 0 : 12;
}

// The session as the server sees it. Called on the server's thread; the test reads it under
// the mutex.
class FakeBackend : public sb::SessionBackend {
  public:
    sb::SessionSummary summary() const override
    {
        sb::SessionSummary s;
        s.id = "sess-1";
        s.command = {"agent", "--flag"};
        s.workspace = "/home/u/project";
        s.startedUnixMs = 1700000000000;
        s.policy = {{"network", "none"}, {"commands", "ask"}};
        s.rows = 24;
        s.cols = 80;
        std::lock_guard lock(mu);
        if (policy) policy->describe(s);
        return s;
    }
    void writeTerminalInput(std::string_view bytes) override
    {
        std::lock_guard lock(mu);
        input.append(bytes);
    }
    void resize(unsigned rows, unsigned cols) override
    {
        std::lock_guard lock(mu);
        resizes.emplace_back(rows, cols);
    }
    sb::Status answerApproval(std::uint64_t id, const sb::ApprovalAnswer& answer) override
    {
        {
            std::lock_guard lock(mu);
            if (pending.erase(id) == 0)
                return sb::Error{sb::ErrorCode::Conflict, 0,
                                 "approval #" + std::to_string(id) +
                                     " is not pending (already answered or timed out)"};
            answers.emplace_back(id, answer);
        }
        // Like the broker: the outcome is published from inside the answer.
        sb::ApprovalOutcome outcome;
        outcome.id = id;
        outcome.allow = answer.allow;
        outcome.answer = answer;
        outcome.latencyMs = 42;
        server->publishApprovalOutcome(outcome);
        return {};
    }
    std::vector<sb::ApprovalRequest> pendingApprovals() const override
    {
        std::lock_guard lock(mu);
        std::vector<sb::ApprovalRequest> out;
        for (const auto& [id, r] : pending)
            out.push_back(r);
        return out;
    }
    void stop(bool kill) override
    {
        std::lock_guard lock(mu);
        stops.push_back(kill);
    }
    // With a `policy`, as the supervisor does (less the matchers it switches); without, the
    // default: a session that cannot change its policy.
    sb::Result<sb::proto::PolicyUpdateResult> updatePolicy(const sb::proto::PolicyUpdate& update,
                                                           const std::string& client) override
    {
        std::lock_guard lock(mu);
        if (!policy) return sb::SessionBackend::updatePolicy(update, client);
        auto change = policy->prepare(update, client, true);
        if (!change) return change.error();
        sb::proto::PolicyUpdateResult result{change->applied, change->deferred};
        policy->commit(std::move(*change));
        policyUpdates.push_back(client);
        return result;
    }

    mutable std::mutex mu;
    sb::ControlServer* server = nullptr;
    std::string input;
    std::vector<std::pair<unsigned, unsigned>> resizes;
    std::map<std::uint64_t, sb::ApprovalRequest> pending;
    std::vector<std::pair<std::uint64_t, sb::ApprovalAnswer>> answers;
    std::vector<bool> stops;
    std::optional<sb::RunningPolicy> policy;
    std::vector<std::string> policyUpdates; // the clients whose update took
};

inline sb::ApprovalRequest commandRequest(std::uint64_t id, std::vector<std::string> argv)
{
    sb::ApprovalRequest r;
    r.id = id;
    r.kind = sb::ApprovalKind::Command;
    r.program = "/usr/bin/" + argv.front();
    r.argv = std::move(argv);
    r.cwd = "/home/u/project";
    r.rule = "git push *";
    r.deadlineUnixMs = 1700000120000;
    return r;
}

class ServerHarness {
  public:
    explicit ServerHarness(sb::ControlServerOptions options = {}, std::string session = "sess-1")
    {
        options.log = [this](const std::string& text) {
            std::lock_guard lock(m_logMu);
            m_logs.push_back(text);
        };
        auto server = sb::ControlServer::listen(session, backend, options);
        if (!server) throw std::runtime_error(server.error().describe());
        m_server = std::move(*server);
        backend.server = m_server.get();
        if (::pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe");
        m_thread = std::thread([this] { loop(); });
    }
    ~ServerHarness()
    {
        m_stop = true;
        (void)!::write(m_wake[1], "x", 1);
        m_thread.join();
        m_server.reset();
        ::close(m_wake[0]);
        ::close(m_wake[1]);
    }

    // Runs `f` on the server's thread and waits for it: the server is not thread-safe.
    template <class F> auto onLoop(F f) -> decltype(f(std::declval<sb::ControlServer&>()))
    {
        using R = decltype(f(std::declval<sb::ControlServer&>()));
        auto task = std::make_shared<std::packaged_task<R()>>([this, f] { return f(*m_server); });
        {
            std::lock_guard lock(m_taskMu);
            m_tasks.push_back([task] { (*task)(); });
        }
        (void)!::write(m_wake[1], "x", 1);
        return task->get_future().get();
    }

    std::vector<std::string> logs()
    {
        std::lock_guard lock(m_logMu);
        return m_logs;
    }
    bool logged(const std::string& needle)
    {
        for (const auto& l : logs())
            if (l.find(needle) != std::string::npos) return true;
        return false;
    }
    std::filesystem::path socketPath() const { return m_server->socketPath(); }

    FakeBackend backend;

  private:
    void loop()
    {
        std::vector<pollfd> fds;
        while (!m_stop) {
            fds.assign(1, pollfd{m_wake[0], POLLIN, 0});
            m_server->fillPollFds(fds);
            ::poll(fds.data(), fds.size(), 200);
            if (fds[0].revents) {
                char buf[64];
                while (::read(m_wake[0], buf, sizeof buf) > 0) {
                }
                std::vector<std::function<void()>> tasks;
                {
                    std::lock_guard lock(m_taskMu);
                    tasks.swap(m_tasks);
                }
                for (auto& t : tasks)
                    t();
            }
            m_server->handle(fds);
        }
    }

    std::unique_ptr<sb::ControlServer> m_server;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    int m_wake[2] = {-1, -1};
    std::mutex m_taskMu, m_logMu;
    std::vector<std::function<void()>> m_tasks;
    std::vector<std::string> m_logs;
};

// A socket that speaks raw bytes, for what no well-behaved client would send.
class RawConnection {
  public:
    explicit RawConnection(const std::filesystem::path& path)
    {
        m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        m_connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    }
    ~RawConnection() { ::close(m_fd); }
    bool connected() const { return m_connected; }
    void send(std::string_view bytes)
    {
        (void)!::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    }
    void shutdownWrite() { ::shutdown(m_fd, SHUT_WR); }
    // The next whole frame, or false when none came within `timeoutMs` (or the server closed).
    bool read(sb::proto::Message& out, int timeoutMs = 5000)
    {
        for (;;) {
            auto got = m_decoder.next(out);
            if (got && *got) return true;
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, timeoutMs) <= 0) return false;
            char buf[65536];
            ssize_t n = ::read(m_fd, buf, sizeof buf);
            if (n <= 0) return false;
            m_decoder.feed({buf, static_cast<size_t>(n)});
        }
    }
    // Reads until the server closes (true) or `timeoutMs` passes (false); frames decoded.
    bool readUntilClosed(std::vector<sb::proto::Message>& out, int timeoutMs = 5000)
    {
        sb::proto::FrameDecoder decoder;
        for (;;) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, timeoutMs) <= 0) return false;
            char buf[65536];
            ssize_t n = ::read(m_fd, buf, sizeof buf);
            if (n <= 0) return true;
            decoder.feed({buf, static_cast<size_t>(n)});
            sb::proto::Message m;
            while (true) {
                auto got = decoder.next(m);
                if (!got || !*got) break;
                out.push_back(m);
            }
        }
    }

  private:
    int m_fd = -1;
    bool m_connected = false;
    sb::proto::FrameDecoder m_decoder;
};

// Waits for the next message of `type`, collecting terminal output on the way.
inline sb::Result<sb::proto::Message> waitFor(sb::ControlClient& c, sb::proto::MsgType type,
                                              std::string* output = nullptr, int timeoutMs = 5000)
{
    for (;;) {
        auto m = c.receive(timeoutMs);
        if (!m || m->type == type) return m;
        if (output != nullptr && m->type == sb::proto::MsgType::Output) output->append(m->bytes);
    }
}

} // namespace sbtest
