// What tests of the E2B API (unit tests, the fuzz target) drive it with, without a network or a
// sandbox: an Exchange in memory, a launcher that starts nothing, and a fake supervisor at the
// other end of each sandbox's control connection that answers exec and file requests at once.
#pragma once

#include "base/Bytes.h"
#include "control/ControlClient.h"
#include "e2b/E2bApi.h"
#include "e2b/SessionLink.h"
#include "http/HttpServer.h"

#include <atomic>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <poll.h>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace sbtest {

// One request, its body handed over in pieces; the response kept.
class MemoryExchange : public sb::http::Exchange {
  public:
    MemoryExchange(std::string method, std::string target, std::string body = {},
                   sb::http::Headers requestHeaders = {})
        : m_method(std::move(method)), m_body(std::move(body)), m_headers(std::move(requestHeaders))
    {
        const std::size_t q = target.find('?');
        m_path = sb::http::percentDecode(target.substr(0, q), false);
        if (q != std::string::npos) m_query = target.substr(q + 1);
    }

    std::string_view method() const override { return m_method; }
    std::string_view path() const override { return m_path; }
    std::string_view rawQuery() const override { return m_query; }
    std::optional<std::string_view> header(std::string_view name) const override
    {
        for (const auto& [k, v] : m_headers)
            if (k.size() == name.size() &&
                std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
                    return std::tolower(static_cast<unsigned char>(a)) ==
                           std::tolower(static_cast<unsigned char>(b));
                }))
                return std::string_view(v);
        return std::nullopt;
    }
    std::vector<std::pair<std::string_view, std::string_view>> requestHeaders() const override
    {
        return {m_headers.begin(), m_headers.end()};
    }
    sb::Status readBody(const std::function<bool(std::string_view)>& sink) override
    {
        for (std::size_t at = 0; at < m_body.size(); at += 1000)
            if (!sink(std::string_view(m_body).substr(at, 1000))) break;
        return {};
    }
    sb::Status readForm(sb::http::FormSink&) override
    {
        return sb::unsupported("multipart bodies are civetweb's to parse");
    }
    void respond(int code, std::string_view type, std::string_view body,
                 const sb::http::Headers& extra) override
    {
        if (status != 0) return;
        status = code;
        contentType = type;
        response = body;
        headers = extra;
    }
    bool beginStream(int code, std::string_view type, const sb::http::Headers& extra) override
    {
        if (status != 0) return false;
        respond(code, type, {}, extra);
        streamed = true;
        return true;
    }
    bool writeChunk(std::string_view bytes) override
    {
        response += bytes;
        return streamed;
    }
    void endStream() override {}
    void abort() override
    {
        aborted = true;
        streamed = false;
    }

    int status = 0;
    std::string contentType, response;
    sb::http::Headers headers;
    bool streamed = false;
    bool aborted = false; // the connection dropped with the body unfinished

  private:
    std::string m_method, m_path, m_query, m_body;
    sb::http::Headers m_headers;
};

// Starts nothing: every sandbox is a session "fake-N", its link a FakeSupervisor's.
class FakeLauncher : public sb::e2b::Launcher {
  public:
    sb::Result<sb::e2b::LaunchedSession> start(const sb::e2b::SandboxSpec& spec) override
    {
        if (spec.templateId != "base" && spec.templateId != "other")
            return sb::Error{sb::ErrorCode::NotFound, 0,
                             "template '" + spec.templateId + "' not found"};
        {
            std::lock_guard lock(m_mutex);
            m_last = spec;
        }
        return sb::e2b::LaunchedSession{"fake-" + std::to_string(++started), 2, 512};
    }
    void stop(const std::string&) override { ++stopped; }
    // Snapshots by "SESSION@NAME"; none can be taken when `canSnapshot` is false.
    sb::Result<std::string> snapshot(const std::string& session, const std::string& name) override
    {
        std::lock_guard lock(m_mutex);
        if (!canSnapshot) return sb::unsupported("nothing can freeze the sandbox");
        const std::string taken =
            name.empty() ? "snapshot-" + std::to_string(m_snapshots.size() + 1) : name;
        if (!m_snapshots.insert(session + "@" + taken).second)
            return sb::Error{sb::ErrorCode::Conflict, 0, "taken already"};
        return taken;
    }
    sb::Status deleteSnapshot(const std::string& session, const std::string& name) override
    {
        std::lock_guard lock(m_mutex);
        if (m_snapshots.erase(session + "@" + name) == 0)
            return sb::Error{sb::ErrorCode::NotFound, 0, "no such snapshot"};
        return {};
    }
    std::set<std::string> snapshots() const
    {
        std::lock_guard lock(m_mutex);
        return m_snapshots;
    }
    std::atomic<bool> canSnapshot{true};
    // A port's preview: `previewPort` when set, else 40000 + the port.
    sb::Result<unsigned> preview(const std::string&, unsigned port) override
    {
        return previewPort != 0 ? previewPort.load() : 40000 + port;
    }
    std::atomic<unsigned> previewPort{0};
    // What the last sandbox started was asked for.
    sb::e2b::SandboxSpec last() const
    {
        std::lock_guard lock(m_mutex);
        return m_last;
    }
    std::atomic<int> started{0}, stopped{0};

  private:
    mutable std::mutex m_mutex;
    sb::e2b::SandboxSpec m_last;
    std::set<std::string> m_snapshots;
};

// A supervisor's end of a control connection: each message the client sends is handed to
// `answer` on a thread of the peer's own, which ends when the client closes its end or the peer
// is destroyed.
class ControlPeer {
  public:
    explicit ControlPeer(std::function<void(const sb::proto::Message&)> answer)
        : m_answer(std::move(answer))
    {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
        m_fd = fds[1];
        m_client = fds[0];
        ::fcntl(m_client, F_SETFL, O_NONBLOCK); // as ControlClient::connect leaves its socket
        if (::pipe2(m_stop, O_CLOEXEC) != 0) std::abort();
        m_thread = std::thread([this] { serve(); });
    }
    ~ControlPeer()
    {
        (void)!::write(m_stop[1], "x", 1);
        m_thread.join();
        ::close(m_fd);
        ::close(m_stop[0]);
        ::close(m_stop[1]);
    }
    ControlPeer(const ControlPeer&) = delete;
    ControlPeer& operator=(const ControlPeer&) = delete;
    // The client end, for a SessionLink (once).
    std::unique_ptr<sb::e2b::SessionLink> link()
    {
        return std::make_unique<sb::e2b::SessionLink>(sb::ControlClient::adopt(m_client));
    }
    void send(const sb::proto::Message& m)
    {
        const std::string frame = sb::proto::encode(m);
        (void)!::send(m_fd, frame.data(), frame.size(), MSG_NOSIGNAL);
    }

  private:
    void serve()
    {
        sb::proto::FrameDecoder decoder;
        for (;;) {
            pollfd fds[2] = {{m_fd, POLLIN, 0}, {m_stop[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0) continue;
            if (fds[1].revents != 0) return;
            char buf[65536];
            const ssize_t n = ::read(m_fd, buf, sizeof buf);
            if (n <= 0) return;
            decoder.feed({buf, static_cast<std::size_t>(n)});
            sb::proto::Message m;
            for (auto got = decoder.next(m); got && *got; got = decoder.next(m))
                m_answer(m);
        }
    }

    std::function<void(const sb::proto::Message&)> m_answer;
    int m_fd = -1, m_client = -1;
    int m_stop[2] = {-1, -1};
    std::thread m_thread;
};

// The other end of a sandbox's control connection: exec_start gets a process that prints
// "out\n" and exits 0 (7 when its argv holds "fail"), file requests get fixed answers (a file
// "hello.txt" holding "hello", a link "link.txt" to it, everything else missing; writes and
// folders succeed).
class FakeSupervisor {
  public:
    // `canPause`: false answers pause requests as a sandbox without a cgroup of its own does.
    explicit FakeSupervisor(bool canPause = true) : m_canPause(canPause) {}
    // The client end, for a SessionLink (once).
    std::unique_ptr<sb::e2b::SessionLink> link() { return m_peer.link(); }
    // Whether its sandbox is frozen (pause_request).
    bool paused() const { return m_paused; }
    // The writes it was asked for, their contents as "bytes" (a size).
    std::vector<nlohmann::json> writes() const
    {
        std::lock_guard lock(m_mutex);
        return m_writes;
    }

  private:
    void send(const sb::proto::Message& m) { m_peer.send(m); }
    void answer(const sb::proto::Message& m)
    {
        using sb::proto::MsgType;
        const auto id = m.body.value("id", std::uint64_t{0});
        if (m.type == MsgType::ExecStart) {
            send(sb::proto::jsonMessage(MsgType::ExecStarted, {{"id", id}, {"pid", 40 + id}}));
            sb::proto::Message out;
            out.type = MsgType::ExecOutput;
            out.seq = id << 8 | sb::proto::kExecStdout;
            out.bytes = "out\n";
            send(out);
            const bool fail = m.body.dump().find("fail") != std::string::npos;
            send(sb::proto::jsonMessage(
                MsgType::ExecExit, {{"id", id}, {"exit_code", fail ? 7 : 0}, {"signal", nullptr}}));
        } else if (m.type == MsgType::PauseRequest && !m_canPause) {
            nlohmann::json error = sb::proto::errorBody(
                sb::unsupported("the sandbox has no cgroup of its own to freeze it with"), false,
                "pause_request");
            error["id"] = id;
            send(sb::proto::jsonMessage(MsgType::Error, error));
        } else if (m.type == MsgType::PauseRequest) {
            m_paused = m.body.value("paused", false);
            send(sb::proto::jsonMessage(MsgType::PauseReply,
                                        {{"id", id}, {"ok", true}, {"paused", m_paused.load()}}));
        } else if (m.type == MsgType::FileRequest) {
            const std::string op = m.body.value("op", std::string());
            const std::string path = m.body.value("path", std::string());
            nlohmann::json reply = {{"id", id}, {"ok", true}};
            if (op == "write") {
                nlohmann::json seen = m.body;
                seen.erase("data_base64");
                seen["bytes"] = sb::fromBase64(m.body.value("data_base64", "")).value_or("").size();
                std::lock_guard lock(m_mutex);
                m_writes.push_back(seen);
                if (m.body.value("more", false) && !m.body.contains("upload")) reply["upload"] = id;
            }
            const bool hello = path == "/home/user/hello.txt";
            if (op == "stat" && path == "/home/user/link.txt")
                reply.update({{"type", "symlink"},
                              {"size", 9},
                              {"mode", 0777},
                              {"target", "hello.txt"},
                              {"mtime_ns", 0}});
            else if ((op == "stat" || op == "read") && !hello)
                reply = {{"id", id},
                         {"ok", false},
                         {"error", {{"code", "not_found"}, {"message", path + ": missing"}}}};
            else if (op == "stat")
                reply.update({{"type", "file"},
                              {"size", 5},
                              {"mode", 0644},
                              {"uid", 0},
                              {"gid", 0},
                              {"mtime_ns", 1700000000123456789LL}});
            else if (op == "read")
                reply.update(
                    {{"size", 5}, {"offset", 0}, {"eof", true}, {"data_base64", "aGVsbG8="}});
            else if (op == "list")
                reply["entries"] = nlohmann::json::array({{{"path", "hello.txt"},
                                                           {"type", "file"},
                                                           {"size", 5},
                                                           {"mode", 0644},
                                                           {"mtime_ns", 0}},
                                                          {{"path", "sub"},
                                                           {"type", "directory"},
                                                           {"size", 0},
                                                           {"mode", 0755},
                                                           {"mtime_ns", 0}},
                                                          {{"path", "sub/deep.txt"},
                                                           {"type", "file"},
                                                           {"size", 1},
                                                           {"mode", 0644},
                                                           {"mtime_ns", 0}}});
            send(sb::proto::jsonMessage(MsgType::FileReply, reply));
        }
    }
    mutable std::mutex m_mutex;
    std::vector<nlohmann::json> m_writes;
    std::atomic<bool> m_paused{false};
    bool m_canPause = true;
    ControlPeer m_peer{[this](const sb::proto::Message& m) { answer(m); }}; // last: it answers
};

} // namespace sbtest
