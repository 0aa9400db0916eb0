// The supervisor's side of the control protocol (core/control, and the exec and file requests
// of core/supervision/ExecService): a real ControlServer on a unix socket, with a backend whose
// ExecService has no sandbox behind it (every request is parsed and checked, then fails to
// reach the helper), gets one client connection per input.
//
// Input lines: "TYPE BODY", TYPE a message type number, BODY its payload as it goes on the wire
// (JSON, or raw bytes for bytes frames: their 8-byte seq first); a line starting with "raw "
// goes on the socket as it is, framing and all. The text form keeps the corpus readable.
#include "FuzzCheck.h"
#include "control/ControlServer.h"
#include "sandbox/Sandbox.h"
#include "supervision/ExecService.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

class Backend : public sb::SessionBackend {
  public:
    sb::ControlServer* server = nullptr;
    std::unique_ptr<sb::ExecService> programs;

    Backend()
    {
        sb::ExecServiceHooks hooks;
        hooks.sendTo = [this](std::uint64_t client, const std::string& frame) {
            return server && server->sendTo(client, frame);
        };
        hooks.queuedBytes = [this](std::uint64_t client) {
            return server ? server->queuedBytes(client) : 0;
        };
        programs = std::make_unique<sb::ExecService>(m_sandbox, std::vector<std::string>{"A=1"},
                                                     std::move(hooks));
    }
    sb::SessionSummary summary() const override
    {
        sb::SessionSummary s;
        s.id = "fuzz";
        s.command = {"agent"};
        s.workspace = "/nonexistent/project";
        return s;
    }
    void writeTerminalInput(std::string_view) override {}
    void resize(unsigned, unsigned) override {}
    sb::Status answerApproval(std::uint64_t id, const sb::ApprovalAnswer&) override
    {
        return sb::Error{sb::ErrorCode::NotFound, 0, "approval #" + std::to_string(id)};
    }
    std::vector<sb::ApprovalRequest> pendingApprovals() const override { return {}; }
    void stop(bool) override {}
    sb::Status clientRequest(std::uint64_t client, const std::string& name,
                             sb::proto::Message& request) override
    {
        return programs->request(client, name, request);
    }
    bool servesPrograms() const override { return true; }
    void clientGone(std::uint64_t client) override { programs->clientGone(client); }

  private:
    sb::SandboxProcess m_sandbox; // nothing: no init, no helper
};

using sbfuzz::check;

void putLe(std::string& out, std::uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out += static_cast<char>((value >> (8 * i)) & 0xff);
}

// The bytes the input's lines stand for.
std::string wire(std::string_view input)
{
    std::string out;
    while (!input.empty()) {
        std::size_t end = input.find('\n');
        std::string_view line = input.substr(0, end);
        if (line.substr(0, 4) == "raw ") {
            out += line.substr(4);
        } else {
            std::size_t space = line.find(' ');
            unsigned type = 0;
            for (char c : line.substr(0, space))
                if (c >= '0' && c <= '9')
                    type = (type * 10 + static_cast<unsigned>(c - '0')) & 0xff;
            std::string_view body = space == std::string_view::npos ? "" : line.substr(space + 1);
            putLe(out, body.size() + 1, 4);
            out += static_cast<char>(type);
            out += body;
        }
        if (end == std::string_view::npos) break;
        input.remove_prefix(end + 1);
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static Backend backend;
    // The runtime folder outlives the server: its handler is registered before the server's
    // destructor, so it runs after it.
    static char runtimeDir[] = "/tmp/sandbench-fuzz-XXXXXX";
    static std::unique_ptr<sb::ControlServer> server = [] {
        check(::mkdtemp(runtimeDir) != nullptr, "mkdtemp");
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(runtimeDir, ignored);
        });
        ::setenv("XDG_RUNTIME_DIR", runtimeDir, 1);
        sb::ControlServerOptions options;
        options.log = [](const std::string&) {};
        auto listening = sb::ControlServer::listen("fuzz", backend, options);
        check(static_cast<bool>(listening), "listen");
        backend.server = listening->get();
        return std::move(listening.value());
    }();

    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    check(fd >= 0, "socket");
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::string path = server->socketPath().string();
    check(path.size() < sizeof addr.sun_path, "socket path");
    path.copy(addr.sun_path, path.size());
    check(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0, "connect");

    const std::string bytes = wire({reinterpret_cast<const char*>(data), size});
    std::size_t sent = 0;
    bool closed = false;
    // Bounded: the server has the input, answered and closed, or gave up on it.
    for (int round = 0; round < 200 && !closed; ++round) {
        if (sent < bytes.size()) {
            ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n > 0) sent += static_cast<std::size_t>(n);
            if (n < 0 && errno != EAGAIN) closed = true;
            if (sent == bytes.size()) ::shutdown(fd, SHUT_WR);
        }
        std::vector<pollfd> fds;
        server->fillPollFds(fds);
        fds.push_back({fd, POLLIN, 0});
        ::poll(fds.data(), fds.size(), 1);
        server->handle(fds);
        for (char buf[65536];;) { // what the server says is read and dropped
            ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n > 0) continue;
            if (n == 0 || errno != EAGAIN) closed = true;
            break;
        }
        bool quiet = true;
        for (const pollfd& p : fds)
            quiet = quiet && p.revents == 0;
        if (sent == bytes.size() && quiet) break;
    }
    ::close(fd);
    // The server notices the closed connection and forgets the client.
    for (int round = 0; round < 20 && server->clientCount() > 0; ++round) {
        std::vector<pollfd> fds;
        server->fillPollFds(fds);
        ::poll(fds.data(), fds.size(), 1);
        server->handle(fds);
    }
    check(server->clientCount() == 0, "the server let go of a closed client");
    return 0;
}
