// The sandbox's resolver on the proxy's thread: queries from its UDP socket go to the
// DnsResponder; names are resolved on the host by the proxy's resolver workers, so no query
// leaves the machine except through the host's own resolver.
#include "network/ProxyInternal.h"

#include <sys/socket.h>

namespace sb {

using namespace proxy;

namespace {

// Queries waiting for the host's resolver at once; more are dropped (the program retries).
constexpr std::size_t kMaxPendingLookups = 256;

} // namespace

void Proxy::Impl::onResolverReadable()
{
    std::uint8_t buf[4096];
    for (int i = 0; i < 64; ++i) {
        sockaddr_storage from{};
        socklen_t length = sizeof from;
        const ssize_t n = recvfrom(m_resolverFd, buf, sizeof buf, MSG_DONTWAIT,
                                   reinterpret_cast<sockaddr*>(&from), &length);
        if (n < 0) return;
        auto step =
            m_dns.onQuery(std::span(buf, static_cast<std::size_t>(n)), *rules(), m_ownAddresses);
        if (auto* reply = std::get_if<DnsResponder::Reply>(&step)) {
            answerLookup(*reply, from, length);
            continue;
        }
        if (m_lookups.size() >= kMaxPendingLookups) continue;
        auto& resolve = std::get<DnsResponder::Resolve>(step);
        const std::uint64_t id = kLookupTag | m_nextLookup++;
        const std::string host = resolve.host;
        m_lookups.emplace(id, PendingLookup{std::move(resolve), from, length});
        m_resolver->submit(id, 0, host);
    }
}

void Proxy::Impl::onLookupResolved(std::uint64_t id, Result<std::vector<IpAddress>> addresses)
{
    auto it = m_lookups.find(id);
    if (it == m_lookups.end()) return;
    const PendingLookup pending = std::move(it->second);
    m_lookups.erase(it);
    answerLookup(m_dns.onResolved(pending.request, addresses, *rules(), m_ownAddresses),
                 pending.from, pending.length);
}

void Proxy::Impl::answerLookup(const DnsResponder::Reply& reply, const sockaddr_storage& to,
                               socklen_t length)
{
    ProxyEvent e;
    // Who asked, while its socket is still open to be found: it may close once answered.
    const bool query = !reply.lookup.name.empty() || reply.lookup.type != 0;
    if (query && m_hooks.identify) {
        sockaddr_storage resolver{};
        socklen_t own = sizeof resolver;
        getsockname(m_resolverFd, reinterpret_cast<sockaddr*>(&resolver), &own);
        e.request.process = m_hooks.identify(to, resolver, true);
    }
    if (!reply.message.empty())
        sendto(m_resolverFd, reply.message.data(), reply.message.size(), MSG_DONTWAIT,
               reinterpret_cast<const sockaddr*>(&to), length);
    if (!query) return; // not a DNS query at all: nothing to record
    e.kind = ProxyEvent::Kind::Lookup;
    e.request.host = reply.lookup.name;
    e.request.protocol = "dns";
    e.lookupType = dnsTypeName(reply.lookup.type);
    e.lookupRcode = toString(reply.lookup.rcode);
    for (const IpAddress& a : reply.lookup.addresses)
        e.lookupAddresses.push_back(a.toString());
    e.detail = reply.lookup.reason;
    emit(std::move(e));
}

} // namespace sb
