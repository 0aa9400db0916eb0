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
#include <string>

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

// The transparent listener ([::]:kTransparentPort, IPv4 too), for the supervisor's proxy.
Result<int> listenTransparent();

// The nftables ruleset redirectOutboundTraffic() loads, for doctor and the docs' tests.
std::string redirectRuleset();

} // namespace sb
