// The sandbox's resolver: the strict DNS parser and response builder (DnsMessage.h) and the
// policy-facing responder (DnsResponder.h).
#include "DnsResponseReader.h"
#include "network/DnsResponder.h"

#include <gtest/gtest.h>
#include <variant>

using namespace sb;
using sbtest::readDnsResponse;

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes(std::initializer_list<int> values)
{
    Bytes out;
    for (int v : values)
        out.push_back(static_cast<std::uint8_t>(v));
    return out;
}

void append(Bytes& out, const Bytes& more)
{
    out.insert(out.end(), more.begin(), more.end());
}

Bytes header(int id, int flags, int qd, int an = 0, int ns = 0, int ar = 0)
{
    return bytes({id >> 8, id & 0xff, flags >> 8, flags & 0xff, 0, qd, 0, an, 0, ns, 0, ar});
}

Bytes wireName(std::initializer_list<std::string> labels)
{
    Bytes out;
    for (const auto& label : labels) {
        out.push_back(static_cast<std::uint8_t>(label.size()));
        out.insert(out.end(), label.begin(), label.end());
    }
    out.push_back(0);
    return out;
}

// example.com A as glibc's stub resolver sends it: RD set, no EDNS.
Bytes glibcQuery(int type = 1)
{
    Bytes q = header(0xbeef, 0x0100, 1);
    append(q, wireName({"example", "com"}));
    append(q, bytes({0, type, 0, 1}));
    return q;
}

DnsQuery query(std::vector<std::string> labels, std::uint16_t type, bool edns = false)
{
    DnsQuery q;
    q.id = 0x4242;
    q.recursionDesired = true;
    q.question = {std::move(labels), type, kDnsClassIn};
    q.edns = edns;
    q.ednsPayload = edns ? 1232 : 0;
    return q;
}

IpAddress ip(const char* text)
{
    return *IpAddress::parse(text);
}

NetworkRules rulesOf(RuleAction defaultAction, std::vector<NetworkRule> rules = {})
{
    NetworkPolicy p;
    p.mode = NetworkMode::Filtered;
    p.defaultAction = defaultAction;
    p.rules = std::move(rules);
    return std::move(NetworkRules::compile(p)).value();
}

NetworkRule rule(RuleAction action, std::string host, std::vector<std::uint16_t> ports = {})
{
    return NetworkRule{action, std::move(host), std::move(ports), {}};
}

sbtest::DnsResponse expectResponse(const Bytes& message)
{
    auto r = readDnsResponse(message);
    EXPECT_TRUE(r.has_value()) << "unreadable response of " << message.size() << " bytes";
    return r.value_or(sbtest::DnsResponse{});
}

// A query that parses must be refused with `rcode`, and its answer must say so.
void expectRefused(const Bytes& message, DnsRcode rcode, const std::string& why)
{
    auto parse = parseDnsQuery(message);
    ASSERT_EQ(parse.kind, DnsParse::Kind::Refuse) << why;
    EXPECT_EQ(parse.rcode, rcode) << why << ": " << parse.why;
    EXPECT_FALSE(parse.why.empty());
    auto answer = buildDnsResponse(parse.query, parse.hasQuestion, {parse.rcode, {}, 0}, 512);
    auto r = expectResponse(answer);
    EXPECT_EQ(r.id, parse.query.id) << why;
    EXPECT_EQ(r.rcode, static_cast<unsigned>(rcode)) << why;
}

} // namespace

TEST(DnsMessage, ReadsGlibcsQuery)
{
    auto parse = parseDnsQuery(glibcQuery());
    ASSERT_EQ(parse.kind, DnsParse::Kind::Query) << parse.why;
    EXPECT_EQ(parse.query.id, 0xbeef);
    EXPECT_TRUE(parse.query.recursionDesired);
    EXPECT_EQ(parse.query.question.labels, (std::vector<std::string>{"example", "com"}));
    EXPECT_EQ(parse.query.question.type, dnstype::A);
    EXPECT_EQ(parse.query.question.qclass, kDnsClassIn);
    EXPECT_FALSE(parse.query.edns);
    EXPECT_EQ(parse.query.udpLimit(), 512u);
}

TEST(DnsMessage, ReadsDigsAaaaQueryWithEdnsAndACookie)
{
    // dig example.com AAAA: RD and AD set, an OPT record (payload 1232) with a client cookie.
    Bytes q = header(0x1234, 0x0120, 1, 0, 0, 1);
    append(q, wireName({"example", "com"}));
    append(q, bytes({0, 28, 0, 1}));
    append(q,
           bytes({0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 12, 0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
    auto parse = parseDnsQuery(q);
    ASSERT_EQ(parse.kind, DnsParse::Kind::Query) << parse.why;
    EXPECT_EQ(parse.query.question.type, dnstype::Aaaa);
    EXPECT_TRUE(parse.query.edns);
    EXPECT_EQ(parse.query.udpLimit(), 1232u);
    // A huge payload is clamped, a small one raised to 512.
    DnsQuery big = parse.query;
    big.ednsPayload = 65535;
    EXPECT_EQ(big.udpLimit(), kDnsEdnsLimit);
    big.ednsPayload = 100;
    EXPECT_EQ(big.udpLimit(), kDnsUdpLimit);
}

TEST(DnsMessage, KeepsTheCaseOfA0x20QueryInTheEcho)
{
    auto q = query({"ExAmPlE", "cOm"}, dnstype::A);
    auto parse = parseDnsQuery(buildDnsQuery(q));
    ASSERT_EQ(parse.kind, DnsParse::Kind::Query);
    EXPECT_EQ(parse.query, q);
    EXPECT_EQ(parse.query.question.text(), "ExAmPlE.cOm");
    auto r =
        expectResponse(buildDnsResponse(q, true, {DnsRcode::NoError, {ip("192.0.2.1")}, 60}, 512));
    EXPECT_EQ(r.labels, (std::vector<std::string>{"ExAmPlE", "cOm"}));
}

TEST(DnsMessage, DropsWhatCannotBeAnswered)
{
    auto shortOne = glibcQuery();
    shortOne.resize(11);
    EXPECT_EQ(parseDnsQuery(shortOne).kind, DnsParse::Kind::Drop);
    EXPECT_EQ(parseDnsQuery({}).kind, DnsParse::Kind::Drop);
    auto response = glibcQuery();
    response[2] |= 0x80; // QR: answering a response could loop between two servers
    auto parse = parseDnsQuery(response);
    EXPECT_EQ(parse.kind, DnsParse::Kind::Drop);
    EXPECT_EQ(parse.why, "a response, not a query");
}

TEST(DnsMessage, RefusesMalformedQueries)
{
    auto withName = [](const Bytes& name, int qd = 1, int an = 0, int ar = 0) {
        Bytes q = header(7, 0x0100, qd, an, 0, ar);
        append(q, name);
        append(q, bytes({0, 1, 0, 1}));
        return q;
    };
    auto cut = glibcQuery();
    cut.resize(cut.size() - 2);
    expectRefused(cut, DnsRcode::FormErr, "question cut short");
    auto cutName = glibcQuery();
    cutName.resize(16);
    expectRefused(cutName, DnsRcode::FormErr, "name cut short");
    Bytes two = withName(wireName({"a", "com"}), 2);
    append(two, wireName({"b", "com"}));
    append(two, bytes({0, 1, 0, 1}));
    expectRefused(two, DnsRcode::FormErr, "two questions");
    expectRefused(header(7, 0x0100, 0), DnsRcode::FormErr, "no question");
    expectRefused(withName(wireName({"a"}), 1, 1), DnsRcode::FormErr, "an answer in a query");
    // The question is the first name: a pointer in it has nothing before it to point to, and
    // could only point at itself, forward or into the header.
    expectRefused(withName(bytes({0xC0, 12})), DnsRcode::FormErr, "pointer to itself");
    expectRefused(withName(bytes({1, 'a', 0xC0, 12})), DnsRcode::FormErr, "pointer loop");
    expectRefused(withName(bytes({1, 'a', 0xC0, 40, 0})), DnsRcode::FormErr, "forward pointer");
    expectRefused(withName(bytes({0xC0, 2})), DnsRcode::FormErr, "pointer into the header");
    expectRefused(withName(bytes({0xC0})), DnsRcode::FormErr, "pointer cut short");
    Bytes label64 = bytes({64});
    append(label64, Bytes(64, 'a'));
    label64.push_back(0);
    expectRefused(withName(label64), DnsRcode::FormErr, "label of 64");
    expectRefused(withName(bytes({0x41, 'a', 0})), DnsRcode::FormErr, "extended label type");
    std::string l63(63, 'a');
    expectRefused(withName(wireName({l63, l63, l63, l63})), DnsRcode::FormErr, "name of 257");
    auto trailing = glibcQuery();
    trailing.push_back(0);
    expectRefused(trailing, DnsRcode::FormErr, "a byte after the message");

    auto status = glibcQuery();
    status[2] = 0x10; // opcode 2, STATUS
    expectRefused(status, DnsRcode::NotImp, "opcode STATUS");
    EXPECT_EQ(parseDnsQuery(status).query.opcode, 2);
}

TEST(DnsMessage, AcceptsANameOfExactly255Bytes)
{
    std::string l63(63, 'a');
    auto q = query({l63, l63, l63, std::string(61, 'b')}, dnstype::A);
    auto parse = parseDnsQuery(buildDnsQuery(q));
    ASSERT_EQ(parse.kind, DnsParse::Kind::Query) << parse.why;
    EXPECT_EQ(parse.query, q);
    q.question.labels.back() += "b";
    EXPECT_EQ(parseDnsQuery(buildDnsQuery(q)).kind, DnsParse::Kind::Refuse);
}

TEST(DnsMessage, AcceptsOnlyOneWellFormedOptRecord)
{
    auto withAdditional = [](int count, const Bytes& records) {
        Bytes q = header(9, 0x0100, 1, 0, 0, count);
        append(q, wireName({"example", "com"}));
        append(q, bytes({0, 1, 0, 1}));
        append(q, records);
        return q;
    };
    const Bytes opt = bytes({0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0});
    Bytes twoOpts = opt;
    append(twoOpts, opt);
    expectRefused(withAdditional(2, twoOpts), DnsRcode::FormErr, "two OPT records");
    expectRefused(withAdditional(1, bytes({0, 0, 250, 0, 255, 0, 0, 0, 0, 0, 0})),
                  DnsRcode::FormErr, "TSIG");
    expectRefused(withAdditional(1, bytes({1, 'a', 0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0})),
                  DnsRcode::FormErr, "OPT not owned by the root");
    expectRefused(
        withAdditional(1, bytes({0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 6, 0, 10, 0, 8, 1, 2})),
        DnsRcode::FormErr, "option past its record");
    expectRefused(withAdditional(1, bytes({0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 9})),
                  DnsRcode::FormErr, "OPT data past the message");
    // EDNS version 1 gets BADVERS, whose upper bits only an OPT record can carry.
    auto v1 = withAdditional(1, bytes({0, 0, 41, 0x10, 0, 0, 1, 0, 0, 0, 0}));
    auto parse = parseDnsQuery(v1);
    ASSERT_EQ(parse.kind, DnsParse::Kind::Refuse);
    EXPECT_EQ(parse.rcode, DnsRcode::BadVers);
    auto r = expectResponse(buildDnsResponse(parse.query, parse.hasQuestion, {parse.rcode, {}, 0},
                                             parse.query.udpLimit()));
    EXPECT_TRUE(r.hasOpt);
    EXPECT_EQ(r.rcode, 16u);
}

TEST(DnsMessage, BuildsAnswersThatPointAtTheQuestion)
{
    auto q = query({"example", "com"}, dnstype::A, true);
    q.checkingDisabled = true;
    auto message = buildDnsResponse(
        q, true, {DnsRcode::NoError, {ip("192.0.2.1"), ip("192.0.2.2"), ip("2001:db8::1")}, 60},
        q.udpLimit());
    auto r = expectResponse(message);
    EXPECT_EQ(r.id, 0x4242);
    EXPECT_EQ(r.flags & 0x0100, 0x0100) << "RD echoed";
    EXPECT_EQ(r.flags & 0x0080, 0x0080) << "RA set";
    EXPECT_EQ(r.flags & 0x0010, 0x0010) << "CD echoed";
    EXPECT_EQ(r.flags & 0x0400, 0) << "not authoritative";
    EXPECT_FALSE(r.truncated);
    ASSERT_EQ(r.answers.size(), 3u);
    EXPECT_EQ(r.answers[0].address, ip("192.0.2.1"));
    EXPECT_EQ(r.answers[0].ttl, 60u);
    EXPECT_EQ(r.answers[2].type, dnstype::Aaaa);
    EXPECT_TRUE(r.hasOpt);
    EXPECT_EQ(r.optPayload, 1232);
    // Owner 0xC00C: the answer's name is the question's (after 13 name bytes, type, class).
    EXPECT_EQ(message[12 + 17], 0xC0);
    EXPECT_EQ(message[12 + 18], 0x0C);
    auto nx = expectResponse(buildDnsResponse(q, true, {DnsRcode::NxDomain, {}, 60}, 512));
    EXPECT_EQ(nx.rcode, 3u);
    EXPECT_TRUE(nx.answers.empty());
}

TEST(DnsMessage, TruncatesAtTheUdpLimitAndSetsTc)
{
    std::vector<IpAddress> many;
    for (int i = 1; i <= 40; ++i)
        many.push_back(*IpAddress::parse("2001:db8::" + std::to_string(i)));
    for (bool edns : {false, true}) {
        auto q = query({"many", "example"}, dnstype::Aaaa, edns);
        auto message = buildDnsResponse(q, true, {DnsRcode::NoError, many, 60}, 512);
        EXPECT_LE(message.size(), 512u);
        auto r = expectResponse(message);
        EXPECT_TRUE(r.truncated);
        EXPECT_EQ(r.hasOpt, edns) << "the OPT record stays in a truncated answer";
        EXPECT_EQ(r.answers.size(), edns ? 16u : 17u);
        auto whole = expectResponse(buildDnsResponse(q, true, {DnsRcode::NoError, many, 60}, 1232));
        EXPECT_FALSE(whole.truncated);
        EXPECT_EQ(whole.answers.size(), 40u);
    }
}

TEST(DnsResponder, ResolvesAnAllowedNameAndAnswersItsAllowedAddresses)
{
    auto rules = rulesOf(RuleAction::Deny, {rule(RuleAction::Allow, "*.example.com", {443})});
    DnsResponder responder;
    auto step =
        responder.onQuery(buildDnsQuery(query({"API", "Example", "com"}, dnstype::A)), rules);
    ASSERT_TRUE(std::holds_alternative<DnsResponder::Resolve>(step));
    const auto request = std::get<DnsResponder::Resolve>(step);
    EXPECT_EQ(request.host, "api.example.com");
    const std::vector<IpAddress> resolved = {ip("10.0.0.1"), ip("93.184.216.34"),
                                             ip("2606:2800:220:1::1"), ip("93.184.216.35")};
    auto answer = responder.onResolved(request, resolved, rules);
    auto r = expectResponse(answer.message);
    EXPECT_EQ(r.rcode, 0u);
    EXPECT_EQ(r.labels, (std::vector<std::string>{"API", "Example", "com"}));
    ASSERT_EQ(r.answers.size(), 2u) << "the private address is left out";
    EXPECT_EQ(r.answers[0].address, ip("93.184.216.34"));
    EXPECT_EQ(r.answers[0].ttl, 60u);
    EXPECT_EQ(answer.lookup.name, "API.Example.com");
    EXPECT_EQ(answer.lookup.type, dnstype::A);
    EXPECT_EQ(answer.lookup.addresses,
              (std::vector<IpAddress>{ip("93.184.216.34"), ip("93.184.216.35")}));
    EXPECT_EQ(responder.nameFor(ip("93.184.216.35")), "api.example.com");
    EXPECT_EQ(responder.nameFor(ip("10.0.0.1")), std::nullopt);
    EXPECT_EQ(responder.nameFor(ip("2606:2800:220:1::1")), std::nullopt) << "not answered yet";

    auto aaaa = std::get<DnsResponder::Resolve>(
        responder.onQuery(buildDnsQuery(query({"api", "example", "com"}, dnstype::Aaaa)), rules));
    auto r6 = expectResponse(responder.onResolved(aaaa, resolved, rules).message);
    ASSERT_EQ(r6.answers.size(), 1u);
    EXPECT_EQ(r6.answers[0].type, dnstype::Aaaa);
    EXPECT_EQ(responder.nameFor(ip("2606:2800:220:1::1")), "api.example.com");
}

TEST(DnsResponder, NxdomainForANameNoRuleCouldAllow)
{
    auto rules = rulesOf(RuleAction::Deny, {rule(RuleAction::Allow, "github.com"),
                                            rule(RuleAction::Deny, "*.evil.example")});
    DnsResponder responder;
    for (auto labels : std::vector<std::vector<std::string>>{
             {"gitlab", "com"}, {"x", "evil", "example"}, {"localhost"}}) {
        auto step = responder.onQuery(buildDnsQuery(query(labels, dnstype::A)), rules);
        ASSERT_TRUE(std::holds_alternative<DnsResponder::Reply>(step)) << labels[0];
        const auto& reply = std::get<DnsResponder::Reply>(step);
        EXPECT_EQ(expectResponse(reply.message).rcode, 3u) << labels[0];
        EXPECT_EQ(reply.lookup.rcode, DnsRcode::NxDomain);
        EXPECT_NE(reply.lookup.reason.find("no rule allows"), std::string::npos)
            << reply.lookup.reason;
    }
    // Under the ask default a name is looked up: connecting to it may yet be approved.
    auto asking = rulesOf(RuleAction::Ask);
    EXPECT_TRUE(std::holds_alternative<DnsResponder::Resolve>(
        responder.onQuery(buildDnsQuery(query({"gitlab", "com"}, dnstype::A)), asking)));
}

TEST(DnsResponder, NxdomainWhenEveryAddressIsDenied)
{
    auto rules = rulesOf(RuleAction::Allow, {rule(RuleAction::Allow, "*")});
    DnsResponder responder;
    auto request = std::get<DnsResponder::Resolve>(
        responder.onQuery(buildDnsQuery(query({"intranet", "example"}, dnstype::Aaaa)), rules));
    auto reply = responder.onResolved(request, std::vector{ip("10.1.2.3"), ip("fd00::1")}, rules);
    EXPECT_EQ(expectResponse(reply.message).rcode, 3u);
    EXPECT_NE(reply.lookup.reason.find("built-in: private 10.0.0.0/8"), std::string::npos)
        << reply.lookup.reason;
    EXPECT_EQ(responder.rememberedCount(), 0u);
    // A rule naming the host opens its private address, as it does for the proxy.
    auto named = rulesOf(RuleAction::Deny, {rule(RuleAction::Allow, "intranet.example")});
    auto a = std::get<DnsResponder::Resolve>(
        responder.onQuery(buildDnsQuery(query({"intranet", "example"}, dnstype::A)), named));
    auto r = expectResponse(responder.onResolved(a, std::vector{ip("10.1.2.3")}, named).message);
    ASSERT_EQ(r.answers.size(), 1u);
    EXPECT_EQ(responder.nameFor(ip("10.1.2.3")), "intranet.example");
}

TEST(DnsResponder, NodataForAaaaOfAnIpv4OnlyNameAndForOtherTypes)
{
    auto rules = rulesOf(RuleAction::Allow);
    DnsResponder responder;
    auto request = std::get<DnsResponder::Resolve>(
        responder.onQuery(buildDnsQuery(query({"v4only", "example"}, dnstype::Aaaa)), rules));
    auto nodata =
        expectResponse(responder.onResolved(request, std::vector{ip("192.0.2.7")}, rules).message);
    EXPECT_EQ(nodata.rcode, 0u);
    EXPECT_TRUE(nodata.answers.empty());
    for (std::uint16_t type : std::initializer_list<std::uint16_t>{15, 16, 33, 65, 255, 12}) {
        auto step = responder.onQuery(buildDnsQuery(query({"v4only", "example"}, type)), rules);
        ASSERT_TRUE(std::holds_alternative<DnsResponder::Reply>(step)) << type;
        const auto& reply = std::get<DnsResponder::Reply>(step);
        auto r = expectResponse(reply.message);
        EXPECT_EQ(r.rcode, 0u) << type;
        EXPECT_TRUE(r.answers.empty());
        EXPECT_EQ(r.type, type) << "the question is echoed";
        EXPECT_EQ(reply.lookup.type, type);
    }
}

TEST(DnsResponder, RefusesWhatItDoesNotServe)
{
    auto rules = rulesOf(RuleAction::Allow);
    DnsResponder responder;
    auto rcodeOf = [&](const DnsQuery& q) {
        auto step = responder.onQuery(buildDnsQuery(q), rules);
        EXPECT_TRUE(std::holds_alternative<DnsResponder::Reply>(step)) << q.question.text();
        if (!std::holds_alternative<DnsResponder::Reply>(step)) return 99u;
        return expectResponse(std::get<DnsResponder::Reply>(step).message).rcode;
    };
    auto chaos = query({"version", "bind"}, 16);
    chaos.question.qclass = 3;
    EXPECT_EQ(rcodeOf(chaos), 5u);                                       // REFUSED
    EXPECT_EQ(rcodeOf(query({"example", "com"}, 252)), 4u);              // AXFR: NOTIMP
    EXPECT_EQ(rcodeOf(query({"example", "com"}, 41)), 1u);               // OPT: FORMERR
    EXPECT_EQ(rcodeOf(query({"10", "0", "0", "1"}, dnstype::A)), 3u);    // an address
    EXPECT_EQ(rcodeOf(query({"0x7f", "1"}, dnstype::A)), 3u);            // 127.0.0.1
    EXPECT_EQ(rcodeOf(query({"a b", "example"}, dnstype::A)), 3u);       // not a host name
    EXPECT_EQ(rcodeOf(query({std::string("a\0b", 3)}, dnstype::A)), 3u); // a NUL
    EXPECT_EQ(rcodeOf(query({}, dnstype::A)), 3u);                       // the root
    // Nothing goes back for a message that is no query.
    auto dropped = responder.onQuery(bytes({1, 2, 3}), rules);
    EXPECT_TRUE(std::get<DnsResponder::Reply>(dropped).message.empty());
    auto malformed = responder.onQuery(header(5, 0x0100, 2), rules);
    EXPECT_EQ(std::get<DnsResponder::Reply>(malformed).lookup.reason.rfind("malformed: ", 0), 0u);
}

TEST(DnsResponder, ResolverFailuresBecomeNxdomainOrServfail)
{
    auto rules = rulesOf(RuleAction::Allow);
    DnsResponder responder;
    auto request = std::get<DnsResponder::Resolve>(
        responder.onQuery(buildDnsQuery(query({"gone", "example"}, dnstype::A)), rules));
    auto nx = responder.onResolved(
        request, Error{ErrorCode::NotFound, 0, "Name or service not known"}, rules);
    EXPECT_EQ(expectResponse(nx.message).rcode, 3u);
    EXPECT_EQ(nx.lookup.reason, "resolver: Name or service not known");
    auto fail = responder.onResolved(
        request, Error{ErrorCode::System, 0, "Temporary failure in name resolution"}, rules);
    EXPECT_EQ(expectResponse(fail.message).rcode, 2u);
    EXPECT_EQ(expectResponse(responder.onResolved(request, std::vector<IpAddress>{}, rules).message)
                  .rcode,
              3u);
}

TEST(DnsResponder, AnswersAtMostEightAddressesAndNeverTruncates)
{
    auto rules = rulesOf(RuleAction::Allow);
    DnsResponder responder;
    std::vector<IpAddress> many;
    for (int i = 1; i <= 30; ++i)
        many.push_back(*IpAddress::parse("2001:db8::" + std::to_string(i)));
    std::string l63(63, 'a');
    auto request = std::get<DnsResponder::Resolve>(responder.onQuery(
        buildDnsQuery(query({l63, l63, l63, std::string(57, 'b'), "com"}, dnstype::Aaaa)), rules));
    auto reply = responder.onResolved(request, many, rules);
    EXPECT_LE(reply.message.size(), 512u);
    auto r = expectResponse(reply.message);
    EXPECT_FALSE(r.truncated);
    EXPECT_EQ(r.answers.size(), 8u);
    EXPECT_EQ(reply.lookup.addresses.size(), 8u);
    EXPECT_EQ(responder.rememberedCount(), 8u);
}

TEST(DnsResponder, RemembersNamesUntilTheyExpireOrMakeRoom)
{
    MockClock clock;
    DnsResponder::Options options;
    options.rememberMs = 1000;
    options.rememberCapacity = 2;
    DnsResponder responder(options, clock);
    auto rules = rulesOf(RuleAction::Allow);
    auto answer = [&](const char* name, const char* address) {
        auto request = std::get<DnsResponder::Resolve>(
            responder.onQuery(buildDnsQuery(query({name, "example"}, dnstype::A)), rules));
        responder.onResolved(request, std::vector{ip(address)}, rules);
    };
    answer("one", "192.0.2.1");
    answer("two", "192.0.2.2");
    clock.advance(600);
    EXPECT_EQ(responder.nameFor(ip("192.0.2.1")), "one.example"); // now the most recent
    answer("three", "192.0.2.3");                                 // evicts two, the oldest
    EXPECT_EQ(responder.nameFor(ip("192.0.2.2")), std::nullopt);
    EXPECT_EQ(responder.rememberedCount(), 2u);
    clock.advance(500);
    EXPECT_EQ(responder.nameFor(ip("192.0.2.1")), std::nullopt) << "expired after 1000 ms";
    EXPECT_EQ(responder.nameFor(ip("192.0.2.3")), "three.example");
    // The latest name for a shared address wins, and its time starts again.
    answer("four", "192.0.2.3");
    clock.advance(900);
    EXPECT_EQ(responder.nameFor(ip("192.0.2.3")), "four.example");
}
