// The filtering proxy's SOCKS5 parsers (core/network/ProxySocksParse.cpp): the greeting and the
// CONNECT request a process in the sandbox sends. Checked beyond "no crash": a message parsed
// takes no more bytes than it was given, a prefix of it is Incomplete (never another verdict),
// a refusal says why and with which reply, and a request parsed names a host and a port.
#include "FuzzCheck.h"
#include "network/ProxyInternal.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

using namespace sb::proxy;

using sbfuzz::check;

void greeting(std::string_view input)
{
    SocksGreeting g;
    if (parseSocksGreeting(input, g) != ParseResult::Done) return;
    check(g.size >= 2 && g.size <= input.size(), "the greeting fits");
    for (std::size_t cut = 0; cut < g.size; ++cut) {
        SocksGreeting part;
        check(parseSocksGreeting(input.substr(0, cut), part) == ParseResult::Incomplete,
              "a greeting cut short is incomplete");
    }
}

void request(std::string_view input)
{
    SocksRequest r;
    const ParseResult result = parseSocksRequest(input, r);
    check(result != ParseResult::TooLarge, "a request is never too large");
    if (result == ParseResult::Incomplete) return;
    if (result == ParseResult::Bad) {
        check(!r.why.empty() && r.reply != 0, "a refusal says why and how to answer");
        return;
    }
    check(r.size >= 7 && r.size <= input.size(), "the request fits");
    check(!r.host.empty() && r.port != 0, "a request names a host and a port");
    for (std::size_t cut = 0; cut < r.size; ++cut) {
        SocksRequest part;
        check(parseSocksRequest(input.substr(0, cut), part) != ParseResult::Done,
              "a request cut short is not a request");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view input(reinterpret_cast<const char*>(data), size);
    greeting(input);
    request(input);
    return 0;
}
