// SOCKS5 (RFC 1928) messages from the agent, parsed from the bytes read so far: the greeting
// (the methods it offers) and the CONNECT request (to a domain name, an IPv4 or IPv6 address).
#include "network/ProxyInternal.h"

#include <arpa/inet.h>

namespace sb::proxy {

namespace {

constexpr std::uint8_t kNoAuth = 0x00;
constexpr std::uint8_t kCmdConnect = 0x01;
constexpr std::uint8_t kAtypIpv4 = 0x01, kAtypDomain = 0x03, kAtypIpv6 = 0x04;
constexpr std::uint8_t kGeneralFailure = 0x01, kCommandNotSupported = 0x07,
                       kAddressTypeNotSupported = 0x08;

std::uint8_t byteAt(std::string_view s, std::size_t i)
{
    return static_cast<std::uint8_t>(s[i]);
}

ParseResult refuse(SocksRequest& out, std::uint8_t reply, std::string why)
{
    out.reply = reply;
    out.why = std::move(why);
    return ParseResult::Bad;
}

} // namespace

ParseResult parseSocksGreeting(std::string_view in, SocksGreeting& out)
{
    if (in.size() < 2) return ParseResult::Incomplete;
    const std::size_t methods = byteAt(in, 1);
    if (in.size() < 2 + methods) return ParseResult::Incomplete;
    out.size = 2 + methods;
    out.noAuth = false;
    for (std::size_t i = 0; i < methods; ++i)
        out.noAuth = out.noAuth || byteAt(in, 2 + i) == kNoAuth;
    return ParseResult::Done;
}

ParseResult parseSocksRequest(std::string_view in, SocksRequest& out)
{
    if (in.size() < 5) return ParseResult::Incomplete;
    if (byteAt(in, 0) != kSocksVersion)
        return refuse(out, kGeneralFailure,
                      "SOCKS5 request with version " + std::to_string(byteAt(in, 0)));
    const std::uint8_t command = byteAt(in, 1);
    const std::uint8_t atyp = byteAt(in, 3);
    const std::size_t addressLength = atyp == kAtypIpv4     ? 4
                                      : atyp == kAtypIpv6   ? 16
                                      : atyp == kAtypDomain ? 1 + byteAt(in, 4)
                                                            : 0;
    if (addressLength == 0)
        return refuse(out, kAddressTypeNotSupported,
                      "SOCKS5 address type " + std::to_string(atyp) + " is not supported");
    const std::size_t portAt = 4 + addressLength;
    if (in.size() < portAt + 2) return ParseResult::Incomplete;
    out.size = portAt + 2;
    if (command != kCmdConnect)
        return refuse(out, kCommandNotSupported,
                      "SOCKS5 command " + std::to_string(command) +
                          " is not supported (only CONNECT)");
    std::string raw;
    if (atyp == kAtypDomain) {
        raw = std::string(in.substr(5, addressLength - 1));
    } else {
        char text[INET6_ADDRSTRLEN] = {};
        inet_ntop(atyp == kAtypIpv4 ? AF_INET : AF_INET6, in.data() + 4, text, sizeof text);
        raw = text;
    }
    out.port = static_cast<std::uint16_t>(byteAt(in, portAt) << 8 | byteAt(in, portAt + 1));
    auto host = normaliseHost(raw);
    if (!host) return refuse(out, kGeneralFailure, "SOCKS5 request: " + host.error().message);
    if (out.port == 0) return refuse(out, kGeneralFailure, "SOCKS5 request: port 0");
    out.host = std::move(*host);
    return ParseResult::Done;
}

} // namespace sb::proxy
