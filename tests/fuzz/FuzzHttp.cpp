// The filtering proxy's HTTP parsers (core/network/ProxyHttpParse.cpp): what a process in the
// sandbox sends the proxy (a request head, a CONNECT authority, an absolute URI, a chunked body)
// and what a server sends back (a response head). Checked beyond "no crash": a head parsed as
// Done fits in the buffer and the bound, and its rewritten form parses again; the chunk scanner
// never claims more bytes than it was given, fed whole or a byte at a time alike.
#include "FuzzCheck.h"
#include "network/ProxyInternal.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace sb::proxy;

using sbfuzz::check;

constexpr std::size_t kMax = 16 * 1024;

void requestHead(std::string_view input)
{
    HttpHead head;
    std::string why;
    ParseResult r = parseRequestHead(input, kMax, head, why);
    if (r == ParseResult::Bad || r == ParseResult::TooLarge)
        check(!why.empty(), "a refusal says why");
    if (r != ParseResult::Done) return;
    check(head.size <= input.size() && head.size <= kMax, "the head fits");
    (void)requestBody(head);
    auto uri = parseAbsoluteUri(head.target);
    if (!uri) return;
    std::string rewritten = rewriteRequestHead(head, uri->first, uri->second);
    HttpHead again;
    check(parseRequestHead(rewritten, rewritten.size() + 1, again, why) == ParseResult::Done,
          "a rewritten request head parses");
}

void responseHead(std::string_view input)
{
    HttpHead head;
    std::string why;
    if (parseResponseHead(input, kMax, head, why) != ParseResult::Done) return;
    check(head.size <= input.size() && head.size <= kMax, "the head fits");
    (void)responseBody(head, false);
    (void)responseBody(head, true);
    std::string rewritten = rewriteResponseHead(head, true);
    HttpHead again;
    check(parseResponseHead(rewritten, rewritten.size() + 1, again, why) == ParseResult::Done,
          "a rewritten response head parses");
}

void chunks(std::string_view input)
{
    ChunkScanner whole, bytewise;
    std::size_t used = 0;
    ChunkScanner::Result a = whole.feed(input, used);
    check(used <= input.size(), "the scanner used no more than it was given");
    std::size_t total = 0;
    ChunkScanner::Result b = ChunkScanner::Result::More;
    for (std::size_t i = 0; i < input.size() && b == ChunkScanner::Result::More; ++i) {
        std::size_t one = 0;
        b = bytewise.feed(input.substr(i, 1), one);
        check(one <= 1, "one byte at most");
        total += one;
    }
    check(a == b, "whole and bytewise agree on the result");
    if (a == ChunkScanner::Result::Done) check(used == total, "and on where the body ends");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view input(reinterpret_cast<const char*>(data), size);
    requestHead(input);
    responseHead(input);
    (void)parseAuthority(input, 0);
    (void)parseAuthority(input, 443);
    (void)parseAbsoluteUri(input);
    chunks(input);
    return 0;
}
