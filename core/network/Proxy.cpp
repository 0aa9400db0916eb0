// The proxy's thread: lifecycle, the epoll loop, accepting, timeouts and closing.
#include "base/OpenFileLimit.h"
#include "base/SignalFreeThread.h"
#include "network/ProxyInternal.h"

#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sb {

using namespace proxy;
using std::chrono::milliseconds;

namespace {

constexpr std::uint64_t kTagClient = 0, kTagUpstream = 1, kTagListener = 2, kTagMailbox = 3;
constexpr int kMaxDriveRounds = 32; // then other connections get their turn
// The agent is on this machine, so its socket needs no room for a network's bandwidth-delay
// product. Autotuned, the send buffer grows to megabytes on a bulk download and the bytes wait
// there long enough to leave the CPU cache before the agent copies them. 256 KiB (the kernel
// doubles it) cut the CPU a relayed download costs by about a quarter; 128 KiB costs ~10 % more
// CPU than that but keeps source, relay and agent busy at once: on two cores a download moves
// ~0.8 of the direct speed instead of ~0.6 (64, 96, 192 KiB and 1 MiB measured slower;
// docs/benchmarks-log.md, "Network proxy"). 256 KiB in flight is ~5 GB/s at a loopback round trip.
constexpr int kClientSendBuffer = 128 * 1024;

std::uint64_t tag(std::uint64_t id, std::uint64_t kind)
{
    return id << 2 | kind;
}

} // namespace

// ---- Mailbox ----

Mailbox::Mailbox() : m_eventFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

Mailbox::~Mailbox()
{
    if (m_eventFd >= 0) ::close(m_eventFd);
}

void Mailbox::post(Message message)
{
    std::lock_guard lock(m_mutex);
    if (m_closed) return;
    m_queue.push_back(std::move(message));
    std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(m_eventFd, &one, sizeof one);
}

std::deque<Message> Mailbox::take()
{
    std::uint64_t count = 0;
    [[maybe_unused]] auto n = ::read(m_eventFd, &count, sizeof count);
    std::lock_guard lock(m_mutex);
    return std::exchange(m_queue, {});
}

void Mailbox::close()
{
    std::lock_guard lock(m_mutex);
    m_closed = true;
    m_queue.clear();
}

// ---- Proxy ----

Proxy::Proxy(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Proxy::~Proxy()
{
    stop();
}

Result<std::unique_ptr<Proxy>> Proxy::start(int listenFd, NetworkPolicy policy, Hooks hooks,
                                            Options options)
{
    // Each relayed connection holds six fds (two sockets, two pipes): the usual soft limit of
    // 1024 would cap the agent at ~170 connections. The supervisor has raised it already.
    (void)raiseOpenFileLimit();
    auto rules = NetworkRules::compile(policy);
    if (!rules) {
        ::close(listenFd);
        return rules.error();
    }
    std::unique_ptr<Impl> impl;
    try { // init() starts its resolver's threads
        impl = std::make_unique<Impl>(listenFd,
                                      std::make_shared<const NetworkRules>(std::move(*rules)),
                                      std::move(hooks), std::move(options));
        if (auto e = impl->init()) return *e;
    } catch (const std::system_error& e) {
        return threadNotStarted("the network proxy's name resolvers", e);
    }
    Impl* raw = impl.get();
    auto thread = startThread("the network proxy's thread", [raw] { raw->run(); });
    if (!thread) return thread.error();
    raw->m_thread = std::move(thread.value());
    return std::unique_ptr<Proxy>(new Proxy(std::move(impl)));
}

Status Proxy::updatePolicy(const NetworkPolicy& policy)
{
    auto rules = NetworkRules::compile(policy);
    if (!rules) return rules.error();
    auto fresh = std::make_shared<const NetworkRules>(std::move(*rules));
    std::lock_guard lock(m_impl->m_rulesMutex);
    m_impl->m_rules = std::move(fresh);
    return std::nullopt;
}

void Proxy::stop()
{
    if (!m_impl || m_impl->m_stopping.exchange(true)) return;
    m_impl->m_mailbox->post(StopLoop{});
    if (m_impl->m_thread.joinable()) m_impl->m_thread.join();
}

std::uint16_t Proxy::port() const
{
    return m_impl->m_port;
}

std::size_t Proxy::activeConnections() const
{
    return m_impl->m_active.load();
}

std::shared_ptr<const NetworkRules> Proxy::Impl::rules() const
{
    std::lock_guard lock(m_rulesMutex);
    return m_rules;
}

// ---- Impl: lifecycle ----

Proxy::Impl::Impl(int listenFd, std::shared_ptr<const NetworkRules> rules, Hooks hooks,
                  Options options)
    : m_listenFd(listenFd), m_transparentFd(options.transparentListenFd),
      m_resolverFd(options.resolverFd), m_rules(std::move(rules)), m_hooks(std::move(hooks)),
      m_options(std::move(options)), m_mailbox(std::make_shared<Mailbox>())
{
}

Proxy::Impl::~Impl()
{
    for (auto& [id, c] : m_conns)
        closeConn(*c);
    m_conns.clear();
    m_mailbox->close();
    if (m_epollFd >= 0) ::close(m_epollFd);
    if (m_listenFd >= 0) ::close(m_listenFd);
    if (m_transparentFd >= 0) ::close(m_transparentFd);
    if (m_resolverFd >= 0) ::close(m_resolverFd);
}

Status Proxy::Impl::init()
{
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getsockname(m_listenFd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        return sysError("proxy listener: getsockname");
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    m_port = ntohs(in->sin_port); // sin_port and sin6_port share their offset
    if (m_mailbox->fd() < 0) return sysError("proxy: eventfd");
    if (m_options.shadow) {
        auto shadow = NetworkRules::compile(*m_options.shadow);
        if (!shadow) return shadow.error().within("the shadow policy");
        m_shadowRules = std::move(shadow.value());
    }
    m_epollFd = epoll_create1(EPOLL_CLOEXEC);
    if (m_epollFd < 0) return sysError("proxy: epoll_create1");
    for (int fd : {m_listenFd, m_transparentFd, m_resolverFd}) {
        if (fd < 0) continue;
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 ||
            fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
            return sysError("proxy listener: fcntl");
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = tag(fd == m_listenFd ? 0 : fd == m_transparentFd ? 1 : 2, kTagListener);
        if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, fd, &ev) != 0)
            return sysError("proxy: epoll_ctl listener");
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = tag(0, kTagMailbox);
    if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, m_mailbox->fd(), &ev) != 0)
        return sysError("proxy: epoll_ctl eventfd");
    auto resolve = m_options.resolve ? m_options.resolve : Resolver::Fn(systemResolve);
    m_resolver = std::make_unique<Resolver>(std::max(1U, m_options.resolverThreads),
                                            std::move(resolve), m_mailbox);
    m_ownAddresses = hostAddresses();
    m_ownRefreshed = proxy::Clock::now();
    return std::nullopt;
}

void Proxy::Impl::run()
{
    // splice() to a socket the agent closed raises SIGPIPE on this thread; blocked, it only
    // leaves EPIPE, without touching the supervisor's signal dispositions.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);

    epoll_event events[256];
    auto nextSweep = proxy::Clock::now();
    while (!m_stopping.load() || !m_conns.empty()) {
        int timeout = m_ready.empty() ? 100 : 0;
        int n = epoll_wait(m_epollFd, events, 256, timeout);
        if (n < 0 && errno != EINTR) break;
        bool mail = false;
        for (int i = 0; i < n; ++i) {
            std::uint64_t data = events[i].data.u64;
            std::uint64_t kind = data & 3;
            if (kind == kTagListener && data >> 2 == 2)
                onResolverReadable();
            else if (kind == kTagListener)
                accept(data >> 2 == 1);
            else if (kind == kTagMailbox)
                mail = true; // handled after the batch
            else
                onFdEvent(data >> 2, kind == kTagUpstream, events[i].events);
        }
        if (mail) onMessages();
        if (m_stopping.load()) break;
        auto ready = std::exchange(m_ready, {});
        for (auto id : ready)
            if (auto it = m_conns.find(id); it != m_conns.end()) drive(*it->second);
        auto now = proxy::Clock::now();
        if (now >= nextSweep) {
            sweep(now);
            nextSweep = now + milliseconds(100);
        }
    }
    for (auto& [id, c] : m_conns)
        closeConn(*c);
    m_conns.clear();
}

void Proxy::Impl::onMessages()
{
    for (auto& message : m_mailbox->take()) {
        if (std::holds_alternative<StopLoop>(message)) {
            m_stopping = true;
        } else if (auto* lookup = std::get_if<ResolveDone>(&message);
                   lookup != nullptr && (lookup->conn & kLookupTag) != 0) {
            onLookupResolved(lookup->conn, std::move(lookup->addresses));
        } else if (auto* done = std::get_if<ResolveDone>(&message)) {
            auto it = m_conns.find(done->conn);
            if (it != m_conns.end() && it->second->gen == done->gen &&
                it->second->phase == Phase::Resolving) {
                onResolved(*it->second, std::move(done->addresses));
                drive(*it->second);
            }
        } else if (auto* screened = std::get_if<ScreenCall>(&message)) {
            onScreen(std::move(screened->attempt), std::move(screened->answer));
        } else if (auto* screenAsked = std::get_if<ScreenAsked>(&message)) {
            onScreenAsked(screenAsked->id, screenAsked->allow, std::move(screenAsked->rule));
        } else if (auto* asked = std::get_if<AskDone>(&message)) {
            auto it = m_conns.find(asked->conn);
            if (it != m_conns.end() && it->second->gen == asked->gen &&
                it->second->phase == Phase::Asking) {
                onAsked(*it->second, asked->allow, std::move(asked->rule));
                drive(*it->second);
            }
        }
    }
}

// ---- accepting and events ----

void Proxy::Impl::accept(bool transparent)
{
    const int listener = transparent ? m_transparentFd : m_listenFd;
    for (int i = 0; i < 64; ++i) {
        int fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                // Out of descriptors: stop listening for a moment instead of spinning on a
                // listener that stays readable.
                pauseListeners(true);
                m_listenPaused = true;
                m_listenPausedUntil = proxy::Clock::now() + milliseconds(100);
            }
            return;
        }
        if (m_conns.size() >= m_options.maxConnections) {
            ::close(fd);
            ProxyEvent e;
            e.kind = ProxyEvent::Kind::Failed;
            e.detail = "too many connections (" + std::to_string(m_options.maxConnections) + ")";
            emit(std::move(e));
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kClientSendBuffer, sizeof kClientSendBuffer);
        auto c = std::make_unique<Conn>();
        c->id = m_nextId++;
        c->client.fd = fd;
        // The agent's socket is the other end: its address is our peer, its peer our address.
        socklen_t length = sizeof c->agentLocal;
        getpeername(fd, reinterpret_cast<sockaddr*>(&c->agentLocal), &length);
        length = sizeof c->agentRemote;
        getsockname(fd, reinterpret_cast<sockaddr*>(&c->agentRemote), &length);
        c->lastActivity = proxy::Clock::now();
        c->req.connection = c->id;
        epoll_event ev{};
        ev.events = kSideEvents;
        ev.data.u64 = tag(c->id, kTagClient);
        if (epoll_ctl(m_epollFd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            ::close(fd);
            continue;
        }
        setPhase(*c, Phase::Sniff, m_options.handshakeTimeout);
        auto id = c->id;
        m_conns.emplace(id, std::move(c));
        m_active = m_conns.size();
        if (transparent) startRedirected(*m_conns[id]);
        drive(*m_conns[id]);
    }
}

void Proxy::Impl::pauseListeners(bool pause)
{
    for (int fd : {m_listenFd, m_transparentFd}) {
        if (fd < 0) continue;
        epoll_event ev{};
        ev.events = pause ? 0U : std::uint32_t{EPOLLIN};
        ev.data.u64 = tag(fd == m_transparentFd ? 1 : 0, kTagListener);
        epoll_ctl(m_epollFd, EPOLL_CTL_MOD, fd, &ev);
    }
}

void Proxy::Impl::onFdEvent(std::uint64_t id, bool isUpstream, std::uint32_t events)
{
    auto it = m_conns.find(id);
    if (it == m_conns.end()) return;
    Conn& c = *it->second;
    Side& side = isUpstream ? c.upstream : c.client;
    if (side.fd < 0) return; // an event of an upstream closed earlier in this batch
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) side.canRead = true;
    if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) side.canWrite = true;
    if (isUpstream && c.phase == Phase::Connecting) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) onConnectReady(c);
    } else if (!isUpstream && (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) &&
               (c.phase == Phase::Resolving || c.phase == Phase::Asking ||
                c.phase == Phase::Connecting)) {
        // The agent gave up while its request waited: nothing to answer any more.
        char byte;
        if (recv(c.client.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0 ||
            (events & (EPOLLHUP | EPOLLERR))) {
            closeConn(c);
            m_conns.erase(it);
            m_active = m_conns.size();
            return;
        }
    }
    drive(c);
}

void Proxy::Impl::drive(Conn& c)
{
    for (int round = 0;; ++round) {
        if (c.client.fd < 0) break;
        if (round == kMaxDriveRounds) {
            m_ready.push_back(c.id);
            return;
        }
        if (!step(c)) break;
        c.lastActivity = proxy::Clock::now();
    }
    if (c.client.fd < 0) {
        m_conns.erase(c.id); // destroys c
        m_active = m_conns.size();
        return;
    }
    // A side whose bytes have nowhere to go (its pipe to the other side is full) is not
    // listened to for data: its arrivals would only wake this thread for nothing, and TCP
    // wakes synchronously, onto the sender's CPU. On a bulk download that pulled the relay to
    // the server's side, away from the agent it hands the bytes to (docs/benchmarks-log.md,
    // "Network proxy"). Its close and errors are still heard (EPOLLRDHUP, EPOLLERR, EPOLLHUP).
    auto interest = [&](Side& side, const Flow& f, std::uint64_t kind) {
        if (side.fd < 0) return;
        bool want = !(f.pipeCapacity > 0 && f.inPipe >= f.pipeCapacity);
        if (want == side.wantsIn) return;
        epoll_event ev{};
        ev.events = want ? kSideEvents : kSideEvents & ~std::uint32_t{EPOLLIN};
        ev.data.u64 = tag(c.id, kind);
        if (epoll_ctl(m_epollFd, EPOLL_CTL_MOD, side.fd, &ev) == 0) side.wantsIn = want;
    };
    interest(c.upstream, c.down, kTagUpstream);
    interest(c.client, c.up, kTagClient);
}

// One round of work for the connection's phase; true when something moved.
bool Proxy::Impl::step(Conn& c)
{
    switch (c.phase) {
    case Phase::Sniff:
        if (c.cin.empty()) {
            int r = readInto(c.client, c.cin, 4096);
            if (r < 0 || (r == 0 && c.client.eof)) {
                closeConn(c);
                return false;
            }
            if (r == 0) return false;
        }
        if (static_cast<unsigned char>(c.cin[0]) == 0x05) {
            setPhase(c, Phase::SocksGreeting, m_options.handshakeTimeout);
        } else if (static_cast<unsigned char>(c.cin[0]) == 0x04) {
            emitMalformed(c, "SOCKS4 is not supported (use SOCKS5)");
            socksReply(c, 0x5b, true); // SOCKS4's "request rejected"
        } else {
            setPhase(c, Phase::HttpHead, m_options.handshakeTimeout);
        }
        return true;
    case Phase::SocksGreeting:
    case Phase::SocksRequest:
        return stepSocks(c);
    case Phase::HttpHead:
        return stepHttpHead(c);
    case Phase::Resolving:
    case Phase::Asking:
    case Phase::Connecting:
        return false; // woken by the mailbox or the upstream socket
    case Phase::Tunnel:
        return stepTunnel(c);
    case Phase::HttpExchange:
        return stepHttpExchange(c);
    case Phase::Closing: {
        auto r = pump(c.down, c.upstream, c.client);
        if (r == Pump::Error) {
            closeConn(c);
            return false;
        }
        if (!c.down.drained()) return r == Pump::Progress;
        if (!c.lingering) {
            // Half-close and read until the agent's FIN: closing with unread input would
            // send RST, which can destroy the reply before the agent reads it.
            shutdown(c.client.fd, SHUT_WR);
            c.lingering = true;
        }
        std::string discard;
        int n = readInto(c.client, discard, 65536);
        if (n < 0 || c.client.eof) {
            closeConn(c);
            return false;
        }
        return n > 0;
    }
    }
    return false;
}

void Proxy::Impl::setPhase(Conn& c, Phase phase, milliseconds timeout)
{
    c.phase = phase;
    c.deadline =
        timeout.count() > 0 ? proxy::Clock::now() + timeout : proxy::Clock::time_point::max();
}

// ---- timers ----

void Proxy::Impl::sweep(proxy::Clock::time_point now)
{
    if (m_listenPaused && now >= m_listenPausedUntil) {
        pauseListeners(false);
        m_listenPaused = false;
    }
    sweepScreened(now);
    if (now - m_ownRefreshed > std::chrono::seconds(10)) {
        m_ownAddresses = hostAddresses(); // interfaces come and go (VPN, Wi-Fi)
        m_ownRefreshed = now;
    }
    std::vector<std::uint64_t> expired;
    for (auto& [id, c] : m_conns) {
        bool relaying = c->phase == Phase::Tunnel || c->phase == Phase::HttpExchange;
        if (relaying) {
            bool halfOpen = c->client.eof || c->upstream.eof;
            auto limit = halfOpen ? m_options.halfOpenTimeout : m_options.idleTimeout;
            if (now - c->lastActivity > limit) expired.push_back(id);
        } else if (now >= c->deadline) {
            expired.push_back(id);
        }
    }
    for (auto id : expired) {
        auto it = m_conns.find(id);
        if (it == m_conns.end()) continue;
        Conn& c = *it->second;
        switch (c.phase) {
        case Phase::Sniff:
        case Phase::SocksGreeting:
        case Phase::SocksRequest:
            if (!c.cin.empty()) emitMalformed(c, "incomplete handshake before the timeout");
            closeConn(c);
            break;
        case Phase::HttpHead:
            if (!c.cin.empty())
                httpError(c, 408, "Request Timeout", "incomplete request head before the timeout");
            else
                closeConn(c); // an idle keep-alive connection
            break;
        case Phase::Resolving:
        case Phase::Connecting:
            failUpstream(c, 504, 0x06, "timed out connecting to " + c.req.host);
            break;
        case Phase::Closing:
            closeConn(c);
            break;
        default:
            if (c.upstream.fd >= 0) closeUpstream(c); // reports the bytes moved
            closeConn(c);
            break;
        }
        drive(c); // flushes a reply, or erases a closed connection
    }
}

// ---- closing and events ----

void Proxy::Impl::closeUpstream(Conn& c)
{
    if (c.upstream.fd < 0) return;
    epoll_ctl(m_epollFd, EPOLL_CTL_DEL, c.upstream.fd, nullptr);
    ::close(c.upstream.fd);
    c.upstream = Side{};
    if (!c.upstreamKey.empty()) {
        ProxyEvent e;
        e.kind = ProxyEvent::Kind::Closed;
        e.request = c.upstreamReq;
        e.bytesUp = c.up.moved - c.markUp;
        e.bytesDown = c.down.moved - c.markDown;
        emit(std::move(e));
    }
    c.upstreamKey.clear();
    c.approvedKey.clear();
    c.uin.clear();
}

bool Proxy::Impl::stepTunnel(Conn& c)
{
    switch (relay::stepTunnel(c.client, c.up, c.upstream, c.down)) {
    case relay::TunnelStep::Error: // a reset on either side ends both: there is no one to tell
    case relay::TunnelStep::Done:
        closeConn(c);
        return false;
    case relay::TunnelStep::Progress:
        return true;
    case relay::TunnelStep::Idle:
        return false;
    }
    return false;
}

void Proxy::Impl::closeConn(Conn& c)
{
    closeUpstream(c);
    c.up.closePipe();
    c.down.closePipe();
    if (c.client.fd >= 0) {
        epoll_ctl(m_epollFd, EPOLL_CTL_DEL, c.client.fd, nullptr);
        ::close(c.client.fd);
        c.client.fd = -1;
    }
    c.gen++; // late resolve/ask answers for this connection are dropped
}

void Proxy::Impl::finish(Conn& c)
{
    closeUpstream(c);
    c.up.pending.clear();
    c.up.pendingOff = 0;
    c.down.splicing = false;
    setPhase(c, Phase::Closing, milliseconds(2000));
}

void Proxy::Impl::emit(ProxyEvent event)
{
    if (m_hooks.onEvent) m_hooks.onEvent(event);
}

void Proxy::Impl::emitMalformed(Conn& c, std::string detail)
{
    ProxyEvent e;
    e.kind = ProxyEvent::Kind::Malformed;
    e.request.connection = c.id;
    e.request.protocol = c.phase == Phase::HttpHead ? "http" : "socks5";
    e.detail = std::move(detail);
    emit(std::move(e));
}

} // namespace sb
