#include "network/PortForward.h"

#include "base/SignalFreeThread.h"
#include "network/Relay.h"

#include <arpa/inet.h>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace sb {
namespace {

using relay::kSideEvents;
constexpr std::uint64_t kTagWake = 0, kTagListener = 1, kTagHost = 2, kTagInside = 3;
constexpr std::size_t kMaxOpen = 1024; // connections relayed at once, all ports together
constexpr int kSocketWaitMs = 2000;    // for the sandbox's init to make a socket
constexpr int kMaxStepRounds = 32;     // then other connections get their turn

std::uint64_t tag(std::uint64_t id, std::uint64_t kind)
{
    return id << 2 | kind;
}

Result<UniqueFd> listenOnLoopback(std::uint16_t hostPort)
{
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) return sysError("socket for a forwarded port");
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(hostPort);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd.get(), 128) != 0)
        return sysError("listen on 127.0.0.1:" + std::to_string(hostPort));
    return fd;
}

std::uint16_t boundPort(int fd)
{
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    return ntohs(addr.sin_port);
}

// Starts connecting `fd` to the sandbox's loopback: 0 or EINPROGRESS is under way.
int connectInside(int fd, int family, std::uint16_t port)
{
    int r;
    if (family == AF_INET6) {
        sockaddr_in6 addr{};
        addr.sin6_family = AF_INET6;
        addr.sin6_port = htons(port);
        addr.sin6_addr = in6addr_loopback;
        r = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    } else {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(port);
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        r = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    }
    return r == 0 ? 0 : errno;
}

} // namespace

struct PortForwarder::Impl {
    struct Listener {
        UniqueFd fd;
        PortForward info;
    };
    // One forwarded connection; the loop thread's alone.
    struct Conn {
        std::uint64_t id = 0;
        std::uint16_t port = 0;
        relay::Side host, inside;
        relay::Flow in, out; // host → sandbox, sandbox → host
        int family = AF_INET;
        bool connecting = true;
        bool counted = false; // in its forward's `open`
    };

    SocketSource source;
    UniqueFd epoll, wake;
    std::thread thread;
    std::atomic<bool> stopping{false};

    mutable std::mutex mutex; // guards listeners, closedPorts and every PortForward's counters
    std::map<std::uint16_t, Listener> listeners;
    std::vector<std::uint16_t> closedPorts; // whose connections the loop is to close

    std::map<std::uint64_t, Conn> conns; // the loop thread's
    std::uint64_t nextConn = 1;

    void run();
    void acceptOn(std::uint16_t port);
    void startConnect(Conn& c);
    void onInside(Conn& c, std::uint32_t events);
    void step(Conn& c);
    void refuse(Conn& c, const std::string& why);
    void closeConn(Conn& c, bool count = true);
    void closePorts();
    void wakeLoop() const // from any thread
    {
        const std::uint64_t one = 1;
        [[maybe_unused]] auto n = ::write(wake.get(), &one, sizeof one);
    }
    PortForward* statsOf(std::uint16_t port); // with `mutex` held
};

PortForward* PortForwarder::Impl::statsOf(std::uint16_t port)
{
    auto it = listeners.find(port);
    return it == listeners.end() ? nullptr : &it->second.info;
}

void PortForwarder::Impl::run()
{
    epoll_event events[64];
    while (!stopping) {
        const int n = ::epoll_wait(epoll.get(), events, 64, -1);
        for (int i = 0; i < n && !stopping; ++i) {
            const std::uint64_t data = events[i].data.u64;
            const std::uint64_t kind = data & 3, id = data >> 2;
            if (kind == kTagWake) {
                std::uint64_t count;
                [[maybe_unused]] auto r = ::read(wake.get(), &count, sizeof count);
                closePorts();
            } else if (kind == kTagListener) {
                acceptOn(static_cast<std::uint16_t>(id));
            } else if (auto it = conns.find(id); it != conns.end()) {
                Conn& c = it->second;
                relay::Side& side = kind == kTagHost ? c.host : c.inside;
                if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                    side.canRead = true;
                if (events[i].events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) side.canWrite = true;
                if (kind == kTagInside && c.connecting)
                    onInside(c, events[i].events);
                else if (!c.connecting)
                    step(c);
            }
        }
    }
    for (auto& [id, c] : conns)
        closeConn(c, false);
    conns.clear();
}

void PortForwarder::Impl::acceptOn(std::uint16_t port)
{
    std::vector<UniqueFd> accepted;
    {
        std::lock_guard lock(mutex);
        auto it = listeners.find(port);
        if (it == listeners.end()) return; // closed since the event
        for (;;) {
            UniqueFd fd(
                ::accept4(it->second.fd.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
            if (!fd) break;
            ++it->second.info.connections;
            accepted.push_back(std::move(fd));
        }
    }
    for (UniqueFd& fd : accepted) {
        Conn& c = conns[nextConn];
        c.id = nextConn++;
        c.port = port;
        c.host.fd = fd.release();
        c.in.splicing = c.out.splicing = true;
        if (conns.size() > kMaxOpen) {
            refuse(c, "more than " + std::to_string(kMaxOpen) + " forwarded connections at once");
            continue;
        }
        epoll_event ev{kSideEvents, {.u64 = tag(c.id, kTagHost)}};
        ::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, c.host.fd, &ev);
        {
            std::lock_guard lock(mutex);
            if (PortForward* f = statsOf(port)) ++f->open, c.counted = true;
        }
        startConnect(c);
    }
}

void PortForwarder::Impl::startConnect(Conn& c)
{
    auto made = source(c.family);
    if (!made) return refuse(c, made.error().describe());
    c.inside = relay::Side{};
    c.inside.fd = made->release();
    epoll_event ev{kSideEvents, {.u64 = tag(c.id, kTagInside)}};
    ::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, c.inside.fd, &ev);
    const int err = connectInside(c.inside.fd, c.family, c.port);
    if (err != 0 && err != EINPROGRESS)
        return refuse(c, "connect to port " + std::to_string(c.port) +
                             " in the sandbox: " + std::strerror(err));
    // The outcome comes as an EPOLLOUT (or error) event on the inside socket.
}

void PortForwarder::Impl::onInside(Conn& c, std::uint32_t events)
{
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(c.inside.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err == 0) {
        c.connecting = false;
        return step(c);
    }
    if (err == ECONNREFUSED && c.family == AF_INET) { // perhaps a server on [::1] only
        ::epoll_ctl(epoll.get(), EPOLL_CTL_DEL, c.inside.fd, nullptr);
        ::close(c.inside.fd);
        c.inside.fd = -1;
        c.family = AF_INET6;
        return startConnect(c);
    }
    refuse(c, err == ECONNREFUSED
                  ? "nothing listens on port " + std::to_string(c.port) + " in the sandbox"
                  : "connect to port " + std::to_string(c.port) +
                        " in the sandbox: " + std::strerror(err));
}

void PortForwarder::Impl::step(Conn& c)
{
    for (int round = 0; round < kMaxStepRounds; ++round) {
        switch (relay::stepTunnel(c.host, c.in, c.inside, c.out)) {
        case relay::TunnelStep::Progress:
            continue;
        case relay::TunnelStep::Idle:
            return;
        case relay::TunnelStep::Done:
        case relay::TunnelStep::Error:
            return closeConn(c);
        }
    }
    // Still moving: another event (or the peer's readiness) brings it back; with edge-triggered
    // events nothing is lost, the sides keep canRead/canWrite.
    epoll_event ev{kSideEvents, {.u64 = tag(c.id, kTagHost)}};
    ::epoll_ctl(epoll.get(), EPOLL_CTL_MOD, c.host.fd, &ev); // re-arms a pending edge
}

void PortForwarder::Impl::refuse(Conn& c, const std::string& why)
{
    {
        std::lock_guard lock(mutex);
        if (PortForward* f = statsOf(c.port)) {
            ++f->refused;
            f->lastError = why;
        }
    }
    closeConn(c, false);
}

void PortForwarder::Impl::closeConn(Conn& c, bool count)
{
    for (relay::Side* side : {&c.host, &c.inside})
        if (side->fd >= 0) {
            ::epoll_ctl(epoll.get(), EPOLL_CTL_DEL, side->fd, nullptr);
            ::close(side->fd);
            side->fd = -1;
        }
    c.in.closePipe();
    c.out.closePipe();
    {
        std::lock_guard lock(mutex);
        if (PortForward* f = statsOf(c.port)) {
            if (c.counted) --f->open;
            if (count) {
                f->bytesIn += c.in.moved;
                f->bytesOut += c.out.moved;
            }
        }
    }
    if (!stopping) conns.erase(c.id); // `c` is gone
}

void PortForwarder::Impl::closePorts()
{
    std::vector<std::uint16_t> ports;
    {
        std::lock_guard lock(mutex);
        ports.swap(closedPorts);
    }
    for (std::uint16_t port : ports)
        for (auto it = conns.begin(); it != conns.end();) {
            auto next = std::next(it);
            if (it->second.port == port) closeConn(it->second, false);
            it = next;
        }
}

PortForwarder::PortForwarder(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

PortForwarder::~PortForwarder()
{
    stop();
}

Result<std::unique_ptr<PortForwarder>> PortForwarder::start(SocketSource source)
{
    auto impl = std::make_unique<Impl>();
    impl->source = std::move(source);
    impl->epoll = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
    impl->wake = UniqueFd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!impl->epoll || !impl->wake) return sysError("set up the port forwarder");
    epoll_event ev{EPOLLIN, {.u64 = tag(0, kTagWake)}};
    if (::epoll_ctl(impl->epoll.get(), EPOLL_CTL_ADD, impl->wake.get(), &ev) != 0)
        return sysError("set up the port forwarder");
    Impl* raw = impl.get();
    auto thread = startThread("the port forwarder's thread", [raw] { raw->run(); });
    if (!thread) return thread.error();
    impl->thread = std::move(thread.value());
    return std::unique_ptr<PortForwarder>(new PortForwarder(std::move(impl)));
}

Result<PortForward> PortForwarder::expose(std::uint16_t port, std::uint16_t hostPort,
                                          std::string by)
{
    if (port == 0) return inputError("port 0 cannot be exposed");
    std::lock_guard lock(m_impl->mutex);
    if (m_impl->stopping) return Error{ErrorCode::System, 0, "the session is ending"};
    if (PortForward* f = m_impl->statsOf(port)) {
        if (hostPort != 0 && hostPort != f->hostPort)
            return Error{ErrorCode::Conflict, 0,
                         "port " + std::to_string(port) +
                             " is already exposed at 127.0.0.1:" + std::to_string(f->hostPort)};
        return *f;
    }
    auto listener = listenOnLoopback(hostPort);
    if (!listener) return listener.error();
    Impl::Listener l;
    l.info.port = port;
    l.info.hostPort = boundPort(listener->get());
    l.info.exposedBy = std::move(by);
    l.fd = std::move(*listener);
    epoll_event ev{EPOLLIN, {.u64 = tag(port, kTagListener)}};
    if (::epoll_ctl(m_impl->epoll.get(), EPOLL_CTL_ADD, l.fd.get(), &ev) != 0)
        return sysError("watch the forwarded port's listener");
    PortForward info = l.info;
    m_impl->listeners.emplace(port, std::move(l));
    return info;
}

Status PortForwarder::close(std::uint16_t port)
{
    std::lock_guard lock(m_impl->mutex);
    auto it = m_impl->listeners.find(port);
    if (it == m_impl->listeners.end())
        return Error{ErrorCode::NotFound, 0, "port " + std::to_string(port) + " is not exposed"};
    ::epoll_ctl(m_impl->epoll.get(), EPOLL_CTL_DEL, it->second.fd.get(), nullptr);
    m_impl->listeners.erase(it);
    m_impl->closedPorts.push_back(port);
    m_impl->wakeLoop();
    return {};
}

std::vector<PortForward> PortForwarder::forwards() const
{
    std::lock_guard lock(m_impl->mutex);
    std::vector<PortForward> all;
    for (const auto& [port, l] : m_impl->listeners)
        all.push_back(l.info);
    return all;
}

void PortForwarder::stop()
{
    if (!m_impl || m_impl->stopping.exchange(true)) return;
    m_impl->wakeLoop();
    if (m_impl->thread.joinable()) m_impl->thread.join();
    std::lock_guard lock(m_impl->mutex);
    m_impl->listeners.clear();
}

} // namespace sb
