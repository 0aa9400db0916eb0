#include "sandbox/NetworkRedirect.h"

#include "base/NftablesLibrary.h"
#include "base/UniqueFd.h"
#include "sandbox/Sandbox.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

namespace sb {
namespace {

// The IPv4 default route through loopback, from 127.0.0.1: rtnetlink, because the route ioctl
// cannot name a source, and without one the kernel picks 0.0.0.0, to which no reply comes back.
Status addIpv4DefaultRoute(unsigned loopback)
{
    UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
    if (!fd) return sysError("netlink socket for the IPv4 route");
    struct {
        nlmsghdr header;
        rtmsg route;
        char attributes[64];
    } request{};
    request.header.nlmsg_type = RTM_NEWROUTE;
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
    request.header.nlmsg_seq = 1;
    request.route.rtm_family = AF_INET;
    request.route.rtm_table = RT_TABLE_MAIN;
    request.route.rtm_protocol = RTPROT_BOOT;
    request.route.rtm_scope = RT_SCOPE_LINK;
    request.route.rtm_type = RTN_UNICAST;
    std::size_t length = NLMSG_LENGTH(sizeof(rtmsg));
    auto attribute = [&](unsigned short type, const void* data, std::size_t size) {
        auto* a =
            reinterpret_cast<rtattr*>(reinterpret_cast<char*>(&request) + NLMSG_ALIGN(length));
        a->rta_type = type;
        a->rta_len = static_cast<unsigned short>(RTA_LENGTH(size));
        std::memcpy(reinterpret_cast<char*>(a) + RTA_LENGTH(0), data, size);
        length = NLMSG_ALIGN(length) + RTA_ALIGN(a->rta_len);
    };
    const std::uint32_t source = htonl(INADDR_LOOPBACK);
    attribute(RTA_OIF, &loopback, sizeof loopback);
    attribute(RTA_PREFSRC, &source, sizeof source);
    request.header.nlmsg_len = static_cast<std::uint32_t>(length);
    if (::send(fd.get(), &request, length, 0) < 0) return sysError("send the IPv4 route");
    char reply[256];
    const ssize_t n = ::recv(fd.get(), reply, sizeof reply, 0);
    if (n < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr))))
        return sysError("read the answer to the IPv4 route");
    const auto* answer = reinterpret_cast<const nlmsghdr*>(reply);
    const auto* error = reinterpret_cast<const nlmsgerr*>(reply + NLMSG_HDRLEN);
    if (answer->nlmsg_type == NLMSG_ERROR && error->error != 0 && error->error != -EEXIST)
        return sysError("add the IPv4 default route through loopback", -error->error);
    return {};
}

// A default route through loopback for each family: without one, connect() to any address
// outside loopback fails with ENETUNREACH before netfilter sees it. Nothing can leave that
// way: loopback delivers only to this namespace, and the redirect catches TCP first.
Status addDefaultRoutes()
{
    const unsigned loopback = ::if_nametoindex("lo");
    if (loopback == 0) return sysError("find the loopback interface");
    if (auto e = addIpv4DefaultRoute(loopback)) return e;
    UniqueFd v6(::socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!v6) return {}; // no IPv6 in this kernel: nothing to route
    in6_rtmsg route6{};
    route6.rtmsg_ifindex = static_cast<int>(loopback);
    route6.rtmsg_flags = RTF_UP;
    route6.rtmsg_metric = 1024;
    if (::ioctl(v6.get(), SIOCADDRT, &route6) != 0 && errno != EEXIST)
        return sysError("add the IPv6 default route through loopback");
    return {};
}

// A listening TCP socket on `address` (an IPv4 or IPv6 literal; "::" takes IPv4 too) at
// `port` of the calling process's network namespace.
Result<int> listenOn(const char* address, std::uint16_t port, int backlog, const char* what)
{
    sockaddr_storage storage{};
    socklen_t length = 0;
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    if (::inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        length = sizeof *v4;
    } else {
        ::inet_pton(AF_INET6, address, &v6->sin6_addr);
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        length = sizeof *v6;
    }
    UniqueFd fd(::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) return sysError(std::string("socket for ") + what);
    int off = 0, one = 1;
    if (storage.ss_family == AF_INET6)
        ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&storage), length) != 0 ||
        ::listen(fd.get(), backlog) != 0)
        return sysError(std::string("listen on ") + address + " port " + std::to_string(port) +
                        " for " + what);
    return fd.release();
}

} // namespace

Status bringUpLoopback()
{
    UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) return sysError("socket for loopback setup");
    ifreq req{};
    std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
    if (::ioctl(fd.get(), SIOCGIFFLAGS, &req) != 0) return sysError("read loopback flags");
    req.ifr_flags = static_cast<short>(req.ifr_flags | IFF_UP | IFF_RUNNING);
    if (::ioctl(fd.get(), SIOCSIFFLAGS, &req) != 0) return sysError("bring up loopback");
    return {};
}

std::string redirectRuleset()
{
    const std::string port = std::to_string(kTransparentPort);
    return "table inet sandbench {\n"
           "  chain to_proxy {\n"
           "    type nat hook output priority -100; policy accept;\n"
           "    meta l4proto tcp ip daddr != 127.0.0.0/8 redirect to :" +
           port +
           "\n"
           "    meta l4proto tcp ip6 daddr != ::1 redirect to :" +
           port +
           "\n"
           "  }\n"
           "  chain only_tcp {\n"
           "    type filter hook output priority 0; policy accept;\n"
           "    meta l4proto != tcp ip daddr != 127.0.0.0/8 drop\n"
           "    meta l4proto != tcp ip6 daddr != ::1 drop\n"
           "  }\n"
           "}\n";
}

Status redirectOutboundTraffic()
{
    auto nft = loadNftables();
    if (!nft) return nft.error();
    nft_ctx* ctx = (*nft)->nft_ctx_new(NFT_CTX_DEFAULT);
    if (ctx == nullptr) return Error{ErrorCode::Unsupported, 0, "libnftables: no context"};
    (*nft)->nft_ctx_buffer_output(ctx);
    (*nft)->nft_ctx_buffer_error(ctx);
    const int rc = (*nft)->nft_run_cmd_from_buffer(ctx, redirectRuleset().c_str());
    std::string why = rc == 0 ? "" : (*nft)->nft_ctx_get_error_buffer(ctx);
    (*nft)->nft_ctx_free(ctx);
    if (rc != 0) {
        while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
            why.pop_back();
        return Error{ErrorCode::Unsupported, 0,
                     "nftables refused the sandbox's redirect rules (does the kernel have "
                     "nf_tables NAT?): " +
                         why};
    }
    // Routes last: with them and no redirect, a connection would wait for a SYN answer that
    // never comes instead of failing at once (ENETUNREACH).
    return addDefaultRoutes();
}

Result<int> bindResolver()
{
    UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) return sysError("socket for the sandbox's resolver");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(53);
    ::inet_pton(AF_INET, kResolverAddress, &addr.sin_addr);
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return sysError(std::string("bind the sandbox's resolver to ") + kResolverAddress + ":53");
    return fd.release();
}

std::vector<std::pair<std::filesystem::path, std::string>>
resolverEtcFiles(std::string_view hostname)
{
    const std::string name(hostname);
    return {{"/etc/resolv.conf", std::string("nameserver ") + kResolverAddress + "\n"},
            {"/etc/hosts", "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n"
                           "127.0.1.1 " +
                               name + "\n"}};
}

Result<int> listenForProxy()
{
    return listenOn("127.0.0.1", kProxyPort, 512, "the proxy");
}

Result<int> listenTransparent()
{
    return listenOn("::", kTransparentPort, 4096, "transparent connections");
}

} // namespace sb
