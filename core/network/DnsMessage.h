// DNS messages (RFC 1035 wire format) for the sandbox's resolver (DnsResponder.h): a strict
// parser of the one kind of message it serves, a standard query with exactly one question and
// at most an EDNS OPT record (RFC 6891), and a builder of its answers (A and AAAA records,
// NODATA, NXDOMAIN, FORMERR, SERVFAIL, NOTIMP, REFUSED, BADVERS).
//
// Hand-written rather than through ldns (Debian's libldns-dev), after weighing both: ldns's
// ldns_wire2pkt parses every record type in every section into an object tree, which is far
// more code facing the sandbox than this subset needs (ldns has had memory-safety fixes in
// exactly that code), and accepts what this resolver must refuse (responses, several
// questions, answers in a query), so the strict checks below would be needed on top anyway;
// building an answer through it would take some thirty lazily opened symbols to write what is
// here a header, the question, fixed-size records and a pointer. The subset is small enough
// to read in one sitting: a header, one name (labels of at most 63 bytes, at most 255 bytes in
// all, no compression pointer: the question is the first name, with nothing before it to point
// to), two 16-bit fields, one OPT record.
// tests/fuzz/FuzzDns.cpp fuzzes it.
#pragma once

#include "policy/NetworkRules.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sb {

// Response codes; BadVers (16) is the extended code EDNS carries in the OPT record.
enum class DnsRcode : std::uint16_t {
    NoError = 0,
    FormErr = 1,
    ServFail = 2,
    NxDomain = 3,
    NotImp = 4,
    Refused = 5,
    BadVers = 16,
};
const char* toString(DnsRcode rcode); // "NOERROR", "NXDOMAIN", …

namespace dnstype {
constexpr std::uint16_t A = 1;
constexpr std::uint16_t Aaaa = 28;
constexpr std::uint16_t Opt = 41;
constexpr std::uint16_t Any = 255;
} // namespace dnstype
std::string dnsTypeName(std::uint16_t type); // "A", "AAAA", "MX", …, "TYPE65"

constexpr std::uint16_t kDnsClassIn = 1;
// The size of a UDP answer to a query without EDNS (RFC 1035 4.2.1).
constexpr std::size_t kDnsUdpLimit = 512;
// The largest UDP answer this resolver sends to an EDNS query, and the size it advertises: the
// DNS Flag Day 2020 value, which avoids IP fragmentation on any path.
constexpr std::size_t kDnsEdnsLimit = 1232;

struct DnsQuestion {
    std::vector<std::string> labels; // as sent: case preserved, any byte (the root has none)
    std::uint16_t type = 0;
    std::uint16_t qclass = 0;

    // Presentation form (RFC 1035 5.1) for logs: "Example.COM", "." for the root; '.' and '\'
    // inside a label and bytes outside printable ASCII are escaped ("a\.b", "\007").
    std::string text() const;
    bool operator==(const DnsQuestion&) const = default;
};

struct DnsQuery {
    std::uint16_t id = 0;
    std::uint8_t opcode = 0;
    bool recursionDesired = false;
    bool checkingDisabled = false;
    DnsQuestion question;
    bool edns = false;             // an OPT record came with it (answered with one)
    std::uint16_t ednsPayload = 0; // the UDP payload size the client can take

    // The largest UDP answer this query may get: 512 bytes, or with EDNS the client's payload
    // size clamped to 512…1232.
    std::size_t udpLimit() const;
    bool operator==(const DnsQuery&) const = default;
};

// What parseDnsQuery() makes of a message.
struct DnsParse {
    enum class Kind {
        Query,  // a query to serve: `query` is complete
        Refuse, // answer with `rcode` and nothing else (`query` holds what could be read)
        Drop,   // send nothing: too short to answer, or a response (answering could loop)
    } kind = Kind::Drop;
    DnsQuery query;
    bool hasQuestion = false; // Query, Refuse: the question was read and is echoed
    DnsRcode rcode = DnsRcode::NoError;
    std::string why; // Refuse, Drop: what was wrong with the message
};

// Reads one UDP message. Refuses with NOTIMP an opcode other than QUERY; with FORMERR a count
// other than one question and no answer or authority records, a malformed name (a label over
// 63 bytes or of a reserved type, a name over 255 bytes, a compression pointer: in a message's
// first name one can only point at itself, forward or into the header), an additional record
// that is not one well-formed OPT owned by the root, and bytes after the message; with BADVERS
// an EDNS version other than 0.
DnsParse parseDnsQuery(std::span<const std::uint8_t> message);

struct DnsAnswer {
    DnsRcode rcode = DnsRcode::NoError;
    std::vector<IpAddress> addresses; // an A record for each IPv4, AAAA for each IPv6, in order
    std::uint32_t ttl = 0;
};

// The response to `query`: its id, opcode, RD and CD echoed, RA set, the question echoed when
// `withQuestion` (uncompressed, case as sent), each answer's owner the pointer 0xC00C to it,
// and a minimal OPT record (payload 1232, version 0, no options) when the query had EDNS
// (which carries the upper bits of BADVERS). At most `limit` bytes: records that do not fit
// are left out and TC is set. The question and OPT always fit in 512 bytes.
std::vector<std::uint8_t> buildDnsResponse(const DnsQuery& query, bool withQuestion,
                                           const DnsAnswer& answer, std::size_t limit);

// The query in wire form, its name uncompressed, with an OPT record when `edns`: what tests and
// the fuzz target send, and parseDnsQuery() reads back the same DnsQuery.
std::vector<std::uint8_t> buildDnsQuery(const DnsQuery& query);

} // namespace sb
