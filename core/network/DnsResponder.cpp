#include "network/DnsResponder.h"

#include <algorithm>
#include <functional>

namespace sb {

namespace {

DnsResponder::Reply reply(const DnsQuery& query, bool withQuestion, DnsRcode rcode,
                          std::vector<IpAddress> addresses, std::uint32_t ttl, std::string reason)
{
    DnsResponder::Reply out;
    DnsAnswer answer{rcode, std::move(addresses), ttl};
    out.message = buildDnsResponse(query, withQuestion, answer, query.udpLimit());
    if (withQuestion) {
        out.lookup.name = query.question.text();
        out.lookup.type = query.question.type;
    }
    out.lookup.rcode = rcode;
    // What the message holds, should a record not have fitted.
    const std::size_t sent = std::size_t{out.message[6]} << 8 | out.message[7];
    answer.addresses.resize(std::min(answer.addresses.size(), sent));
    out.lookup.addresses = std::move(answer.addresses);
    out.lookup.reason = std::move(reason);
    return out;
}

bool isHostByte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

// Types a question cannot ask for (RFC 6895 3.1: OPT and the transaction types live only in
// the additional section) and the zone transfer and mailbox meta-types, which a resolver for
// one program has no use for.
std::optional<std::pair<DnsRcode, std::string>> refusedType(std::uint16_t type)
{
    const auto name = dnsTypeName(type);
    if (type == 0 || type == dnstype::Opt || type == 249 || type == 250)
        return std::pair{DnsRcode::FormErr, "type " + name + " cannot be asked for"};
    if (type >= 251 && type <= 254)
        return std::pair{DnsRcode::NotImp, "type " + name + " (a transfer) is not served"};
    return std::nullopt;
}

// The host a question names, as the network rules read it, or why it names none.
Result<std::string> hostOf(const DnsQuestion& question)
{
    if (question.labels.empty()) return inputError("the root is not a host");
    std::string host;
    for (const auto& label : question.labels) {
        if (!std::all_of(label.begin(), label.end(), isHostByte))
            return inputError("not a host name (a label holds a byte outside [A-Za-z0-9-_])");
        if (!host.empty()) host += '.';
        host += label;
    }
    auto normalised = normaliseHost(host);
    if (!normalised) return normalised.error();
    if (ipLiteral(*normalised)) return inputError("an IP address, which names no DNS record");
    return normalised;
}

} // namespace

std::size_t DnsResponder::AddressHash::operator()(const IpAddress& a) const
{
    std::size_t h = static_cast<std::size_t>(a.family);
    for (auto byte : a.bytes)
        h = h * 131 + byte;
    return std::hash<std::size_t>{}(h);
}

DnsResponder::DnsResponder() : DnsResponder(Options{}) {}

DnsResponder::DnsResponder(Options options, const Clock& clock) : m_options(options), m_clock(clock)
{
}

DnsResponder::Step DnsResponder::onQuery(std::span<const std::uint8_t> message,
                                         const NetworkRules& rules, std::span<const IpAddress> own)
{
    const std::uint32_t ttl = m_options.ttlSeconds;
    auto parse = parseDnsQuery(message);
    const DnsQuery& query = parse.query;
    if (parse.kind == DnsParse::Kind::Drop) {
        Reply dropped; // no message: nothing is sent
        dropped.lookup.reason = "dropped: " + parse.why;
        return dropped;
    }
    if (parse.kind == DnsParse::Kind::Refuse)
        return reply(query, parse.hasQuestion, parse.rcode, {}, ttl, "malformed: " + parse.why);

    const auto& question = query.question;
    if (question.qclass != kDnsClassIn)
        return reply(query, true, DnsRcode::Refused, {}, ttl,
                     "class " + std::to_string(question.qclass) + " is not served (only IN)");
    if (auto refused = refusedType(question.type))
        return reply(query, true, refused->first, {}, ttl, refused->second);
    auto host = hostOf(question);
    if (!host) return reply(query, true, DnsRcode::NxDomain, {}, ttl, host.error().message);
    if (!rules.couldAllowHost(*host, own))
        return reply(query, true, DnsRcode::NxDomain, {}, ttl,
                     "no rule allows " + *host +
                         " on any port (port 443: " + rules.decideHost(*host, 443, own).rule + ")");
    if (question.type != dnstype::A && question.type != dnstype::Aaaa)
        return reply(query, true, DnsRcode::NoError, {}, ttl,
                     "type " + dnsTypeName(question.type) + " is not served (only A and AAAA)");
    return Resolve{std::move(*host), query};
}

DnsResponder::Reply DnsResponder::onResolved(const Resolve& request,
                                             const Result<std::vector<IpAddress>>& addresses,
                                             const NetworkRules& rules,
                                             std::span<const IpAddress> own)
{
    const DnsQuery& query = request.query;
    const std::uint32_t ttl = m_options.ttlSeconds;
    if (!addresses) {
        const bool noSuchName = addresses.error().code == ErrorCode::NotFound;
        return reply(query, true, noSuchName ? DnsRcode::NxDomain : DnsRcode::ServFail, {}, ttl,
                     "resolver: " + addresses.error().message);
    }
    if (addresses->empty())
        return reply(query, true, DnsRcode::NxDomain, {}, ttl, "resolver: no address");

    // An address no connection could be allowed to is never shown: a name whose addresses are
    // all denied does not exist for the sandbox, whatever the type asked for.
    std::vector<IpAddress> allowed;
    for (const auto& address : *addresses)
        if (rules.couldAllowAddress(request.host, address, own)) allowed.push_back(address);
    if (allowed.empty()) {
        const auto& first = addresses->front();
        return reply(query, true, DnsRcode::NxDomain, {}, ttl,
                     "every address of " + request.host + " is denied (" + first.toString() + ": " +
                         rules.decideAddress(request.host, first, 443, own).rule + ")");
    }
    const int family = query.question.type == dnstype::A ? AF_INET : AF_INET6;
    std::vector<IpAddress> answers;
    for (const auto& address : allowed)
        if (address.family == family && answers.size() < m_options.maxAnswers)
            answers.push_back(address);
    auto out = reply(query, true, DnsRcode::NoError, answers, ttl,
                     std::to_string(allowed.size()) + " of " + std::to_string(addresses->size()) +
                         " addresses may be allowed");
    // Only what the message carries is remembered.
    for (const auto& address : out.lookup.addresses)
        remember(address, request.host);
    return out;
}

std::optional<std::string> DnsResponder::nameFor(const IpAddress& address)
{
    auto found = m_byAddress.find(address);
    if (found == m_byAddress.end()) return std::nullopt;
    if (found->second->expiresMs <= m_clock.monotonicMs()) {
        m_memory.erase(found->second);
        m_byAddress.erase(found);
        return std::nullopt;
    }
    m_memory.splice(m_memory.begin(), m_memory, found->second);
    return found->second->name;
}

void DnsResponder::remember(const IpAddress& address, const std::string& name)
{
    const std::int64_t expires = m_clock.monotonicMs() + m_options.rememberMs;
    if (auto found = m_byAddress.find(address); found != m_byAddress.end()) {
        // The latest lookup wins: an address several names share (a CDN) is most likely
        // connected to under the name looked up last.
        found->second->name = name;
        found->second->expiresMs = expires;
        m_memory.splice(m_memory.begin(), m_memory, found->second);
        return;
    }
    if (m_options.rememberCapacity == 0) return;
    m_memory.push_front(Memory{address, name, expires});
    m_byAddress.emplace(address, m_memory.begin());
    while (m_byAddress.size() > m_options.rememberCapacity) {
        m_byAddress.erase(m_memory.back().address);
        m_memory.pop_back();
    }
}

} // namespace sb
