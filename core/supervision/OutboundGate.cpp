#include "supervision/OutboundGate.h"

#include "base/UniqueFd.h"

#include <netinet/in.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sb {
namespace {

struct SocketKind {
    int type = 0, protocol = 0;
};

// The type and protocol of the target's descriptor `fd`, looked at through a copy of it
// (pidfd_getfd: the supervisor may, as it may read the target's memory).
std::optional<SocketKind> socketKindOf(pid_t pid, int fd)
{
    const UniqueFd process(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (!process) return std::nullopt;
    const UniqueFd copy(static_cast<int>(::syscall(SYS_pidfd_getfd, process.get(), fd, 0)));
    if (!copy) return std::nullopt;
    SocketKind kind;
    socklen_t length = sizeof kind.type;
    if (::getsockopt(copy.get(), SOL_SOCKET, SO_TYPE, &kind.type, &length) != 0)
        return std::nullopt;
    length = sizeof kind.protocol;
    if (::getsockopt(copy.get(), SOL_SOCKET, SO_PROTOCOL, &kind.protocol, &length) != 0)
        return std::nullopt;
    return kind;
}

std::string transportName(const SocketKind& kind)
{
    // Multipath TCP meets the redirect as plain TCP (the proxy's end does not speak it).
    if (kind.type == SOCK_STREAM &&
        (kind.protocol == IPPROTO_TCP || kind.protocol == IPPROTO_MPTCP || kind.protocol == 0))
        return "tcp";
    switch (kind.protocol) {
    case IPPROTO_UDP:
    case IPPROTO_UDPLITE:
        return "udp";
    case IPPROTO_ICMP:
    case IPPROTO_ICMPV6:
        return "icmp";
    case IPPROTO_SCTP:
        return "sctp";
    default:
        return "ip protocol " + std::to_string(kind.protocol);
    }
}

// The sandbox's own: its loopback, and the unspecified address, which connect() takes for it.
bool staysInside(const IpAddress& a)
{
    if (a.family == AF_INET) return a.bytes[0] == 127 || a == IpAddress{};
    static const IpAddress v6Loopback = *IpAddress::parse("::1");
    static const IpAddress v6Any = *IpAddress::parse("::");
    return a == v6Loopback || a == v6Any;
}

} // namespace

std::optional<OutboundAttempt> outboundAttempt(const OutboundCall& call)
{
    const sa_family_t family = call.address.ss_family;
    if (call.addressLength == 0 || (family != AF_INET && family != AF_INET6)) return std::nullopt;
    // A short address is refused by the kernel itself (EINVAL).
    if (call.addressLength < (family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6)))
        return std::nullopt;
    auto address = IpAddress::fromSockaddr(call.address);
    if (!address || staysInside(*address)) return std::nullopt;
    auto kind = socketKindOf(call.pid, call.fd);
    if (!kind) return std::nullopt;
    OutboundAttempt attempt;
    attempt.transport = transportName(*kind);
    const bool connect = call.call == OutboundCall::Call::Connect;
    // A send on a TCP socket opens nothing unless it asks for Fast Open; its address is ignored.
    if (attempt.transport == "tcp" && !connect && (call.flags & MSG_FASTOPEN) == 0)
        return std::nullopt;
    // A datagram socket's connect() sends nothing: getaddrinfo() connects one to each address
    // it found to sort them by the source address the kernel would pick. What it sends later
    // the firewall drops (EPERM); only a send that names its address comes here and is
    // recorded.
    if (attempt.transport != "tcp" && connect) return std::nullopt;
    attempt.address = *address;
    attempt.port =
        ntohs(family == AF_INET ? reinterpret_cast<const sockaddr_in*>(&call.address)->sin_port
                                : reinterpret_cast<const sockaddr_in6*>(&call.address)->sin6_port);
    attempt.pid = call.pid;
    return attempt;
}

} // namespace sb
