// SOCKS5 (RFC 1928): no authentication, CONNECT only, to a domain name, IPv4 or IPv6 address.
#include "network/ProxyInternal.h"

#include <arpa/inet.h>

namespace sb {

using namespace proxy;

namespace {

constexpr std::uint8_t kVersion = 0x05;
constexpr std::uint8_t kNoAuth = 0x00, kNoAcceptableMethod = 0xff;
constexpr std::uint8_t kCmdConnect = 0x01;
constexpr std::uint8_t kAtypIpv4 = 0x01, kAtypDomain = 0x03, kAtypIpv6 = 0x04;
constexpr std::uint8_t kGeneralFailure = 0x01, kCommandNotSupported = 0x07,
                       kAddressTypeNotSupported = 0x08;

std::uint8_t byteAt(const std::string& s, std::size_t i)
{
    return static_cast<std::uint8_t>(s[i]);
}

} // namespace

void Proxy::Impl::socksReply(Conn& c, std::uint8_t code, bool close)
{
    if (code == 0x5b) { // a SOCKS4 client: answer in its own format so it stops
        c.down.pending += std::string("\x00\x5b\x00\x00\x00\x00\x00\x00", 8);
    } else {
        // The bound address stays zero: the host-side address is none of the agent's business.
        c.down.pending += std::string{static_cast<char>(kVersion), static_cast<char>(code), 0,
                                      static_cast<char>(kAtypIpv4)};
        c.down.pending += std::string(6, '\0');
    }
    if (close) finish(c);
}

bool Proxy::Impl::stepSocks(Conn& c)
{
    // Enough bytes for the next message, or read more (bounded: a request is at most 262).
    auto need = [&](std::size_t n) {
        if (c.cin.size() >= n) return 1;
        int r = readInto(c.client, c.cin, std::max<std::size_t>(n - c.cin.size(), 512));
        if (r < 0) return -1;
        if (c.client.eof && c.cin.size() < n) return -1;
        return c.cin.size() >= n ? 1 : 0;
    };
    auto truncated = [&](const char* what) {
        emitMalformed(c, std::string("SOCKS5 ") + what + " cut short");
        closeConn(c);
        return false;
    };

    if (c.phase == Phase::SocksGreeting) {
        int r = need(2);
        if (r == 0) return false;
        if (r < 0) return truncated("greeting");
        std::size_t methods = byteAt(c.cin, 1);
        r = need(2 + methods);
        if (r == 0) return false;
        if (r < 0) return truncated("greeting");
        bool noAuth = false;
        for (std::size_t i = 0; i < methods; ++i)
            noAuth = noAuth || byteAt(c.cin, 2 + i) == kNoAuth;
        c.cin.erase(0, 2 + methods);
        c.down.pending += std::string{static_cast<char>(kVersion),
                                      static_cast<char>(noAuth ? kNoAuth : kNoAcceptableMethod)};
        if (!noAuth) {
            emitMalformed(c, "SOCKS5 client offers no 'no authentication' method");
            finish(c);
            return true;
        }
        setPhase(c, Phase::SocksRequest, m_options.handshakeTimeout);
        return true;
    }

    // The greeting's answer goes out while the request is read.
    if (pump(c.down, c.upstream, c.client) == Pump::Error) {
        closeConn(c);
        return false;
    }
    int r = need(5);
    if (r == 0) return false;
    if (r < 0) return truncated("request");
    if (byteAt(c.cin, 0) != kVersion) {
        emitMalformed(c, "SOCKS5 request with version " + std::to_string(byteAt(c.cin, 0)));
        socksReply(c, kGeneralFailure, true);
        return true;
    }
    std::uint8_t command = byteAt(c.cin, 1);
    std::uint8_t atyp = byteAt(c.cin, 3);
    std::size_t addressLength = atyp == kAtypIpv4     ? 4
                                : atyp == kAtypIpv6   ? 16
                                : atyp == kAtypDomain ? 1 + byteAt(c.cin, 4)
                                                      : 0;
    if (addressLength == 0) {
        emitMalformed(c, "SOCKS5 address type " + std::to_string(atyp) + " is not supported");
        socksReply(c, kAddressTypeNotSupported, true);
        return true;
    }
    r = need(4 + addressLength + 2);
    if (r == 0) return false;
    if (r < 0) return truncated("request");
    if (command != kCmdConnect) {
        emitMalformed(c, "SOCKS5 command " + std::to_string(command) +
                             " is not supported (only CONNECT)");
        socksReply(c, kCommandNotSupported, true);
        return true;
    }
    std::string raw;
    if (atyp == kAtypDomain) {
        raw = c.cin.substr(5, addressLength - 1);
    } else {
        char text[INET6_ADDRSTRLEN] = {};
        inet_ntop(atyp == kAtypIpv4 ? AF_INET : AF_INET6, c.cin.data() + 4, text, sizeof text);
        raw = text;
    }
    std::size_t portAt = 4 + addressLength;
    auto port = static_cast<std::uint16_t>(byteAt(c.cin, portAt) << 8 | byteAt(c.cin, portAt + 1));
    c.cin.erase(0, portAt + 2);
    auto host = normaliseHost(raw);
    if (!host || port == 0) {
        emitMalformed(c,
                      "SOCKS5 request: " + (host ? std::string("port 0") : host.error().message));
        socksReply(c, kGeneralFailure, true);
        return true;
    }
    request(c, std::move(*host), port, "socks5");
    return true;
}

} // namespace sb
