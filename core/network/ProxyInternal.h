// Internals of the proxy shared by its files: Proxy.cpp (thread, event loop, lifecycle),
// ProxyDecide.cpp (decision, DNS, asking, connecting), Relay.cpp (the splice relay, shared),
// ProxyHttp.cpp / ProxyHttpParse.cpp (HTTP), ProxySocks.cpp (SOCKS5), ProxyResolver.cpp.
#pragma once

#include "network/DnsResponder.h"
#include "network/Proxy.h"
#include "network/Relay.h"
#include "policy/NetworkRules.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

namespace sb::proxy {

using Clock = std::chrono::steady_clock;
// Proxy::Impl::drive takes EPOLLIN out of kSideEvents while a side's bytes have nowhere to go.
using relay::kSideEvents;

// Messages to the loop thread from resolver threads, ask answers and the public API.
struct ResolveDone {
    std::uint64_t conn, gen;
    Result<std::vector<IpAddress>> addresses;
};
struct AskDone {
    std::uint64_t conn, gen;
    bool allow;
    std::string rule;
};
struct ScreenCall { // Proxy::screen
    OutboundAttempt attempt;
    std::function<void(int)> answer;
};
struct ScreenAsked {
    std::uint64_t id;
    bool allow;
    std::string rule;
};
struct StopLoop {};
using Message = std::variant<ResolveDone, AskDone, ScreenCall, ScreenAsked, StopLoop>;
// ResolveDone::conn of a lookup of the sandbox's resolver, not of a connection.
constexpr std::uint64_t kLookupTag = std::uint64_t{1} << 62;

// Shared with resolver threads and Decide callbacks, which may outlive the proxy: after
// close() posting does nothing.
class Mailbox {
  public:
    Mailbox();
    ~Mailbox();
    int fd() const { return m_eventFd; }
    void post(Message message);
    std::deque<Message> take(); // also clears the eventfd
    void close();

  private:
    std::mutex m_mutex;
    std::deque<Message> m_queue;
    bool m_closed = false;
    int m_eventFd = -1;
};

// getaddrinfo (or Options::resolve) on worker threads, so the loop never blocks on DNS.
class Resolver {
  public:
    using Fn = std::function<Result<std::vector<IpAddress>>(const std::string&)>;
    Resolver(unsigned threads, Fn fn, std::shared_ptr<Mailbox> mailbox);
    ~Resolver(); // workers finish their lookup and exit on their own (detached)
    void submit(std::uint64_t conn, std::uint64_t gen, std::string host);

    struct State;

  private:
    std::shared_ptr<State> m_state;
};

Result<std::vector<IpAddress>> systemResolve(const std::string& host);

using relay::Flow;
using relay::kUnlimited;
using relay::Pump;
using relay::pump;
using relay::readInto;
using relay::Side;

// Finds the end of a chunked body in bytes passed through unchanged.
class ChunkScanner {
  public:
    enum class Result { More, Done, Bad };
    // Consumes from `data`; `used` is how many bytes belong to the body (all, or up to its end).
    // `payload`, when given, receives the chunks' data without their framing.
    Result feed(std::string_view data, std::size_t& used, std::string* payload = nullptr);
    void reset() { *this = ChunkScanner{}; }

  private:
    enum class State {
        Size,
        Extension,
        SizeLf,
        Data,
        DataCr,
        DataLf,
        TrailerStart,
        Trailer,
        TrailerLf,
        EndLf
    };
    State m_state = State::Size;
    std::uint64_t m_remaining = 0;
    int m_digits = 0;
    std::size_t m_lineBytes = 0;
};

enum class BodyMode { None, Length, Chunked, UntilClose };

struct HttpHeader {
    std::string name, value;
};

struct HttpHead {
    std::string method, target, version; // request line
    int status = 0;                      // response
    std::string statusLine;
    std::vector<HttpHeader> headers;
    std::size_t size = 0; // bytes of the head including the empty line
    const std::string* find(std::string_view name) const;
    bool hasToken(std::string_view name, std::string_view token) const;
};

enum class ParseResult { Incomplete, Done, Bad, TooLarge };
ParseResult parseRequestHead(std::string_view buffer, std::size_t maxBytes, HttpHead& head,
                             std::string& why);
ParseResult parseResponseHead(std::string_view buffer, std::size_t maxBytes, HttpHead& head,
                              std::string& why);

// SOCKS5 (ProxySocksParse.cpp), from the bytes read so far: Incomplete until a whole message
// is there; `size` is how many bytes it took.
constexpr std::uint8_t kSocksVersion = 0x05;
struct SocksGreeting {
    std::size_t size = 0;
    bool noAuth = false; // the client offers "no authentication"
};
ParseResult parseSocksGreeting(std::string_view in, SocksGreeting& out);
struct SocksRequest {
    std::size_t size = 0; // once Done, or Bad with the whole request read
    std::string host;     // normalised
    std::uint16_t port = 0;
    std::uint8_t reply = 0; // Bad: the reply code that refuses it
    std::string why;        // Bad: what is wrong, for the malformed event
};
// CONNECT only; Bad for another version, command or address type, a bad name or port 0.
ParseResult parseSocksRequest(std::string_view in, SocksRequest& out);

struct Authority {
    std::string hostText; // as sent (for the Host header)
    std::string host;     // normalised
    std::uint16_t port = 0;
};
// "host:port", "[v6]:port"; `defaultPort` 0 means the port is required.
Result<Authority> parseAuthority(std::string_view text, std::uint16_t defaultPort);
// "http://authority/path?query" → authority and "/path?query".
Result<std::pair<Authority, std::string>> parseAbsoluteUri(std::string_view target);

// Request body framing; an error message for a request the proxy refuses.
Result<std::pair<BodyMode, std::uint64_t>> requestBody(const HttpHead& head);
Result<std::pair<BodyMode, std::uint64_t>> responseBody(const HttpHead& head, bool headRequest);
std::string rewriteRequestHead(const HttpHead& head, const Authority& authority,
                               const std::string& path);
std::string rewriteResponseHead(const HttpHead& head, bool closeClient);
std::string httpReply(int status, std::string_view reason, std::string_view body, bool close,
                      std::string_view rule = {});

enum class Phase {
    Sniff,         // first byte tells SOCKS5 (0x05) from HTTP
    SocksGreeting, // method negotiation
    SocksRequest,  // CONNECT request
    HttpHead,      // reading a CONNECT or absolute-URI request head
    Resolving,     // waiting for DNS
    Asking,        // waiting for Hooks::ask's answer
    Connecting,    // non-blocking connect to the upstream
    Tunnel,        // CONNECT / SOCKS5: bytes both ways
    HttpExchange,  // one HTTP request and its response
    Closing,       // flushing a final reply, then closing
};

struct HttpState {
    bool reqDone = false, respHeadDone = false, respDone = false;
    BodyMode reqMode = BodyMode::None, respMode = BodyMode::None;
    ChunkScanner reqChunks, respChunks;
    bool headRequest = false;
    bool clientClose = false;   // the agent asked to close after this response
    bool upstreamClose = false; // the upstream connection cannot be reused
    bool sentToClient = false;  // some of the response already reached the agent
};

struct Conn {
    std::uint64_t id = 0;
    Side client, upstream;
    Phase phase = Phase::Sniff;
    std::string cin;       // client bytes read but not yet consumed (heads, SOCKS)
    std::string uin;       // upstream bytes read but not yet consumed (response heads, chunks)
    Flow up, down;         // client → upstream, upstream → client
    std::uint64_t gen = 0; // current request; stale resolve/ask answers are dropped
    ConnectionRequest req;
    std::string httpDetail;  // "GET /path"
    std::string pendingHead; // HTTP: the rewritten head and any body bytes, sent once connected
    HttpState http;
    std::string askedRule; // non-empty once the current request was approved by ask
    // A redirected connection's destination: the request is decided for it (by the name the
    // program looked it up by, when the sandbox's resolver gave it) and connects only there.
    std::optional<IpAddress> fixedAddress;
    // Who the agent's side is: its socket's address and its peer's as it sees them, and the
    // process found behind them (once, at the first request).
    sockaddr_storage agentLocal{}, agentRemote{};
    bool identified = false;
    ProcessChain process;
    // Approved while the program's connect() waited (Proxy::screen): the rule of that answer.
    std::optional<std::string> approvedAtConnect;
    std::uint64_t commandId = 0;       // from Proxy::screen, 0: unknown
    bool wouldAsk = false;             // the next decision is observe mode's allow of an ask
    std::vector<IpAddress> candidates; // checked addresses still to try
    std::size_t nextCandidate = 0;
    std::string upstreamKey; // "host port" the open upstream serves (HTTP reuse)
    IpAddress upstreamAddress;
    ConnectionRequest upstreamReq; // the request that opened the upstream, for its Closed event
    bool reuse = false;            // HTTP: the current request goes to the open upstream
    std::string approvedKey;       // "host port address" approved by ask on this upstream
    std::uint64_t markUp = 0, markDown = 0; // flow counters when the upstream opened
    bool firstHead = true;
    bool lingering = false; // Closing: our FIN sent, discarding input until the agent's FIN
    Clock::time_point deadline = Clock::time_point::max(); // of the current waiting phase
    Clock::time_point lastActivity{};
};

} // namespace sb::proxy

namespace sb {

struct Proxy::Impl {
    Impl(int listenFd, std::shared_ptr<const NetworkRules> rules, Hooks hooks, Options options);
    ~Impl();

    Status init();
    void run();
    void requestStop();

    // Proxy.cpp: loop, accept, events, timers, closing
    void accept(bool transparent);
    void startRedirected(proxy::Conn& c); // a connection accepted on the transparent listener
    void reset(proxy::Conn& c);           // closes the agent's side with RST (a refused "tcp")
    void pauseListeners(bool pause);      // out of descriptors: accept nothing for a while

    // ProxyScreen.cpp: calls the sandbox's filter stopped before they open a connection
    void onScreen(OutboundAttempt attempt, std::function<void(int)> answer);
    void onScreenAsked(std::uint64_t id, bool allow, std::string rule);
    // What screen() let go on, for the redirected connection it becomes: its process and an
    // approval given while it waited. False when no screened call (or several processes')
    // went there.
    bool takeScreened(proxy::Conn& c, const IpAddress& address, std::uint16_t port);
    void sweepScreened(proxy::Clock::time_point now);

    // ProxyDns.cpp: the sandbox's resolver
    void onResolverReadable();
    void onLookupResolved(std::uint64_t id, Result<std::vector<IpAddress>> addresses);
    void answerLookup(const DnsResponder::Reply& reply, const sockaddr_storage& to,
                      socklen_t length);
    void onFdEvent(std::uint64_t id, bool isUpstream, std::uint32_t events);
    void onMessages();
    void sweep(proxy::Clock::time_point now);
    void drive(proxy::Conn& c);
    bool step(proxy::Conn& c);
    void closeConn(proxy::Conn& c);
    void closeUpstream(proxy::Conn& c);
    void finish(proxy::Conn& c); // flush down.pending, then close (Phase::Closing)
    void emit(ProxyEvent event);
    // What Options::shadow would have decided for a Decided event's request (ProxyDecide.cpp).
    void addShadow(ProxyEvent& event) const;
    void emitMalformed(proxy::Conn& c, std::string detail);
    void setPhase(proxy::Conn& c, proxy::Phase phase, std::chrono::milliseconds timeout);

    // ProxyDecide.cpp: the decision and connect pipeline shared by all protocols
    void request(proxy::Conn& c, std::string host, std::uint16_t port, std::string protocol);
    void onResolved(proxy::Conn& c, Result<std::vector<IpAddress>> addresses);
    void onAsked(proxy::Conn& c, bool allow, std::string rule);
    void connectNext(proxy::Conn& c);
    void onConnectReady(proxy::Conn& c);
    void onUpstreamOpen(proxy::Conn& c);
    void proceed(proxy::Conn& c, RuleAction action, std::string rule, bool asked);
    void deny(proxy::Conn& c, const std::string& rule);
    void startTunnel(proxy::Conn& c);
    // A connected connection to a host a secret names goes to Options::intercept.
    void handOff(proxy::Conn& c);
    void failUpstream(proxy::Conn& c, int httpStatus, std::uint8_t socksCode, std::string why);

    // CONNECT and SOCKS5 after the reply (Proxy.cpp)
    bool stepTunnel(proxy::Conn& c);

    // ProxySocks.cpp
    bool stepSocks(proxy::Conn& c);
    void socksReply(proxy::Conn& c, std::uint8_t code, bool close);

    // ProxyHttp.cpp
    bool stepHttpHead(proxy::Conn& c);
    // Moves a chunked body on, from `in` (read from `from` when it is empty) to `out`, as far
    // as its chunks go.
    enum class ChunkStep { Idle, Progress, Done, ReadFailed, Bad };
    ChunkStep relayChunks(proxy::ChunkScanner& scanner, proxy::Side& from, std::string& in,
                          std::string& out);
    bool stepHttpExchange(proxy::Conn& c);
    void httpError(proxy::Conn& c, int status, std::string_view reason, std::string detail);
    void startHttpExchange(proxy::Conn& c);

    int m_listenFd = -1;
    int m_transparentFd = -1; // Options::transparentListenFd, owned
    int m_resolverFd = -1;    // Options::resolverFd, owned
    DnsResponder m_dns;
    // Queries waiting for the host's resolver, by their id (kLookupTag | n) in ResolveDone.
    struct PendingLookup {
        DnsResponder::Resolve request;
        sockaddr_storage from{};
        socklen_t length = 0;
    };
    std::unordered_map<std::uint64_t, PendingLookup> m_lookups;
    // Screened calls waiting for an answer to Hooks::ask, by their id (ScreenAsked).
    struct PendingScreen {
        ConnectionRequest request;
        IpAddress address; // where the call goes
        pid_t pid = 0;
        std::function<void(int)> answer;
    };
    std::unordered_map<std::uint64_t, PendingScreen> m_screens;
    std::uint64_t m_nextScreen = 1;
    // Screened TCP connections let go on, by "address port", oldest first, until their
    // connection arrives (takeScreened) or kScreenedFor passes.
    struct Screened {
        pid_t pid = 0;
        ProcessChain process;
        std::uint64_t commandId = 0;
        std::optional<std::string> approvedRule;
        proxy::Clock::time_point until;
    };
    std::unordered_map<std::string, std::deque<Screened>> m_screened;
    std::size_t m_screenedCount = 0;
    // Refused datagrams recently recorded, by "pid transport address port": one event per
    // destination and program every few seconds, not one per packet.
    std::unordered_map<std::string, proxy::Clock::time_point> m_refusedRecently;
    std::uint64_t m_nextLookup = 1;
    int m_epollFd = -1;
    std::uint16_t m_port = 0;
    // Replaced by updatePolicy() from any thread; read once per decision.
    std::shared_ptr<const NetworkRules> rules() const;
    mutable std::mutex m_rulesMutex;
    std::shared_ptr<const NetworkRules> m_rules;
    std::optional<NetworkRules> m_shadowRules; // Options::shadow, compiled by init()
    Hooks m_hooks;
    Options m_options;
    std::shared_ptr<proxy::Mailbox> m_mailbox;
    std::unique_ptr<proxy::Resolver> m_resolver;
    std::unordered_map<std::uint64_t, std::unique_ptr<proxy::Conn>> m_conns;
    std::vector<std::uint64_t> m_ready; // connections cut short for fairness, to drive again
    std::vector<IpAddress> m_ownAddresses;
    proxy::Clock::time_point m_ownRefreshed{};
    proxy::Clock::time_point m_listenPausedUntil{};
    bool m_listenPaused = false;
    std::uint64_t m_nextId = 1;
    std::atomic<std::size_t> m_active{0};
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
};

} // namespace sb
