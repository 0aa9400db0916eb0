// Reads the DNS responses core/network/DnsMessage.cpp builds, independently of it, for the unit
// tests and the fuzz target: strict about the shape Sandbench promises (one question or none,
// answers owned by the pointer 0xC00C, A and AAAA records of the right length, at most one OPT
// last, nothing after it).
#pragma once

#include "policy/NetworkRules.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sbtest {

struct DnsResponse {
    std::uint16_t id = 0;
    std::uint16_t flags = 0;
    unsigned rcode = 0; // with the OPT record's upper bits
    bool truncated = false;
    bool hasQuestion = false;
    std::vector<std::string> labels;
    std::uint16_t type = 0, qclass = 0;
    struct Record {
        std::uint16_t type = 0;
        std::uint32_t ttl = 0;
        sb::IpAddress address;
    };
    std::vector<Record> answers;
    bool hasOpt = false;
    std::uint16_t optPayload = 0;
};

inline std::optional<DnsResponse> readDnsResponse(std::span<const std::uint8_t> m)
{
    std::size_t pos = 0;
    auto u16 = [&](std::uint16_t& out) {
        if (pos + 2 > m.size()) return false;
        out = static_cast<std::uint16_t>(m[pos] << 8 | m[pos + 1]);
        pos += 2;
        return true;
    };
    auto u32 = [&](std::uint32_t& out) {
        std::uint16_t hi = 0, lo = 0;
        if (!u16(hi) || !u16(lo)) return false;
        out = std::uint32_t{hi} << 16 | lo;
        return true;
    };
    DnsResponse r;
    std::uint16_t qd = 0, an = 0, ns = 0, ar = 0;
    if (!u16(r.id) || !u16(r.flags) || !u16(qd) || !u16(an) || !u16(ns) || !u16(ar))
        return std::nullopt;
    if (!(r.flags & 0x8000) || qd > 1 || ns != 0 || ar > 1) return std::nullopt;
    if (qd == 0 && an != 0) return std::nullopt;
    r.rcode = r.flags & 0xF;
    r.truncated = r.flags & 0x0200;
    if (qd == 1) {
        r.hasQuestion = true;
        std::size_t nameBytes = 1;
        for (;;) {
            if (pos >= m.size()) return std::nullopt;
            std::uint8_t len = m[pos++];
            if (len == 0) break;
            if (len > 63 || pos + len > m.size()) return std::nullopt; // no pointer in a question
            nameBytes += 1 + len;
            if (nameBytes > 255) return std::nullopt;
            r.labels.emplace_back(reinterpret_cast<const char*>(m.data()) + pos, len);
            pos += len;
        }
        if (!u16(r.type) || !u16(r.qclass)) return std::nullopt;
    }
    for (unsigned i = 0; i < an; ++i) {
        std::uint16_t owner = 0, type = 0, cls = 0, length = 0;
        DnsResponse::Record record;
        if (!u16(owner) || !u16(type) || !u16(cls) || !u32(record.ttl) || !u16(length))
            return std::nullopt;
        if (owner != 0xC00C || cls != 1) return std::nullopt;
        if (!((type == 1 && length == 4) || (type == 28 && length == 16))) return std::nullopt;
        if (pos + length > m.size()) return std::nullopt;
        record.type = type;
        record.address.family = type == 1 ? AF_INET : AF_INET6;
        std::memcpy(record.address.bytes.data(), m.data() + pos, length);
        pos += length;
        r.answers.push_back(record);
    }
    if (ar == 1) {
        std::uint16_t type = 0, length = 0;
        std::uint32_t ttl = 0;
        if (pos >= m.size() || m[pos++] != 0) return std::nullopt;
        if (!u16(type) || !u16(r.optPayload) || !u32(ttl) || !u16(length)) return std::nullopt;
        if (type != 41 || length != 0 || (ttl & 0x00ffffff) != 0) return std::nullopt;
        r.hasOpt = true;
        r.rcode |= (ttl >> 24) << 4;
    }
    if (pos != m.size()) return std::nullopt;
    return r;
}

} // namespace sbtest
