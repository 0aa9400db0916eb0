// The path every request takes, whatever the protocol: decide on the name, resolve on the
// host side, decide on each address, ask when the policy says so, connect to exactly the
// address that was checked.
#include "base/UniqueFd.h"
#include "network/ProxyInternal.h"
#include "network/TlsIntercept.h"

#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

namespace sb {

using namespace proxy;

namespace {

std::string targetKey(const std::string& host, std::uint16_t port)
{
    return host + " " + std::to_string(port);
}

std::uint8_t socksCodeFor(int err)
{
    switch (err) {
    case ECONNREFUSED:
        return 0x05;
    case ENETUNREACH:
        return 0x03;
    case EHOSTUNREACH:
        return 0x04;
    case ETIMEDOUT:
        return 0x06;
    default:
        return 0x01;
    }
}

// An idle keep-alive upstream the server has closed meanwhile cannot take a new request.
bool stillOpen(const Side& upstream)
{
    if (upstream.fd < 0 || upstream.eof) return false;
    char byte;
    ssize_t n = recv(upstream.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

} // namespace

void Proxy::Impl::request(Conn& c, std::string host, std::uint16_t port, std::string protocol)
{
    c.gen++;
    if (!c.identified && m_hooks.identify) {
        c.process = m_hooks.identify(c.agentLocal, c.agentRemote, false);
        c.identified = true;
    }
    c.req = ConnectionRequest{std::move(host), port,       std::move(protocol), {}, c.id,
                              c.process,       c.commandId};
    c.candidates.clear();
    c.nextCandidate = 0;
    c.reuse = false;
    auto decision = rules()->decideHost(c.req.host, port, m_ownAddresses, c.process);
    if (decision.action == RuleAction::Deny && decision.final) {
        proceed(c, RuleAction::Deny, decision.rule, false); // no DNS for a denied name
        return;
    }
    if (c.upstream.fd >= 0) {
        if (c.req.protocol == "http" && c.upstreamKey == targetKey(c.req.host, port) &&
            stillOpen(c.upstream)) {
            // Same destination on a keep-alive connection: check the address in use again
            // (the policy may have changed) without a new lookup.
            c.reuse = true;
            onResolved(c, std::vector<IpAddress>{c.upstreamAddress});
            return;
        }
        closeUpstream(c);
    }
    if (c.fixedAddress) { // a redirected connection: exactly where the agent connected
        onResolved(c, std::vector<IpAddress>{*c.fixedAddress});
        return;
    }
    if (auto ip = ipLiteral(c.req.host)) {
        onResolved(c, std::vector<IpAddress>{*ip});
        return;
    }
    setPhase(c, Phase::Resolving, m_options.connectTimeout);
    m_resolver->submit(c.id, c.gen, c.req.host);
}

void Proxy::Impl::onResolved(Conn& c, Result<std::vector<IpAddress>> addresses)
{
    if (!addresses || addresses->empty()) {
        failUpstream(
            c, 502, 0x04,
            "cannot resolve " + c.req.host +
                (addresses ? std::string(": no address") : ": " + addresses.error().message));
        return;
    }
    // Every address is checked; the connection goes only to addresses that passed, in the
    // resolver's order, and never through a second lookup.
    std::optional<NetworkDecision> first;
    std::optional<NetworkDecision> firstDenied;
    auto current = rules();
    for (const auto& address : *addresses) {
        auto d = current->decideAddress(c.req.host, address, c.req.port, m_ownAddresses, c.process);
        if (d.action == RuleAction::Deny) {
            if (!firstDenied) firstDenied = d;
            continue;
        }
        if (!first) first = d;
        // With a plain allow, a fallback address that would need asking is not tried silently.
        if (first->action == RuleAction::Allow && d.action != RuleAction::Allow) continue;
        c.candidates.push_back(address);
    }
    if (!first) {
        proceed(c, RuleAction::Deny, firstDenied->rule, false);
        return;
    }
    c.req.address = c.candidates.front().toString();
    if (first->action == RuleAction::Allow) {
        proceed(c, RuleAction::Allow, first->rule, false);
        return;
    }
    if (c.approvedAtConnect) { // asked while its connect() waited (ProxyScreen.cpp)
        proceed(c, RuleAction::Allow, *std::exchange(c.approvedAtConnect, std::nullopt), true);
        return;
    }
    std::string key = targetKey(c.req.host, c.req.port) + " " + c.req.address;
    if (c.reuse && c.approvedKey == key) {
        proceed(c, RuleAction::Allow, first->rule + ", approved earlier on this connection", false);
        return;
    }
    if (m_options.observe) { // nobody is asked: allowed, and recorded as what would have been
        c.wouldAsk = true;
        proceed(c, RuleAction::Allow, first->rule, false);
        return;
    }
    if (!m_hooks.ask) {
        proceed(c, RuleAction::Deny, first->rule + "; no one to ask", false);
        return;
    }
    setPhase(c, Phase::Asking, std::chrono::milliseconds(0));
    auto once = std::make_shared<std::atomic<bool>>(false);
    std::weak_ptr<Mailbox> mailbox = m_mailbox;
    Decide decide = [mailbox, once, id = c.id, gen = c.gen](bool allow, std::string rule) {
        if (once->exchange(true)) return;
        if (auto m = mailbox.lock()) m->post(AskDone{id, gen, allow, std::move(rule)});
    };
    m_hooks.ask(c.req, first->rule, std::move(decide));
}

void Proxy::Impl::addShadow(ProxyEvent& e) const
{
    if (!m_shadowRules) return;
    const ConnectionRequest& r = e.request;
    NetworkDecision d = m_shadowRules->decideHost(r.host, r.port, m_ownAddresses, r.process);
    auto address = IpAddress::parse(r.address);
    if (!(d.action == RuleAction::Deny && d.final) && address)
        d = m_shadowRules->decideAddress(r.host, *address, r.port, m_ownAddresses, r.process);
    e.shadowAction = d.action;
    e.shadowRule = std::move(d.rule);
}

void Proxy::Impl::onAsked(Conn& c, bool allow, std::string rule)
{
    if (rule.empty()) rule = allow ? "allowed when asked" : "denied when asked";
    if (allow) c.approvedKey = targetKey(c.req.host, c.req.port) + " " + c.req.address;
    proceed(c, allow ? RuleAction::Allow : RuleAction::Deny, std::move(rule), true);
}

void Proxy::Impl::proceed(Conn& c, RuleAction action, std::string rule, bool asked)
{
    ProxyEvent e;
    e.kind = ProxyEvent::Kind::Decided;
    e.request = c.req;
    e.action = action;
    e.rule = rule;
    e.asked = asked;
    e.wouldAsk = std::exchange(c.wouldAsk, false);
    addShadow(e);
    e.detail = c.req.protocol == "http" ? c.httpDetail : std::string();
    emit(std::move(e));
    if (action != RuleAction::Allow) {
        deny(c, rule);
        return;
    }
    if (c.reuse) {
        startHttpExchange(c);
        return;
    }
    connectNext(c);
}

void Proxy::Impl::connectNext(Conn& c)
{
    int lastError = ECONNREFUSED;
    while (c.nextCandidate < c.candidates.size()) {
        const IpAddress& address = c.candidates[c.nextCandidate++];
        UniqueFd fd(socket(address.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        socklen_t length = 0;
        auto target = address.toSockaddr(c.req.port, length);
        epoll_event ev{};
        ev.events = kSideEvents;
        ev.data.u64 = c.id << 2 | 1;
        if (!fd ||
            (connect(fd.get(), reinterpret_cast<sockaddr*>(&target), length) != 0 &&
             errno != EINPROGRESS) ||
            epoll_ctl(m_epollFd, EPOLL_CTL_ADD, fd.get(), &ev) != 0) {
            lastError = errno;
            continue;
        }
        c.upstream = Side{};
        c.upstream.fd = fd.release(); // the connection's from here on (closeUpstream)
        c.upstream.canWrite = false;
        c.upstreamAddress = address;
        c.req.address = address.toString();
        setPhase(c, Phase::Connecting, m_options.connectTimeout);
        return;
    }
    failUpstream(c, 502, socksCodeFor(lastError),
                 "cannot connect to " + c.req.host + " port " + std::to_string(c.req.port) + ": " +
                     std::strerror(lastError));
}

void Proxy::Impl::onConnectReady(Conn& c)
{
    int err = 0;
    socklen_t length = sizeof err;
    if (getsockopt(c.upstream.fd, SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
    if (err == 0) {
        onUpstreamOpen(c);
        return;
    }
    closeUpstream(c);
    if (c.nextCandidate < c.candidates.size()) {
        connectNext(c);
        return;
    }
    failUpstream(c, 502, socksCodeFor(err),
                 "cannot connect to " + c.req.host + " port " + std::to_string(c.req.port) + " (" +
                     c.req.address + "): " + std::strerror(err));
}

void Proxy::Impl::onUpstreamOpen(Conn& c)
{
    int one = 1;
    setsockopt(c.upstream.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c.upstream.canWrite = true;
    c.upstreamKey = targetKey(c.req.host, c.req.port);
    c.upstreamReq = c.req;
    c.markUp = c.up.moved;
    c.markDown = c.down.moved;
    if (c.req.protocol == "http") {
        startHttpExchange(c);
        return;
    }
    const bool terminated =
        m_options.intercept && m_options.intercept->terminates(c.req.host, c.req.port);
    if (c.req.protocol == "tcp") { // redirected: the agent's connect already succeeded
        terminated ? handOff(c) : startTunnel(c);
        return;
    }
    if (c.req.protocol == "connect") {
        static constexpr std::string_view kEstablished =
            "HTTP/1.1 200 Connection established\r\n\r\n";
        c.down.pending += kEstablished;
        c.markDown += kEstablished.size(); // the proxy's own reply is not the destination's
    } else {
        socksReply(c, 0x00, false);
        c.markDown += 10;
    }
    terminated ? handOff(c) : startTunnel(c);
}

void Proxy::Impl::handOff(Conn& c)
{
    InterceptedConnection handed;
    handed.toClient = c.down.pending.substr(c.down.pendingOff);
    handed.fromClient = std::move(c.cin);
    handed.request = c.req;
    for (Side* side : {&c.client, &c.upstream}) {
        epoll_ctl(m_epollFd, EPOLL_CTL_DEL, side->fd, nullptr);
        (side == &c.client ? handed.client : handed.upstream) = UniqueFd(side->fd);
        side->fd = -1;
    }
    c.upstreamKey.clear(); // its Closed event is the interceptor's
    closeConn(c);
    m_options.intercept->take(std::move(handed));
}

void Proxy::Impl::startTunnel(Conn& c)
{
    // Bytes the agent sent right behind its request (a TLS ClientHello, say) go first.
    c.up.pending += c.cin;
    c.cin.clear();
    c.up.splicing = c.down.splicing = true;
    c.up.limit = c.down.limit = kUnlimited;
    setPhase(c, Phase::Tunnel, std::chrono::milliseconds(0));
}

void Proxy::Impl::deny(Conn& c, const std::string& rule)
{
    if (c.req.protocol == "tcp") {
        reset(c);
        return;
    }
    if (c.req.protocol == "socks5") {
        socksReply(c, 0x02, true); // "connection not allowed by ruleset"
        return;
    }
    std::string body = "sandbench: " + c.req.host + " port " + std::to_string(c.req.port) +
                       " denied by " + rule + "\n";
    // A plain request without a body leaves the connection usable for the next request.
    bool keepAlive =
        c.req.protocol == "http" && c.http.reqMode == BodyMode::None && !c.http.clientClose;
    c.down.pending += httpReply(403, "Forbidden", body, !keepAlive, rule);
    if (keepAlive) {
        c.firstHead = false;
        setPhase(c, Phase::HttpHead, m_options.idleTimeout);
        return;
    }
    finish(c);
}

void Proxy::Impl::failUpstream(Conn& c, int httpStatus, std::uint8_t socksCode, std::string why)
{
    ProxyEvent e;
    e.kind = ProxyEvent::Kind::Failed;
    e.request = c.req;
    e.detail = why;
    emit(std::move(e));
    if (c.req.protocol == "tcp") {
        reset(c);
        return;
    }
    if (c.req.protocol == "socks5") {
        closeUpstream(c);
        socksReply(c, socksCode, true);
        return;
    }
    if (c.http.sentToClient) {
        closeConn(c); // mid-response: only a cut connection tells the agent
        return;
    }
    c.down.pending += httpReply(httpStatus, httpStatus == 504 ? "Gateway Timeout" : "Bad Gateway",
                                "sandbench: " + why + "\n", true);
    finish(c);
}

} // namespace sb
