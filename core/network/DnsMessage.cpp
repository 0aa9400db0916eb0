#include "network/DnsMessage.h"

#include <algorithm>
#include <cstdio>

namespace sb {

namespace {

constexpr std::size_t kHeaderSize = 12;
constexpr std::size_t kMaxName = 255; // wire bytes, the root's zero included (RFC 1035 3.1)
constexpr std::uint16_t kFlagQr = 0x8000;
constexpr std::uint16_t kFlagTc = 0x0200;
constexpr std::uint16_t kFlagRd = 0x0100;
constexpr std::uint16_t kFlagRa = 0x0080;
constexpr std::uint16_t kFlagCd = 0x0010;

// Reads big-endian fields; every read checks the bounds and fails for good once it ran out.
class Reader {
  public:
    explicit Reader(std::span<const std::uint8_t> bytes) : m_bytes(bytes) {}

    bool u8(std::uint8_t& out)
    {
        if (m_pos + 1 > m_bytes.size()) return false;
        out = m_bytes[m_pos++];
        return true;
    }
    bool u16(std::uint16_t& out)
    {
        if (m_pos + 2 > m_bytes.size()) return false;
        out = static_cast<std::uint16_t>(m_bytes[m_pos] << 8 | m_bytes[m_pos + 1]);
        m_pos += 2;
        return true;
    }
    bool u32(std::uint32_t& out)
    {
        std::uint16_t high = 0, low = 0;
        if (!u16(high) || !u16(low)) return false;
        out = std::uint32_t{high} << 16 | low;
        return true;
    }
    bool skip(std::size_t n)
    {
        if (n > m_bytes.size() - m_pos) return false;
        m_pos += n;
        return true;
    }
    std::size_t pos() const { return m_pos; }
    std::size_t left() const { return m_bytes.size() - m_pos; }
    std::span<const std::uint8_t> bytes() const { return m_bytes; }

  private:
    std::span<const std::uint8_t> m_bytes;
    std::size_t m_pos = 0;
};

// The question's name at the reader's position, which the reader then passes. The question is
// the first name of a message, so a compression pointer in it has nothing before it to point
// to: it could only point at itself, forward or into the header, and is refused as the loop or
// garbage it would be. Returns what is wrong, or an empty string.
std::string readName(Reader& in, std::vector<std::string>& labels)
{
    std::size_t wireLength = 1; // the root's zero
    labels.clear();
    for (;;) {
        std::uint8_t length = 0;
        if (!in.u8(length)) return "a name runs past the end of the message";
        if ((length & 0xC0) == 0xC0)
            return "a compression pointer in the question (it has no earlier name to point to)";
        if (length & 0xC0)
            return "label length " + std::to_string(length) + " over 63 (a reserved label type)";
        if (length == 0) return {};
        wireLength += 1 + std::size_t{length};
        if (wireLength > kMaxName) return "a name longer than 255 bytes";
        const std::size_t at = in.pos();
        if (!in.skip(length)) return "a label runs past the end of the message";
        labels.emplace_back(reinterpret_cast<const char*>(in.bytes().data()) + at, length);
    }
}

DnsParse refuse(DnsParse parse, DnsRcode rcode, std::string why)
{
    parse.kind = DnsParse::Kind::Refuse;
    parse.rcode = rcode;
    parse.why = std::move(why);
    return parse;
}

// The additional section: nothing, or one OPT record (RFC 6891 6.1) with the root as owner and
// well-formed options, which are otherwise ignored (cookies, padding, client subnet…).
DnsParse readAdditional(Reader& in, std::uint16_t count, DnsParse parse)
{
    if (count > 1)
        return refuse(std::move(parse), DnsRcode::FormErr,
                      std::to_string(count) + " additional records (only one OPT is accepted)");
    if (count == 0) return parse;
    std::uint8_t owner = 0xff;
    std::uint16_t type = 0, payload = 0, rdLength = 0;
    std::uint32_t ttl = 0;
    if (!in.u8(owner) || !in.u16(type) || !in.u16(payload) || !in.u32(ttl) || !in.u16(rdLength))
        return refuse(std::move(parse), DnsRcode::FormErr, "the additional record is cut short");
    if (type != dnstype::Opt)
        return refuse(std::move(parse), DnsRcode::FormErr,
                      "an additional record of type " + dnsTypeName(type) +
                          " (only an EDNS OPT is accepted)");
    if (owner != 0)
        return refuse(std::move(parse), DnsRcode::FormErr, "an OPT record not owned by the root");
    if (rdLength > in.left())
        return refuse(std::move(parse), DnsRcode::FormErr, "the OPT record is cut short");
    const std::size_t end = in.pos() + rdLength;
    while (in.pos() < end) {
        std::uint16_t code = 0, length = 0;
        if (end - in.pos() < 4 || !in.u16(code) || !in.u16(length) || length > end - in.pos())
            return refuse(std::move(parse), DnsRcode::FormErr,
                          "an EDNS option runs past its record");
        in.skip(length);
    }
    parse.query.edns = true;
    parse.query.ednsPayload = payload;
    // The extended RCODE (bits 24-31) is zero in a query; the version is bits 16-23.
    if (const auto version = (ttl >> 16) & 0xff; version != 0)
        return refuse(std::move(parse), DnsRcode::BadVers,
                      "EDNS version " + std::to_string(version) + " (only 0 is served)");
    return parse;
}

void put16(std::vector<std::uint8_t>& out, std::uint16_t value)
{
    out.push_back(static_cast<std::uint8_t>(value >> 8));
    out.push_back(static_cast<std::uint8_t>(value & 0xff));
}

void put32(std::vector<std::uint8_t>& out, std::uint32_t value)
{
    put16(out, static_cast<std::uint16_t>(value >> 16));
    put16(out, static_cast<std::uint16_t>(value & 0xffff));
}

void putQuestion(std::vector<std::uint8_t>& out, const DnsQuestion& question)
{
    for (const auto& label : question.labels) {
        out.push_back(static_cast<std::uint8_t>(label.size()));
        out.insert(out.end(), label.begin(), label.end());
    }
    out.push_back(0);
    put16(out, question.type);
    put16(out, question.qclass);
}

constexpr std::size_t kOptSize = 11;

void putOpt(std::vector<std::uint8_t>& out, std::uint16_t payload, std::uint8_t extendedRcode)
{
    out.push_back(0); // the root
    put16(out, dnstype::Opt);
    put16(out, payload);
    put32(out, std::uint32_t{extendedRcode} << 24); // version 0, DO clear
    put16(out, 0);                                  // no options
}

} // namespace

const char* toString(DnsRcode rcode)
{
    switch (rcode) {
    case DnsRcode::NoError:
        return "NOERROR";
    case DnsRcode::FormErr:
        return "FORMERR";
    case DnsRcode::ServFail:
        return "SERVFAIL";
    case DnsRcode::NxDomain:
        return "NXDOMAIN";
    case DnsRcode::NotImp:
        return "NOTIMP";
    case DnsRcode::Refused:
        return "REFUSED";
    case DnsRcode::BadVers:
        return "BADVERS";
    }
    return "RCODE?";
}

std::string dnsTypeName(std::uint16_t type)
{
    switch (type) {
    case 1:
        return "A";
    case 2:
        return "NS";
    case 5:
        return "CNAME";
    case 6:
        return "SOA";
    case 12:
        return "PTR";
    case 15:
        return "MX";
    case 16:
        return "TXT";
    case 28:
        return "AAAA";
    case 33:
        return "SRV";
    case 41:
        return "OPT";
    case 64:
        return "SVCB";
    case 65:
        return "HTTPS";
    case 252:
        return "AXFR";
    case 255:
        return "ANY";
    default:
        return "TYPE" + std::to_string(type);
    }
}

std::string DnsQuestion::text() const
{
    if (labels.empty()) return ".";
    std::string out;
    for (const auto& label : labels) {
        if (!out.empty()) out += '.';
        for (char c : label) {
            const auto byte = static_cast<unsigned char>(c);
            if (c == '.' || c == '\\') {
                out += '\\';
                out += c;
            } else if (byte <= 0x20 || byte >= 0x7f) {
                char escaped[5];
                std::snprintf(escaped, sizeof escaped, "\\%03u", byte);
                out += escaped;
            } else {
                out += c;
            }
        }
    }
    return out;
}

std::size_t DnsQuery::udpLimit() const
{
    if (!edns) return kDnsUdpLimit;
    return std::clamp<std::size_t>(ednsPayload, kDnsUdpLimit, kDnsEdnsLimit);
}

DnsParse parseDnsQuery(std::span<const std::uint8_t> message)
{
    DnsParse parse;
    Reader in(message);
    std::uint16_t flags = 0, qdCount = 0, anCount = 0, nsCount = 0, arCount = 0;
    if (!in.u16(parse.query.id) || !in.u16(flags) || !in.u16(qdCount) || !in.u16(anCount) ||
        !in.u16(nsCount) || !in.u16(arCount)) {
        parse.why = "shorter than a DNS header";
        return parse;
    }
    if (flags & kFlagQr) {
        parse.why = "a response, not a query";
        return parse;
    }
    parse.query.opcode = static_cast<std::uint8_t>((flags >> 11) & 0xF);
    parse.query.recursionDesired = flags & kFlagRd;
    parse.query.checkingDisabled = flags & kFlagCd;
    if (parse.query.opcode != 0)
        return refuse(std::move(parse), DnsRcode::NotImp,
                      "opcode " + std::to_string(parse.query.opcode) + " (only QUERY is served)");
    if (qdCount != 1)
        return refuse(std::move(parse), DnsRcode::FormErr,
                      std::to_string(qdCount) + " questions (exactly one is accepted)");
    if (anCount != 0 || nsCount != 0)
        return refuse(std::move(parse), DnsRcode::FormErr,
                      "answer or authority records in a query");
    auto& question = parse.query.question;
    if (auto why = readName(in, question.labels); !why.empty())
        return refuse(std::move(parse), DnsRcode::FormErr, std::move(why));
    if (!in.u16(question.type) || !in.u16(question.qclass))
        return refuse(std::move(parse), DnsRcode::FormErr, "the question is cut short");
    parse.hasQuestion = true;
    parse = readAdditional(in, arCount, std::move(parse));
    if (parse.kind == DnsParse::Kind::Refuse) return parse;
    if (in.left() != 0)
        return refuse(std::move(parse), DnsRcode::FormErr,
                      std::to_string(in.left()) + " bytes after the message");
    parse.kind = DnsParse::Kind::Query;
    return parse;
}

std::vector<std::uint8_t> buildDnsResponse(const DnsQuery& query, bool withQuestion,
                                           const DnsAnswer& answer, std::size_t limit)
{
    const auto rcode = static_cast<std::uint16_t>(answer.rcode);
    std::uint16_t flags = kFlagQr | kFlagRa | static_cast<std::uint16_t>(query.opcode << 11) |
                          static_cast<std::uint16_t>(rcode & 0xF);
    if (query.recursionDesired) flags |= kFlagRd;
    if (query.checkingDisabled) flags |= kFlagCd;

    std::vector<std::uint8_t> out;
    out.reserve(std::min<std::size_t>(limit, 512));
    put16(out, query.id);
    put16(out, flags);
    put16(out, withQuestion ? 1 : 0);
    put16(out, 0); // answers, filled in below
    put16(out, 0);
    put16(out, query.edns ? 1 : 0);
    if (withQuestion) putQuestion(out, query.question);

    const std::size_t reserved = query.edns ? kOptSize : 0; // the OPT record stays in
    std::uint16_t answers = 0;
    // An answer's owner is the question's name: without a question there is nothing to answer.
    std::span<const IpAddress> addresses = answer.addresses;
    if (!withQuestion) addresses = {};
    for (const auto& address : addresses) {
        const bool v4 = address.family == AF_INET;
        const std::size_t dataLength = v4 ? 4 : 16;
        if (out.size() + 12 + dataLength + reserved > limit) {
            out[2] |= kFlagTc >> 8;
            break;
        }
        put16(out, 0xC000 | kHeaderSize); // the question's name
        put16(out, v4 ? dnstype::A : dnstype::Aaaa);
        put16(out, kDnsClassIn);
        put32(out, answer.ttl);
        put16(out, static_cast<std::uint16_t>(dataLength));
        out.insert(out.end(), address.bytes.begin(),
                   address.bytes.begin() + static_cast<std::ptrdiff_t>(dataLength));
        ++answers;
    }
    out[6] = static_cast<std::uint8_t>(answers >> 8);
    out[7] = static_cast<std::uint8_t>(answers & 0xff);
    if (query.edns)
        putOpt(out, static_cast<std::uint16_t>(kDnsEdnsLimit),
               static_cast<std::uint8_t>(rcode >> 4));
    return out;
}

std::vector<std::uint8_t> buildDnsQuery(const DnsQuery& query)
{
    std::uint16_t flags = static_cast<std::uint16_t>((query.opcode & 0xF) << 11);
    if (query.recursionDesired) flags |= kFlagRd;
    if (query.checkingDisabled) flags |= kFlagCd;
    std::vector<std::uint8_t> out;
    put16(out, query.id);
    put16(out, flags);
    put16(out, 1);
    put16(out, 0);
    put16(out, 0);
    put16(out, query.edns ? 1 : 0);
    putQuestion(out, query.question);
    if (query.edns) putOpt(out, query.ednsPayload, 0);
    return out;
}

} // namespace sb
