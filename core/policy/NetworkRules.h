// Decisions of the filtering proxy: which destination (host name or address, and port) the
// sandbox may reach. Pure logic, no I/O except hostAddresses(); the proxy (Proxy.h) applies it.
// The semantics (normalisation, built-in blocks, specificity) are described in docs/network.md.
#pragma once

#include "base/Error.h"
#include "policy/ClientPattern.h"
#include "policy/Policy.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <vector>

namespace sb {

// An IPv4 or IPv6 address. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are always stored as
// IPv4, so that one destination has one spelling for matching and for connecting.
struct IpAddress {
    int family = AF_INET;                 // AF_INET or AF_INET6
    std::array<std::uint8_t, 16> bytes{}; // IPv4 uses the first 4

    // Strict textual forms only (inet_pton); use normaliseHost() for what an agent sends.
    static std::optional<IpAddress> parse(std::string_view text);
    static std::optional<IpAddress> fromSockaddr(const sockaddr_storage& address);
    std::string toString() const;
    // A sockaddr for connect(); `length` receives its size.
    sockaddr_storage toSockaddr(std::uint16_t port, socklen_t& length) const;
    int bits() const { return family == AF_INET ? 32 : 128; }
    bool operator==(const IpAddress&) const = default;
};

// The canonical form of a host as an agent may spell it: lower case, no trailing dot, no
// brackets; IP literals in every spelling glibc or a browser would accept (127.1, 2130706433,
// 0x7f000001, 0177.0.0.1, [::1], ::ffff:127.0.0.1) become the plain dotted quad or RFC 5952
// IPv6 text. Refused with a reason: empty names, non-ASCII (use the xn-- form), zone ids,
// characters outside [a-z0-9-_.], over-long labels, and names whose last label is numeric but
// that are not a valid IPv4 address (1.2.3.4.5, 256.1.1.1).
Result<std::string> normaliseHost(std::string_view raw);

// The address in a normalised host, if it is an IP literal.
std::optional<IpAddress> ipLiteral(std::string_view normalisedHost);

struct NetworkDecision {
    RuleAction action = RuleAction::Deny;
    // Names what decided: "rule 3 (deny 10.0.0.0/8)", "default (ask)",
    // "built-in: loopback 127.0.0.0/8", "network mode none".
    std::string rule;
    // From decideHost(): false when resolving the name could still change the outcome, so the
    // address must be checked with decideAddress() before connecting.
    bool final = true;
};

// The network policy prepared for fast decisions; rule host patterns are parsed once.
class NetworkRules {
  public:
    // Refuses a rule whose host pattern is not "*", "*.suffix", a host name, an IP address or a
    // CIDR range, naming the rule by its 1-based position.
    static Result<NetworkRules> compile(const NetworkPolicy& policy);

    // The decision on what the agent named, before any DNS. For an IP literal it is complete.
    // `own` holds the host's own addresses (hostAddresses()), denied unless named. `process` is
    // who asks, the process first and then its parents; empty when unknown, and then no rule
    // naming a program or command matches (the next rules, or the default, decide).
    NetworkDecision decideHost(std::string_view normalisedHost, std::uint16_t port,
                               std::span<const IpAddress> own = {},
                               const ProcessChain& process = {}) const;
    // The decision for connecting to `address`, which `normalisedHost` resolved to (or is).
    NetworkDecision decideAddress(std::string_view normalisedHost, const IpAddress& address,
                                  std::uint16_t port, std::span<const IpAddress> own = {},
                                  const ProcessChain& process = {}) const;

    // For the sandbox's DNS resolver, which answers before any port is known: whether
    // decideHost() allows or asks for `normalisedHost` on at least one port, or denies it only
    // provisionally (an address rule could still match what it resolves to). False means no
    // connection to that name could ever be allowed, so it need not be looked up at all. The
    // resolver does not know which program asks, so a rule naming one counts when it allows or
    // asks, and not when it denies.
    bool couldAllowHost(std::string_view normalisedHost, std::span<const IpAddress> own = {}) const;
    // The same for one address `normalisedHost` resolved to (decideAddress() on some port).
    bool couldAllowAddress(std::string_view normalisedHost, const IpAddress& address,
                           std::span<const IpAddress> own = {}) const;

    struct Rule {
        enum class Kind { Any, Suffix, Name, Cidr } kind = Kind::Any;
        RuleAction action = RuleAction::Deny;
        std::string name;  // Suffix, Name
        IpAddress network; // Cidr (an IP address is a CIDR of full length)
        int prefix = 0;    // Cidr
        std::vector<std::uint16_t> ports;
        ClientPattern client; // `program`, `command`
        std::string text;     // "rule 2 (allow *.github.com port 443)"
    };

  private:
    // Which requests a rule naming a program matches.
    enum class Clients {
        Given,      // the `process` given (empty: unknown, matches none)
        AnyThatMay, // any process: such a rule matches if it allows or asks, never if it denies
    };
    bool clientMatches(const Rule& rule, const ProcessChain& process, Clients clients) const;
    NetworkDecision decide(std::string_view host, const IpAddress* address, std::uint16_t port,
                           std::span<const IpAddress> own, const ProcessChain& process,
                           Clients clients) const;
    NetworkDecision decideHostFor(std::string_view host, std::uint16_t port,
                                  std::span<const IpAddress> own, const ProcessChain& process,
                                  Clients clients) const;
    // One port of each kind the rules tell apart: every listed port, and one listed nowhere.
    std::vector<std::uint16_t> distinctPorts() const;

    NetworkMode m_mode = NetworkMode::Filtered;
    RuleAction m_default = RuleAction::Ask;
    std::vector<Rule> m_rules;
    bool m_addressRuleMayAllow = false; // some IP/CIDR rule allows or asks
};

// One-shot forms of the above: compile the policy, then decide. An invalid policy denies.
NetworkDecision decideHost(const NetworkPolicy& policy, const std::string& normalisedHost,
                           std::uint16_t port);
NetworkDecision decideAddress(const NetworkPolicy& policy, const std::string& normalisedHost,
                              const sockaddr_storage& resolved, std::uint16_t port);

// The addresses of the host's own interfaces (loopback excluded: it has its own built-in block).
std::vector<IpAddress> hostAddresses();

// The number of the rule a decision names (NetworkDecision::rule "rule 3 (deny …)…" → 3), 0 when
// no rule of the list decided (the default, a built-in block, an answer).
int decidingRuleNumber(std::string_view ruleText);

} // namespace sb
