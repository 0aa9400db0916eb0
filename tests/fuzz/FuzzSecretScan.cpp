// The secrets' scan of the bytes the proxy reads inside a terminated connection
// (core/network/SecretScan.cpp), both ways, split anywhere. Checked beyond "no crash": a stream
// keeps the length of what passes (every replacement is length for length), the sandbox never
// receives a value whatever the host sends, a stream gives what the whole text would, and the
// host receives no placeholder of a secret it may have unless the request was refused.
#include "FuzzCheck.h"
#include "network/SecretScan.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace {

using sb::ResolvedSecret;
using sb::SecretScan;
using sb::SecretStream;
using sbfuzz::check;

ResolvedSecret secret(const char* name, const char* host, const char* value,
                      const char* placeholder, bool body)
{
    ResolvedSecret s;
    s.spec.name = name;
    s.spec.hosts = {host};
    s.spec.body = body;
    s.value = value;
    s.placeholder = placeholder;
    return s;
}

const SecretScan& scan()
{
    static const SecretScan kScan({secret("a", "api.test", "sk-VALUE-aaa", "sk-PLACE-bbb", true),
                                   secret("b", "*.gh.test", "ghp_VALUEcc", "ghp_PLACEdd", false)});
    return kScan;
}

std::string through(SecretStream& stream, std::string_view input, std::size_t split, bool& ok)
{
    std::string out;
    ok = stream.feed(input.substr(0, split), out) && stream.feed(input.substr(split), out);
    if (ok) stream.finish(out);
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    const std::size_t split = data[0];
    const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::size_t at = split % (input.size() + 1);

    SecretStream down(scan(), SecretStream::Direction::ToSandbox, "api.test", 443, true);
    bool ok = false;
    const std::string toSandbox = through(down, input, at, ok);
    check(ok, "the way back never refuses");
    check(toSandbox.size() == input.size(), "the way back keeps the length");
    for (const ResolvedSecret& s : scan().secrets())
        check(toSandbox.find(s.value) == std::string::npos, "no value reaches the sandbox");
    std::string whole(input);
    scan().hideValues(whole);
    check(toSandbox == whole, "a split stream gives what the whole text gives");

    SecretStream up(scan(), SecretStream::Direction::ToHost, "api.test", 443, true);
    const std::string toHost = through(up, input, at, ok);
    if (!ok) {
        check(up.leak() != nullptr, "a refusal names the secret");
        return 0;
    }
    check(toHost.size() == input.size(), "the way out keeps the length");
    check(toHost.find("sk-PLACE-bbb") == std::string::npos, "the allowed placeholder is replaced");
    check(toHost.find("ghp_PLACEdd") == std::string::npos ||
              input.find("ghp_PLACEdd") != std::string::npos,
          "no placeholder appears from nowhere");
    return 0;
}
