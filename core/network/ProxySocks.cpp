// SOCKS5 (RFC 1928): no authentication, CONNECT only, to a domain name, IPv4 or IPv6 address.
#include "network/ProxyInternal.h"

namespace sb {

using namespace proxy;

namespace {

constexpr std::uint8_t kNoAuth = 0x00, kNoAcceptableMethod = 0xff;
constexpr std::uint8_t kAtypIpv4 = 0x01;

} // namespace

void Proxy::Impl::socksReply(Conn& c, std::uint8_t code, bool close)
{
    if (code == 0x5b) { // a SOCKS4 client: answer in its own format so it stops
        c.down.pending += std::string("\x00\x5b\x00\x00\x00\x00\x00\x00", 8);
    } else {
        // The bound address stays zero: the host-side address is none of the agent's business.
        c.down.pending += std::string{static_cast<char>(kSocksVersion), static_cast<char>(code), 0,
                                      static_cast<char>(kAtypIpv4)};
        c.down.pending += std::string(6, '\0');
    }
    if (close) finish(c);
}

bool Proxy::Impl::stepSocks(Conn& c)
{
    // More bytes for the message being read: 1 some came, 0 none yet, -1 it never will.
    auto readMore = [&] {
        if (readInto(c.client, c.cin, 512) < 0 || c.client.eof) return -1;
        return c.client.canRead ? 1 : 0;
    };
    auto truncated = [&](const char* what) {
        emitMalformed(c, std::string("SOCKS5 ") + what + " cut short");
        closeConn(c);
        return false;
    };

    if (c.phase == Phase::SocksGreeting) {
        SocksGreeting greeting;
        while (parseSocksGreeting(c.cin, greeting) == ParseResult::Incomplete) {
            const int r = readMore();
            if (r < 0) return truncated("greeting");
            if (r == 0) return false;
        }
        c.cin.erase(0, greeting.size);
        c.down.pending +=
            std::string{static_cast<char>(kSocksVersion),
                        static_cast<char>(greeting.noAuth ? kNoAuth : kNoAcceptableMethod)};
        if (!greeting.noAuth) {
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
    SocksRequest asked;
    ParseResult parsed;
    while ((parsed = parseSocksRequest(c.cin, asked)) == ParseResult::Incomplete) {
        const int r = readMore();
        if (r < 0) return truncated("request");
        if (r == 0) return false;
    }
    if (parsed != ParseResult::Done) {
        emitMalformed(c, asked.why);
        socksReply(c, asked.reply, true);
        return true;
    }
    c.cin.erase(0, asked.size);
    request(c, std::move(asked.host), asked.port, "socks5");
    return true;
}

} // namespace sb
