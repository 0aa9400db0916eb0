// The sandbox's resolver (core/network/DnsMessage.cpp, DnsResponder.cpp): the UDP messages a
// process in the sandbox sends to 127.0.0.53:53. Checked beyond "no crash": only a message too
// short for a header or a response is dropped; a query parsed is written back and parsed again
// to the same query; every answer (to a query or a refusal) is read back by an independent
// reader, echoes the id and the question, carries the rcode given, stays within the UDP limit
// (setting TC when records were left out); the responder answers only addresses the rules could
// allow, and only for a name the rules could allow.
#include "DnsResponseReader.h"
#include "FuzzCheck.h"
#include "network/DnsResponder.h"

#include <cstdint>
#include <span>
#include <variant>

namespace {

using namespace sb;
using sbfuzz::check;

const NetworkRules& rules()
{
    static const NetworkRules compiled = [] {
        NetworkPolicy policy;
        policy.mode = NetworkMode::Filtered;
        policy.defaultAction = RuleAction::Deny;
        policy.rules = {{RuleAction::Allow, "*.example.com", {443}, {}},
                        {RuleAction::Deny, "bad.example.com", {}, {}},
                        {RuleAction::Ask, "a", {}, {}},
                        {RuleAction::Allow, "203.0.113.0/24", {}, {}}};
        return std::move(NetworkRules::compile(policy)).value();
    }();
    return compiled;
}

// Addresses taken from the input's bytes, of both families, some private.
std::vector<IpAddress> addressesFrom(std::span<const std::uint8_t> data)
{
    std::vector<IpAddress> out;
    for (std::size_t i = 0; i + 4 <= data.size() && out.size() < 40; i += 5) {
        IpAddress a;
        a.family = data[i] & 1 ? AF_INET6 : AF_INET;
        for (std::size_t b = 0; b < 4; ++b)
            a.bytes[b] = data[i + 1 + b % 3];
        if (a.family == AF_INET6) a.bytes[15] = data[i];
        out.push_back(a);
    }
    return out;
}

void checkResponse(const std::vector<std::uint8_t>& message, const DnsQuery& query,
                   bool withQuestion, DnsRcode rcode, std::size_t limit, std::size_t offered)
{
    check(message.size() <= limit, "an answer stays within the UDP limit");
    auto r = sbtest::readDnsResponse(message);
    check(r.has_value(), "an answer reads back");
    check(r->id == query.id, "the id is echoed");
    check(r->rcode == static_cast<unsigned>(rcode), "the rcode is the one given");
    check(r->hasQuestion == withQuestion, "the question is echoed when read");
    if (withQuestion)
        check(r->labels == query.question.labels && r->type == query.question.type &&
                  r->qclass == query.question.qclass,
              "the echoed question is the one asked, case and all");
    check(r->hasOpt == query.edns, "an OPT record answers one");
    check(r->answers.size() <= offered, "no answer appears from nowhere");
    check(r->answers.size() == offered || r->truncated || !withQuestion, "records left out set TC");
}

void message(std::span<const std::uint8_t> input)
{
    auto parse = parseDnsQuery(input);
    const bool header = input.size() >= 12;
    if (parse.kind == DnsParse::Kind::Drop) {
        check(!header || (input[2] & 0x80), "only a short message or a response is dropped");
        return;
    }
    check(header && !(input[2] & 0x80), "a short message or a response is not answered");
    if (parse.kind == DnsParse::Kind::Refuse) {
        check(!parse.why.empty(), "a refusal says why");
        check(parse.rcode == DnsRcode::FormErr || parse.rcode == DnsRcode::NotImp ||
                  parse.rcode == DnsRcode::BadVers,
              "a refusal is FORMERR, NOTIMP or BADVERS");
        checkResponse(buildDnsResponse(parse.query, parse.hasQuestion, {parse.rcode, {}, 0}, 512),
                      parse.query, parse.hasQuestion, parse.rcode, 512, 0);
        return;
    }
    check(parse.hasQuestion, "a query has its question");
    const auto again = parseDnsQuery(buildDnsQuery(parse.query));
    check(again.kind == DnsParse::Kind::Query && again.query == parse.query,
          "a query written back parses to the same query");
    (void)parse.query.question.text();
    const auto addresses = addressesFrom(input);
    const std::size_t limit = parse.query.udpLimit();
    checkResponse(buildDnsResponse(parse.query, true, {DnsRcode::NoError, addresses, 300}, limit),
                  parse.query, true, DnsRcode::NoError, limit, addresses.size());
}

void responder(std::span<const std::uint8_t> input)
{
    DnsResponder dns;
    auto step = dns.onQuery(input, rules());
    DnsResponder::Reply reply;
    if (auto* resolve = std::get_if<DnsResponder::Resolve>(&step)) {
        auto host = normaliseHost(resolve->host);
        check(host.ok() && *host == resolve->host, "a name to resolve is normalised");
        check(rules().couldAllowHost(resolve->host),
              "only a name the rules could allow is resolved");
        check(resolve->query.question.type == dnstype::A ||
                  resolve->query.question.type == dnstype::Aaaa,
              "only A and AAAA are resolved");
        reply = dns.onResolved(*resolve, addressesFrom(input), rules());
        for (const auto& a : reply.lookup.addresses) {
            check(rules().couldAllowAddress(resolve->host, a),
                  "only allowed addresses are answered");
            check(dns.nameFor(a) == resolve->host, "an answered address is remembered");
        }
    } else {
        reply = std::get<DnsResponder::Reply>(std::move(step));
    }
    if (reply.message.empty()) return;
    check(reply.message.size() <= kDnsEdnsLimit, "an answer stays within the UDP limit");
    auto r = sbtest::readDnsResponse(reply.message);
    check(r.has_value(), "the responder's answer reads back");
    check(r->rcode == static_cast<unsigned>(reply.lookup.rcode), "the lookup records the rcode");
    check(r->answers.size() == reply.lookup.addresses.size(), "the lookup records the answers");
    check(!r->truncated, "the responder's answers always fit");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::span<const std::uint8_t> input(data, size);
    message(input);
    responder(input);
    return 0;
}
