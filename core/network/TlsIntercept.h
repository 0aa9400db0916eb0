// The proxy's TLS termination for the hosts a secret names (docs/secrets.md): the agent's TLS
// ends here with a certificate of the session's CA (SessionCa.h), a new TLS connection goes on
// to the host (verified against this machine's trust store), and in between each HTTP/1.1
// request has the secrets' placeholders replaced by their values (SecretScan.h) — only for the
// hosts each secret names; a placeholder on its way anywhere else is refused as a leak. Values
// an upstream sends back become placeholders again. Model API requests have their tokens read
// (ModelUsage.h). Each terminated connection runs on a thread of its own.
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"
#include "network/Proxy.h"
#include "network/SecretScan.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sb {

class SessionCa;

// A connection the proxy decided and connected, handed over before any byte of TLS passed.
struct InterceptedConnection {
    UniqueFd client, upstream;
    std::string toClient;   // the proxy's own reply still to send ("200 Connection established")
    std::string fromClient; // what the agent sent behind its request (its ClientHello)
    ConnectionRequest request;
};

class TlsInterceptor {
  public:
    struct Options {
        std::vector<ResolvedSecret> secrets;
        // Every Exchange, Leak, Model, Failed and Closed event; called from the connections'
        // threads, so it must be thread-safe.
        std::function<void(const ProxyEvent&)> onEvent;
        std::chrono::milliseconds handshakeTimeout{30'000};
        std::chrono::milliseconds idleTimeout{300'000};
        std::size_t maxHeaderBytes = 64 * 1024;
        // limits.model_tokens and limits.model_requests (0: none): once the session's model
        // requests reached either, each further one waits for `ask` (as Proxy::Hooks::ask;
        // without it, or refused, it gets a 429 and never reaches the host).
        std::uint64_t modelTokens = 0, modelRequests = 0;
        std::function<void(const ConnectionRequest&, const std::string& rule, Proxy::Decide)> ask;
    };

    // What the session's model requests used so far, for the limits.
    struct ModelTotals {
        std::atomic<std::uint64_t> tokens{0}, requests{0};
    };

    // Makes the session's CA (`label` names the session in it) and the upstream TLS context.
    static Result<std::shared_ptr<TlsInterceptor>> create(Options options,
                                                          const std::string& label);
    ~TlsInterceptor();

    // The CA's certificate (PEM), which the sandbox's trust bundle adds.
    const std::string& caCertificatePem() const;
    const SecretScan& scan() const { return m_scan; }
    // Whether connections to `host` (normalised) and `port` are terminated here.
    bool terminates(const std::string& host, std::uint16_t port) const
    {
        return m_scan.namesHost(host, port);
    }

    // Where events go (Options::onEvent) and who answers over a limit (Options::ask), set
    // before the first connection arrives.
    void setOnEvent(std::function<void(const ProxyEvent&)> onEvent)
    {
        m_options.onEvent = std::move(onEvent);
    }
    void setAsk(decltype(Options::ask) ask) { m_options.ask = std::move(ask); }

    // Serves `connection` on a thread of its own until either side ends.
    void take(InterceptedConnection connection);
    // Ends every connection and waits for their threads. Idempotent.
    void stop();
    std::size_t active() const;

    struct Connection;

  private:
    TlsInterceptor(Options options, std::unique_ptr<SessionCa> ca);
    void serve(InterceptedConnection& connection);

    Options m_options;
    SecretScan m_scan;
    std::unique_ptr<SessionCa> m_ca;
    void* m_upstreamContext = nullptr; // SSL_CTX*
    mutable std::mutex m_mutex;
    std::condition_variable m_idle;
    std::vector<int> m_sockets; // of the connections being served, to shut down on stop()
    std::size_t m_active = 0;
    bool m_stopping = false;
    ModelTotals m_totals;
};

} // namespace sb
