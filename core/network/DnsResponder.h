// The sandbox's resolver, without sockets or threads: the proxy's loop hands it each UDP query
// that reached 127.0.0.53:53 inside the sandbox, resolves on the host what it asks for (the
// proxy's getaddrinfo workers), and sends back what it returns. It answers only what the
// network rules could allow, and remembers which name each answered address was looked up by,
// so that a later transparent connection to that address is decided by the name.
// Behaviour (what is answered, NXDOMAIN, TTL, types) is described in docs/network.md,
// "Name lookups". Not synchronised: one thread (the proxy's) owns it.
#pragma once

#include "base/Clock.h"
#include "base/Error.h"
#include "network/DnsMessage.h"
#include "policy/NetworkRules.h"

#include <cstdint>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace sb {

// One lookup as the caller records it: what was asked and what was answered.
struct DnsLookup {
    std::string name;       // the name asked, presentation form, case as sent; "" if unread
    std::uint16_t type = 0; // QTYPE (dnsTypeName() names it); 0 if unread
    DnsRcode rcode = DnsRcode::NoError;
    std::vector<IpAddress> addresses; // the addresses answered
    // Why this answer: "rule 2 (allow *.github.com port 443)", "no rule allows …",
    // "malformed: a name longer than 255 bytes", "resolver: Name or service not known".
    std::string reason;
};

class DnsResponder {
  public:
    struct Options {
        std::uint32_t ttlSeconds = 60; // in every A and AAAA record
        // How long an answered address stays linked to its name: longer than the TTL, since
        // programs (and language runtimes) keep addresses past it.
        std::int64_t rememberMs = 10 * 60 * 1000;
        std::size_t rememberCapacity = 4096; // addresses; the least recently used goes first
        // Answers per query, in the host resolver's order. Eight AAAA records fit in 512
        // bytes with a 255-byte name, so an answer is never truncated (a program would retry
        // over TCP).
        std::size_t maxAnswers = 8;
    };

    // An answer to send back to the query's sender now. `message` empty: send nothing.
    struct Reply {
        std::vector<std::uint8_t> message;
        DnsLookup lookup;
    };
    // Resolve `host` (normalised: lower case, no trailing dot) on the host, then call
    // onResolved() with this request and the result. Keep the sender's address with it.
    struct Resolve {
        std::string host;
        DnsQuery query;
    };
    using Step = std::variant<Reply, Resolve>;

    DnsResponder();
    explicit DnsResponder(Options options, const Clock& clock = Clock::system());

    // One UDP message from the sandbox. `own` holds the host's own addresses (as for the proxy's
    // decisions). A query for A or AAAA of a name the rules could allow becomes Resolve;
    // everything else is answered at once.
    Step onQuery(std::span<const std::uint8_t> message, const NetworkRules& rules,
                 std::span<const IpAddress> own = {});

    // The answer to `request` once the host resolved it: `addresses` as the proxy's resolver
    // gives them (an error with code NotFound means the name does not exist; any other error is
    // a failure of the resolver). The rules are those in force now, which may have changed.
    Reply onResolved(const Resolve& request, const Result<std::vector<IpAddress>>& addresses,
                     const NetworkRules& rules, std::span<const IpAddress> own = {});

    // The name an address was last answered for, while remembered.
    std::optional<std::string> nameFor(const IpAddress& address);
    std::size_t rememberedCount() const { return m_byAddress.size(); }

  private:
    struct Memory {
        IpAddress address;
        std::string name;
        std::int64_t expiresMs = 0;
    };
    struct AddressHash {
        std::size_t operator()(const IpAddress& a) const;
    };

    void remember(const IpAddress& address, const std::string& name);

    Options m_options;
    const Clock& m_clock;
    std::list<Memory> m_memory; // most recently used first
    std::unordered_map<IpAddress, std::list<Memory>::iterator, AddressHash> m_byAddress;
};

} // namespace sb
