// Finding secrets' placeholders and values in bytes on their way through the proxy: what the
// TLS termination (TlsIntercept.h) replaces, and what it refuses as an attempted leak. Pure
// logic over ResolvedSecret (policy/Secrets.h); a placeholder and its value have the same
// length, so every replacement keeps a message's length and framing.
#pragma once

#include "policy/Secrets.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

class SecretScan {
  public:
    explicit SecretScan(std::vector<ResolvedSecret> secrets);

    const std::vector<ResolvedSecret>& secrets() const { return m_secrets; }
    bool empty() const { return m_secrets.empty(); }
    // Whether any secret may be sent to `host` (normalised) on `port`: its connections are
    // terminated, the others are not.
    bool namesHost(const std::string& host, std::uint16_t port) const;

    struct Outcome {
        const ResolvedSecret* leak = nullptr; // a placeholder that may not go to this host
        std::vector<std::string> used;        // secrets whose value was put in (names, once)
    };
    // Toward `host`:`port`: each placeholder of a secret allowed there becomes its value (in a
    // body only where the secret says `body`; in a head also inside "Authorization: Basic"
    // credentials, as git sends a token); a placeholder of another secret is a leak, and then
    // nothing is replaced. `inBody` says whether `bytes` is a body.
    Outcome substitute(std::string& bytes, const std::string& host, std::uint16_t port,
                       bool inBody) const;
    // The first secret whose placeholder `bytes` (a head, unless `inBody`) carries toward a
    // host it may not go to.
    const ResolvedSecret* leakIn(std::string_view bytes, const std::string& host,
                                 std::uint16_t port, bool inBody = false) const;
    // Back toward the sandbox: any secret's value becomes its placeholder (an upstream that
    // echoes a header must not hand the sandbox the value). True when one was replaced.
    bool hideValues(std::string& bytes) const;

    // How many bytes at the end of `bytes` could be the start of a placeholder (toward the
    // host) or a value (toward the sandbox) that the next bytes complete: a stream holds them
    // back until it knows. Usually 0, so streamed responses are not delayed.
    std::size_t pendingTail(std::string_view bytes, bool values) const;

  private:
    std::vector<ResolvedSecret> m_secrets;
    std::size_t m_longest = 0;
};

// One direction of a stream through SecretScan: bytes in, bytes out, a possible partial match
// at the end held back until the next bytes (or the end) decide it.
class SecretStream {
  public:
    enum class Direction { ToHost, ToSandbox };
    SecretStream(const SecretScan& scan, Direction direction, std::string host, std::uint16_t port,
                 bool inBody);
    // Appends what may go on now to `out`; false on a leak (then `leak()` names it).
    bool feed(std::string_view in, std::string& out);
    // The end of the stream: what was held back.
    void finish(std::string& out);
    const ResolvedSecret* leak() const { return m_leak; }
    const std::vector<std::string>& used() const { return m_used; }

  private:
    const SecretScan& m_scan;
    Direction m_direction;
    std::string m_host;
    std::uint16_t m_port;
    bool m_inBody;
    std::string m_held;
    const ResolvedSecret* m_leak = nullptr;
    std::vector<std::string> m_used;
};

} // namespace sb
