// The policy's `secrets`: credentials the sandbox never holds. Each names where its value comes
// from on the host, the hosts it may be sent to, and where the sandbox sees a placeholder for
// it; the proxy puts the value in place of the placeholder on the way to those hosts only
// (docs/secrets.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sb {

// Where a secret's value comes from on the host.
struct SecretSource {
    enum class Kind { Env, File, Keyring, Command };
    Kind kind = Kind::Env;
    std::string variable;                                        // Env: the supervisor's variable
    std::string path;                                            // File: "~/…" or absolute
    std::vector<std::pair<std::string, std::string>> attributes; // Keyring: libsecret attributes
    std::vector<std::string> argv;                               // Command: its standard output
};

struct SecretSpec {
    std::string name; // [a-z0-9_-], unique in the policy
    SecretSource from;
    // Where the value may go: host names ("api.anthropic.com"), "*.suffix" (the suffix and
    // its subdomains) or IP addresses, on these ports.
    std::vector<std::string> hosts;
    std::vector<std::uint16_t> ports = {443};
    std::string env;  // the sandbox's variable that holds the placeholder; may be empty
    std::string file; // a file inside the sandbox that holds it ("~/…" or absolute); may be empty
    bool body = false; // also replaced in request bodies, not only in heads
    // A value missing on the host leaves the secret out (the variable unset, a note at start)
    // instead of refusing to start.
    bool optional = false;
};

// A secret of a running session: its value, read on the host by secrets/SecretValues.h, and the
// placeholder the sandbox sees instead. Both have the same length, so a replacement in either
// direction never changes a message's framing.
struct ResolvedSecret {
    SecretSpec spec;
    std::string value;
    std::string placeholder;
};

// Whether `host` (normalised) and `port` are among the secret's hosts.
bool secretAllows(const SecretSpec& secret, const std::string& host, std::uint16_t port);

} // namespace sb
