// Connections the sandbox's network redirected to the proxy (sandbox/NetworkRedirect.h): the
// program connected to an address of its choosing, the kernel brought it here, and the
// connection's original destination is the request. No handshake: allowed, the bytes flow
// both ways unchanged; refused, the connection is reset. Where the sandbox's filter screens
// connect() (ProxyScreen.cpp), a denied connection never gets here: its connect() failed.
#include "network/ProxyInternal.h"

#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sb {

using namespace proxy;

namespace {

constexpr int kSoOriginalDst = 80; // SO_ORIGINAL_DST and IP6T_SO_ORIGINAL_DST (linux/netfilter)

// Where the agent's connection was going before the redirect.
std::optional<std::pair<IpAddress, std::uint16_t>> originalDestination(int fd)
{
    sockaddr_storage target{};
    socklen_t length = sizeof(sockaddr_in6);
    if (getsockopt(fd, SOL_IPV6, kSoOriginalDst, &target, &length) != 0) {
        length = sizeof(sockaddr_in);
        if (getsockopt(fd, SOL_IP, kSoOriginalDst, &target, &length) != 0) return std::nullopt;
    }
    auto address = IpAddress::fromSockaddr(target);
    if (!address) return std::nullopt;
    const std::uint16_t port =
        ntohs(target.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&target)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&target)->sin_port);
    return std::pair(*address, port);
}

bool isLoopback(const IpAddress& a)
{
    static const IpAddress v6Loopback = *IpAddress::parse("::1");
    return (a.family == AF_INET && a.bytes[0] == 127) || a == v6Loopback;
}

} // namespace

void Proxy::Impl::startRedirected(Conn& c)
{
    auto target = originalDestination(c.client.fd);
    // Loopback is never redirected: such a connection came to this port directly, and its
    // "destination" is this listener.
    if (!target || isLoopback(target->first) || target->second == 0) {
        ProxyEvent e;
        e.kind = ProxyEvent::Kind::Malformed;
        e.request.connection = c.id;
        e.request.protocol = "tcp";
        e.detail = target ? "a connection made to the transparent port itself"
                          : std::string("no original destination: ") + std::strerror(errno);
        emit(std::move(e));
        reset(c);
        return;
    }
    c.fixedAddress = target->first;
    // The agent's socket names as its peer where it was going, not this listener.
    socklen_t length = 0;
    c.agentRemote = target->first.toSockaddr(target->second, length);
    // A program's connect() the proxy screened (ProxyScreen.cpp) says who made it, and brings
    // the answer it waited for.
    takeScreened(c, target->first, target->second);
    // Looked up through the sandbox's resolver: decided by that name (a rule for *.example.com
    // holds), still connecting to exactly this address.
    auto name = m_dns.nameFor(target->first);
    request(c, name ? *name : target->first.toString(), target->second, "tcp");
}

void Proxy::Impl::reset(Conn& c)
{
    if (c.client.fd >= 0) {
        // SO_LINGER 0: close sends RST, so the agent sees ECONNRESET, not an orderly end.
        linger hard{1, 0};
        setsockopt(c.client.fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    }
    closeConn(c);
}

} // namespace sb
