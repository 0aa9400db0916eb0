// What the E2B API's files share: a sandbox's record and the shapes of responses.
#pragma once

#include "e2b/CodeInterpreter.h"
#include "e2b/Connect.h"
#include "e2b/E2bApi.h"
#include "e2b/SessionLink.h"

#include <chrono>
#include <optional>
#include <string>

namespace sb::e2b {

struct Api::Sandbox {
    std::string id; // the session's id: `sandbench-cli changes ID` reviews it
    // The session it runs in now: its id, or, once resumed after a restart of the server, the
    // session that went on with its changes (`changes ID` follows the chain there).
    std::string session;
    bool dormant = false; // kept from a server before: paused, no session, `link` null
    std::string templateId;
    std::string accessToken;
    nlohmann::json metadata = nlohmann::json::object();
    std::map<std::string, std::string> envVars;
    bool internet = true;
    std::vector<std::string> allowOut, denyOut;
    unsigned cpuCount = 0, memoryMb = 0;
    std::chrono::system_clock::time_point startedAt, endAt; // endAt under Api's mutex
    bool paused = false; // frozen (cgroup freezer) until connect resumes it; under the mutex
    bool pauseOnTimeout = false; // lifecycle.onTimeout 'pause': its timeout pauses it
    std::shared_ptr<SessionLink> link;
    // The code interpreter's gateway (code interpreter templates), started with the sandbox and
    // again when a request finds it gone.
    struct Kernels {
        std::mutex mutex;
        std::shared_ptr<KernelGateway> gateway;
    };
    std::shared_ptr<Kernels> kernels = std::make_shared<Kernels>();
    // Its metrics so far (MetricsApi.cpp): one taken at each request, a second apart at least,
    // and the CPU time of the last one, from which the next one's share is reckoned.
    struct Metrics {
        std::mutex mutex;
        std::vector<nlohmann::json> samples; // oldest first, at most kMaxSamples
        std::uint64_t cpuUs = 0;
        std::chrono::system_clock::time_point at; // of the last one; the start before any
    };
    std::shared_ptr<Metrics> metrics = std::make_shared<Metrics>();
    // Its ports' previews asked for through getHost(port)'s names: host port by port.
    struct Previews {
        std::mutex mutex;
        std::map<unsigned, unsigned> ports;
    };
    std::shared_ptr<Previews> previews = std::make_shared<Previews>();
};

// A create request (E2B's NewSandbox), checked: what Sandbench honours, or an InvalidInput
// naming the first field it cannot honour. `pauseServed`: whether onTimeout 'pause' can be.
struct CreateRequest {
    SandboxSpec spec;
    unsigned timeoutSeconds = 0;
    bool pauseOnTimeout = false;
};
Result<CreateRequest> parseCreate(const nlohmann::json& body, const ApiOptions& options,
                                  bool pauseServed);
// The seconds of a "timeout" field, within [1, max]; `fallback` when it is absent.
Result<unsigned> timeoutOf(const nlohmann::json& body, unsigned fallback, unsigned max);

// A sandbox as the control plane describes it: on create and connect, and with its details
// (metadata, times, state) for get and list.
nlohmann::json sandboxJson(const Api::Sandbox& s, const std::string& envdVersion);
nlohmann::json detailJson(const Api::Sandbox& s, std::chrono::system_clock::time_point endAt,
                          const std::string& envdVersion);
// Nanoseconds since the epoch of an RFC 3339 time ("2024-05-01T12:34:56.789Z", any offset).
std::optional<long long> parseRfc3339(std::string_view text);

// A control-plane error: {"code": status, "message"} (the SDK reads "code" for 404s).
void restError(http::Exchange& ex, int status, const std::string& message);
// A unary Connect call's failure: the code's HTTP status, {"code", "message"}.
void rpcFail(http::Exchange& ex, const RpcError& error);
void sendJson(http::Exchange& ex, int status, const nlohmann::json& body);

// RFC 3339 in UTC with nanoseconds, as the SDK parses dates.
std::string rfc3339(std::chrono::system_clock::time_point t);
std::string rfc3339(long long unixNs);
// `bytes` random bytes in hex.
std::string randomHex(std::size_t bytes);
// Equal, in a time that does not depend on where they differ.
bool sameSecret(std::string_view a, std::string_view b);

// A request body that is one JSON object (control plane, unary calls), or why not.
Result<nlohmann::json> jsonBody(http::Exchange& ex, std::size_t limit);

// A path of the sandbox, absolute: relative ones and "~" are from `home`.
std::string absoluteIn(const std::string& home, const std::string& path);

// How often a stream says it is alive: the client's Keepalive-Ping-Interval (seconds), else 50.
std::chrono::seconds keepaliveOf(const http::Exchange& ex);

// filesystem.Filesystem/WatchDir: the session's file events within `home` (its workspace), as
// envd's events of the folder the request names, until the client or the session goes.
void watchDir(http::Exchange& ex, SessionLink& link, const std::string& home, std::size_t maxBody);

// The sandbox and port a getHost(port) name ("8000-SANDBOX.localhost:N") is for.
struct PortHost {
    unsigned port = 0;
    std::string sandbox;
};
std::optional<PortHost> parsePortHost(std::string_view host);
// The status line and headers of an HTTP/1.x answer (its head without the blank line), or
// nullopt when it is not one.
struct ResponseHead {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;
};
std::optional<ResponseHead> parseResponseHead(std::string_view head);
// The largest request body getHost's relay passes on (read whole first).
constexpr std::size_t kMaxRelayedBody = std::size_t{16} << 20;
// The domain the SDK is told (it builds getHost(port) from it): localhost with the port this
// request came to, so that those names reach this server and nothing else.
std::string domainOf(const http::Exchange& ex);

// E2B's EntryInfo of a file request's entry (stat, list): `path` is its absolute path.
nlohmann::json entryInfo(const nlohmann::json& entry, const std::string& path);

} // namespace sb::e2b
