// The filtering proxy: the sandbox's only way out. It accepts the agent's connections on a
// listener created inside the sandbox's network namespace, decides each destination with the
// network policy (NetworkRules.h), and connects from the supervisor's namespace.
// Speaks HTTP CONNECT, absolute-URI HTTP/1.1 (every request of a keep-alive connection is
// checked) and SOCKS5 (CONNECT, no auth). Behaviour and limits: docs/network.md.
#pragma once

#include "base/Error.h"
#include "network/ModelUsage.h"
#include "policy/NetworkRules.h"
#include "policy/Policy.h"
#include "policy/ProcessChain.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/types.h>
#include <vector>

namespace sb {

class TlsInterceptor;

struct ConnectionRequest {
    std::string host; // normalised (NetworkRules.h): "example.com", "10.0.0.1", "::1"
    std::uint16_t port = 0;
    std::string protocol; // "connect", "http", "socks5", or "tcp" (a redirected connection)
    std::string address;  // the resolved address the proxy would connect to; empty before DNS
    std::uint64_t connection = 0; // the agent's connection, to tie events together
    // Who made it (Hooks::identify): the process and its parents; empty when unknown.
    ProcessChain process;
    // The command (exec record id) that process last ran, when the sandbox's filter stopped
    // its connect (Proxy::screen); 0: unknown.
    std::uint64_t commandId = 0;
};

struct ProxyEvent {
    enum class Kind {
        Decided,   // a request was allowed or denied (after asking, when the policy said ask)
        Failed,    // an allowed request could not be carried out (DNS, connect, timeout)
        Malformed, // the agent sent something the proxy does not accept; it got 400 or a failure
        Closed,    // an upstream connection ended; bytes moved over it
        Lookup,    // the sandbox's resolver answered a query (`lookup`)
        // Inside a connection the proxy terminates for a secret's host (TlsIntercept.h):
        Exchange, // one request and its response; `secrets` names the values put in
        Leak,     // a secret's placeholder on its way to a host it may not go to: refused
        Model,    // a model API request and the tokens its response reported (`usage`)
        // A model request over limits.model_tokens or model_requests (detail names which,
        // status holds its value): `action` says whether the human let it go, `rule` who did.
        ModelLimit,
    };
    Kind kind = Kind::Decided;
    ConnectionRequest request; // host/port empty for a Malformed request without a target
    RuleAction action = RuleAction::Deny; // Decided: Allow or Deny, never Ask
    std::string rule;      // Decided: what decided ("rule 2 (allow *.github.com)", "default (ask)")
    bool asked = false;    // Decided: the answer came from Hooks::ask
    bool wouldAsk = false; // Decided: allowed by Options::observe where the policy says ask
    // Decided, with Options::shadow: what that policy would have decided, and by which rule.
    RuleAction shadowAction = RuleAction::Deny;
    std::optional<std::string> shadowRule;
    std::string detail;          // Failed, Malformed: what went wrong; Decided (http): "GET /path"
    std::uint64_t bytesUp = 0;   // Closed: agent → destination
    std::uint64_t bytesDown = 0; // Closed: destination → agent
    // Lookup: the name (request.host, as asked), its type ("A", "AAAA", …), the answer's code
    // ("NOERROR", "NXDOMAIN", …), the addresses answered, and why (detail).
    std::string lookupType, lookupRcode;
    std::vector<std::string> lookupAddresses;
    // Exchange, Model: the response's status (0: none came) and how long the exchange took;
    // Exchange: the secrets whose value went in; Leak: the secret (one name) and where it was
    // seen (detail: "head" or "body").
    int status = 0;
    std::uint64_t durationMs = 0;
    std::vector<std::string> secrets;
    std::optional<ModelUsage> usage; // Model
};

// A program of the sandbox about to open a connection or send a datagram to an address outside
// it: the sandbox's syscall filter stopped its connect or send (supervision/OutboundGate.h).
struct OutboundAttempt {
    IpAddress address;
    std::uint16_t port = 0;
    std::string transport;       // "tcp", "udp", "icmp", or another IP protocol's name
    pid_t pid = 0;               // the caller, in the supervisor's pid namespace
    std::uint64_t commandId = 0; // the command (exec record id) it last ran; 0: unknown
};

class Proxy {
  public:
    // The answer to an ask: callable once, from any thread; later calls are ignored, and so is
    // a call after the agent gave up or the proxy stopped.
    using Decide = std::function<void(bool allow, std::string rule)>;

    struct Hooks {
        // Called on the proxy's thread when the policy says "ask" for `request` (`rule` names
        // the rule or "default"). The connection waits until `decide` is called; keep this
        // quick (hand the request to the approval broker). Without it, "ask" denies.
        std::function<void(const ConnectionRequest& request, const std::string& rule,
                           Decide decide)>
            ask;
        // Every decision, failure, malformed request and closed upstream, on the proxy's thread,
        // for the activity log and the recording. Keep it quick.
        std::function<void(const ProxyEvent&)> onEvent;
        // The process behind an agent's socket, from the supervisor's view of the sandbox:
        // `local` is the socket's own address, `remote` its peer as it sees it (the proxy
        // listener, or where a redirected connection was going, or the resolver). Called on the
        // proxy's thread once per connection or lookup, before it is decided. Empty: unknown.
        std::function<ProcessChain(const sockaddr_storage& local, const sockaddr_storage& remote,
                                   bool udp)>
            identify;
        // The process `pid` (the supervisor's numbering) and its parents, for screen(); called
        // on the proxy's thread. Empty: unknown.
        std::function<ProcessChain(pid_t pid)> processOf;
    };

    struct Options {
        std::chrono::milliseconds handshakeTimeout{30'000}; // SOCKS handshake / HTTP head
        std::chrono::milliseconds connectTimeout{10'000};   // DNS and TCP connect together
        std::chrono::milliseconds idleTimeout{300'000};     // no byte either way
        std::chrono::milliseconds halfOpenTimeout{60'000};  // one side closed, other silent
        std::size_t maxHeaderBytes = 64 * 1024;             // request or response head
        std::size_t maxConnections = 8192;                  // agent connections at once
        unsigned resolverThreads = 4;
        // A listener for the sandbox's redirected connections (sandbox/NetworkRedirect.h),
        // taken over like listenFd; -1: none. A connection accepted there says where it was
        // going (SO_ORIGINAL_DST) and is decided as a request for that address and port
        // (protocol "tcp"); allowed, its bytes go through unchanged; refused, it is reset.
        int transparentListenFd = -1;
        // The sandbox's resolver socket (UDP, sandbox/NetworkRedirect.h), taken over likewise;
        // -1: none. Its queries are answered by a DnsResponder on the proxy's thread (Lookup
        // events), names resolved on the host; a redirected connection to an address it
        // answered is decided by the name it was looked up by.
        int resolverFd = -1;
        // Observe mode: what the policy would ask is allowed, its Decided event `wouldAsk`.
        bool observe = false;
        // A candidate's network policy, evaluated beside (ProxyEvent::shadow*), never enforced.
        std::optional<NetworkPolicy> shadow;
        // Replaces getaddrinfo (tests map names to loopback servers); called on a resolver
        // thread. Empty: getaddrinfo on the supervisor's side.
        std::function<Result<std::vector<IpAddress>>(const std::string& host)> resolve;
        // The session's secrets (TlsIntercept.h): an allowed connection to a host a secret
        // names (CONNECT, SOCKS5 or redirected) is handed over to it once connected instead of
        // relayed; a plain HTTP request carrying a placeholder toward another host is refused
        // (a Leak event). Null: no secrets.
        std::shared_ptr<TlsInterceptor> intercept;
    };

    // Takes ownership of `listenFd` (a listening TCP socket) and serves it on its own thread
    // until stop(). Fails on an invalid policy rule or when the loop cannot be set up.
    static Result<std::unique_ptr<Proxy>> start(int listenFd, NetworkPolicy policy, Hooks hooks,
                                                Options options);
    static Result<std::unique_ptr<Proxy>> start(int listenFd, NetworkPolicy policy, Hooks hooks)
    {
        return start(listenFd, std::move(policy), std::move(hooks), Options{});
    }

    // Applies to every request decided from now on (the next request of a keep-alive
    // connection too); established tunnels keep going. Refuses an invalid policy.
    Status updatePolicy(const NetworkPolicy& policy);

    // Any thread: decides `attempt` before it happens and calls `answer` once, from the proxy's
    // thread, with 0 (let the call go on) or the errno it fails with. A TCP connection is
    // decided as the redirected connection it becomes would be (by the name the sandbox's
    // resolver gave the address): denied, ECONNREFUSED and a Decided event; asked, Hooks::ask
    // while the call waits; allowed, it goes on and its connection is decided again when it
    // arrives (an approval given here holds for it, its process is known from here). Other
    // transports never leave the sandbox: EPERM, with a Decided event for each new
    // destination. After stop(), `answer` is not called.
    void screen(OutboundAttempt attempt, std::function<void(int error)> answer);

    // Closes every connection and the listener; waits for the thread. Idempotent.
    void stop();
    ~Proxy();
    Proxy(const Proxy&) = delete;
    Proxy& operator=(const Proxy&) = delete;

    std::uint16_t port() const;            // of the listener (inside the sandbox's namespace)
    std::size_t activeConnections() const; // agent connections now open

    struct Impl;

  private:
    explicit Proxy(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace sb
