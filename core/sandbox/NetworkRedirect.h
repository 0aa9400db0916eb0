// Every outbound connection of a filtered sandbox meets the policy, whether or not its program
// reads the proxy variables. Inside the sandbox's own network namespace (which has only
// loopback) init routes every address to loopback and redirects, with nftables, every TCP
// connection to an address outside loopback to the transparent listener: the supervisor's
// proxy accepts it there, reads where it was going (SO_ORIGINAL_DST) and decides it as it
// decides a proxy request. The program's own socket stays its own: options set before connect,
// non-blocking connect, getpeername (which names the destination) all behave as on a network.
// UDP and ICMP to an address outside loopback are refused (EPERM); the sandbox's resolver is
// on loopback. Only init, before it drops its capabilities, can change this: the sandbox's
// processes have no CAP_NET_ADMIN and their filter refuses netfilter sockets. docs/network.md.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb {

// Where the redirected connections arrive: [::]:kTransparentPort, both families, inside the
// sandbox (its own loopback, so the port is free).
constexpr std::uint16_t kTransparentPort = 3129;

// Brings up the calling process's loopback interface (a new network namespace's is down).
Status bringUpLoopback();

// The routes and the nftables table, in the calling process's network namespace; needs
// CAP_NET_ADMIN there (init, before it drops its capabilities). An error says why it cannot
// (no libnftables, a kernel without nftables NAT): the sandbox then has no way out but the
// proxy, as before.
Status redirectOutboundTraffic();

// The sandbox's resolver: a UDP socket on 127.0.0.53:53 (the address systemd-resolved's stub
// uses, which many programs expect), for the supervisor's proxy to answer; the sandbox's
// /etc/resolv.conf names it (Mounts.h). Port 53 needs CAP_NET_BIND_SERVICE: init makes it before
// it drops its capabilities.
constexpr const char* kResolverAddress = "127.0.0.53";
Result<int> bindResolver();

// The sandbox's /etc/resolv.conf (the resolver above) and /etc/hosts (loopback and `hostname`
// only: every other name goes through the resolver, which resolves it on the host, this
// machine's /etc/hosts included, and so knows the name a later connection was made by).
std::vector<std::pair<std::filesystem::path, std::string>>
resolverEtcFiles(std::string_view hostname);

// The proxy's listener (127.0.0.1:kProxyPort) and the transparent one ([::]:kTransparentPort,
// IPv4 too), made by init in the sandbox's network namespace for the supervisor's proxy.
Result<int> listenForProxy();
Result<int> listenTransparent();

// The nftables ruleset redirectOutboundTraffic() loads, for doctor and the docs' tests.
std::string redirectRuleset();

} // namespace sb
