#include "network/TlsIntercept.h"

#include "network/ProxyInternal.h"
#include "network/SessionCa.h"
#include "network/TlsStream.h"

#include <algorithm>
#include <cerrno>
#include <future>
#include <mutex>
#include <openssl/ssl.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace sb {

using proxy::BodyMode;
using proxy::ChunkScanner;
using proxy::HttpHead;
using proxy::ParseResult;
using Deadline = TlsStream::Deadline;
using SteadyClock = std::chrono::steady_clock;

namespace {

// A request body up to this long is read whole before any of the request goes on.
constexpr std::uint64_t kWholeBody = 4 * 1024 * 1024;

Deadline after(std::chrono::milliseconds timeout)
{
    return SteadyClock::now() + timeout;
}

Status writeRaw(int fd, std::string_view bytes, Deadline deadline)
{
    while (!bytes.empty()) {
        const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n > 0) {
            bytes.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN) return sysError("write to the agent");
        pollfd p{fd, POLLOUT, 0};
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
        if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) == 0)
            return inputError("timed out writing to the agent");
    }
    return {};
}

// Plain text read from one side and not yet used.
struct Side {
    explicit Side(TlsStream& s) : stream(s) {}
    TlsStream& stream;
    std::string buffer;
    std::uint64_t bytes = 0; // read in all
    // More bytes onto `buffer`: false at the end of the stream or on an error. Records already
    // received come along (up to 256 KiB), so that they go on in one write rather than each in
    // its own.
    bool fill(Deadline deadline)
    {
        char chunk[65536];
        std::size_t got = 0;
        do {
            auto n = stream.read(chunk, sizeof chunk, deadline);
            if (!n || *n == 0) return got > 0;
            buffer.append(chunk, *n);
            bytes += *n;
            got += *n;
        } while (got < 256 * 1024 && stream.hasRecord());
        return true;
    }
};

enum class HeadRead { Done, Closed, Bad };

// A request or response head into `head`; its bytes stay at the front of `side.buffer`.
HeadRead readHead(Side& side, bool request, std::size_t max, HttpHead& head, Deadline deadline)
{
    for (;;) {
        std::string why;
        head = HttpHead{};
        const ParseResult r = request ? proxy::parseRequestHead(side.buffer, max, head, why)
                                      : proxy::parseResponseHead(side.buffer, max, head, why);
        if (r == ParseResult::Done) return HeadRead::Done;
        if (r != ParseResult::Incomplete) return HeadRead::Bad;
        if (!side.fill(deadline)) return HeadRead::Closed;
    }
}

// Requests ask for an uncompressed response: a value the host sends back is then found in it
// (and made a placeholder again), and a model request's usage can be read.
std::string withoutCompression(const std::string& head)
{
    std::string out;
    std::size_t start = 0;
    while (start < head.size()) {
        std::size_t end = head.find("\r\n", start);
        if (end == std::string::npos) end = head.size();
        const std::string_view line(head.data() + start, end - start);
        const bool encoding =
            line.size() > 16 && strncasecmp(line.data(), "accept-encoding:", 16) == 0;
        if (!encoding) {
            if (line.empty() && !out.empty()) out += "Accept-Encoding: identity\r\n";
            out.append(line);
            out += "\r\n";
        }
        start = end + 2;
    }
    return out;
}

std::string withoutQuery(const std::string& target)
{
    return target.substr(0, target.find('?'));
}

} // namespace

Result<std::shared_ptr<TlsInterceptor>> TlsInterceptor::create(Options options,
                                                               const std::string& label)
{
    auto ca = SessionCa::create(label);
    if (!ca) return ca.error();
    std::shared_ptr<TlsInterceptor> out(new TlsInterceptor(std::move(options), std::move(*ca)));
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == nullptr) return Error{ErrorCode::Internal, 0, "TLS: " + openSslError()};
    out->m_upstreamContext = ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // The upstream is verified against this machine's trust store (OpenSSL's default paths,
    // which SSL_CERT_FILE and SSL_CERT_DIR may point elsewhere), never against the sandbox's.
    if (SSL_CTX_set_default_verify_paths(ctx) != 1)
        return Error{ErrorCode::Internal, 0, "TLS: no trust store: " + openSslError()};
    static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(ctx, kHttp11, sizeof kHttp11);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    return out;
}

TlsInterceptor::TlsInterceptor(Options options, std::unique_ptr<SessionCa> ca)
    : m_options(std::move(options)), m_scan(m_options.secrets), m_ca(std::move(ca))
{
    m_options.secrets.clear(); // one copy of the values: m_scan's
}

TlsInterceptor::~TlsInterceptor()
{
    stop();
    SSL_CTX_free(static_cast<SSL_CTX*>(m_upstreamContext));
}

const std::string& TlsInterceptor::caCertificatePem() const
{
    return m_ca->certificatePem();
}

std::size_t TlsInterceptor::active() const
{
    std::lock_guard lock(m_mutex);
    return m_active;
}

void TlsInterceptor::take(InterceptedConnection connection)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return; // closes both sockets
        ++m_active;
        m_sockets.push_back(connection.client.get());
        m_sockets.push_back(connection.upstream.get());
    }
    std::thread([this, c = std::move(connection)]() mutable {
        serve(c);
        std::lock_guard lock(m_mutex);
        std::erase(m_sockets, c.client.get());
        std::erase(m_sockets, c.upstream.get());
        c.client.reset();
        c.upstream.reset();
        if (--m_active == 0) m_idle.notify_all();
    }).detach();
}

void TlsInterceptor::stop()
{
    std::unique_lock lock(m_mutex);
    m_stopping = true;
    for (int fd : m_sockets)
        ::shutdown(fd, SHUT_RDWR); // every wait returns, every thread ends
    m_idle.wait(lock, [this] { return m_active == 0; });
}

namespace {

// One terminated connection's exchanges.
class Exchanges {
  public:
    Exchanges(const TlsInterceptor::Options& options, const SecretScan& scan,
              TlsInterceptor::ModelTotals& totals, const ConnectionRequest& request,
              TlsStream& client, TlsStream& upstream)
        : m_options(options), m_scan(scan), m_totals(totals), m_request(request), m_client(client),
          m_upstream(upstream)
    {
    }

    void run()
    {
        while (exchange()) {
        }
        ProxyEvent closed = event(ProxyEvent::Kind::Closed);
        closed.bytesUp = m_upstreamWritten;
        closed.bytesDown = m_clientWritten;
        emit(std::move(closed));
    }

  private:
    ProxyEvent event(ProxyEvent::Kind kind) const
    {
        ProxyEvent e;
        e.kind = kind;
        e.request = m_request;
        return e;
    }
    void emit(ProxyEvent e) const
    {
        if (m_options.onEvent) m_options.onEvent(e);
    }
    Deadline idle() const { return after(m_options.idleTimeout); }

    bool toClient(std::string_view bytes)
    {
        m_clientWritten += bytes.size();
        return !m_client.stream.write(bytes, idle());
    }
    bool toUpstream(std::string_view bytes)
    {
        m_upstreamWritten += bytes.size();
        return !m_upstream.stream.write(bytes, idle());
    }

    void refuse(int status, std::string_view reason, const std::string& why)
    {
        toClient(proxy::httpReply(status, reason, "sandbench: " + why + "\n", true));
    }

    void leak(const ResolvedSecret& secret, const char* where)
    {
        ProxyEvent e = event(ProxyEvent::Kind::Leak);
        e.secrets = {secret.spec.name};
        e.detail = where;
        emit(std::move(e));
        refuse(403, "Forbidden",
               "refused: the request carries the placeholder of secret '" + secret.spec.name +
                   "', which may not be sent to " + m_request.host + " port " +
                   std::to_string(m_request.port));
    }

    // A body of `mode` from `from` to `to` through `filter`; `observed` (optional) receives
    // its decoded bytes. False when the connection cannot go on.
    bool relayBody(Side& from, bool toHost, BodyMode mode, std::uint64_t length,
                   SecretStream& filter, const std::function<void(std::string_view)>& observed)
    {
        ChunkScanner chunks;
        std::uint64_t left = length;
        std::string out, decoded;
        bool done = mode == BodyMode::None;
        while (!done) {
            if (from.buffer.empty() && !from.fill(idle())) {
                if (mode != BodyMode::UntilClose) return false; // cut short
                done = true;
            }
            std::size_t used = from.buffer.size();
            if (mode == BodyMode::Length) {
                used = static_cast<std::size_t>(std::min<std::uint64_t>(left, used));
                left -= used;
                done = left == 0;
                if (observed) decoded.assign(from.buffer, 0, used);
            } else if (mode == BodyMode::Chunked) {
                const auto r = chunks.feed(from.buffer, used, observed ? &decoded : nullptr);
                if (r == ChunkScanner::Result::Bad) return false;
                done = r == ChunkScanner::Result::Done;
            } else if (observed) {
                decoded.assign(from.buffer, 0, used);
            }
            out.clear();
            const bool ok = filter.feed(std::string_view(from.buffer).substr(0, used), out);
            from.buffer.erase(0, used);
            if (!ok) return false;
            if (done) filter.finish(out);
            if (observed && !decoded.empty()) observed(decoded);
            decoded.clear();
            if (!out.empty() && !(toHost ? toUpstream(out) : toClient(out))) return false;
        }
        return true;
    }

    // One request and its response; false when the connection ends.
    bool exchange()
    {
        HttpHead head;
        const HeadRead got = readHead(m_client, true, m_options.maxHeaderBytes, head, idle());
        if (got == HeadRead::Closed) return false;
        if (got == HeadRead::Bad) {
            refuse(400, "Bad Request", "a request Sandbench cannot read");
            return false;
        }
        const auto started = SteadyClock::now();
        std::string headText = m_client.buffer.substr(0, head.size);
        m_client.buffer.erase(0, head.size);
        const SecretScan::Outcome inHead =
            m_scan.substitute(headText, m_request.host, m_request.port, false);
        if (inHead.leak != nullptr) {
            leak(*inHead.leak, "head");
            return false;
        }
        auto body = proxy::requestBody(head);
        if (!body) {
            refuse(400, "Bad Request", body.error().message);
            return false;
        }
        const std::optional<std::string> api = modelApiOf(head.method, head.target);
        std::optional<ModelUsageReader> usage;
        if (api) {
            if (!withinLimits()) return false;
            usage.emplace(*api);
        }
        headText = withoutCompression(headText);
        SecretStream up(m_scan, SecretStream::Direction::ToHost, m_request.host, m_request.port,
                        true);
        std::vector<std::string> used = inHead.used;
        if (body->first == BodyMode::Length && body->second <= kWholeBody) {
            // A body of a known, modest length is read whole first: a leak in it is refused
            // before the host sees any of the request. A client that waits to be asked for it
            // is asked here (the host's own 100 then reaches it too, which clients ignore).
            if (m_client.buffer.size() < body->second && head.hasToken("expect", "100-continue") &&
                !toClient("HTTP/1.1 100 Continue\r\n\r\n"))
                return false;
            while (m_client.buffer.size() < body->second)
                if (!m_client.fill(idle())) return false;
            std::string bytes = m_client.buffer.substr(0, body->second);
            m_client.buffer.erase(0, body->second);
            const SecretScan::Outcome inBody =
                m_scan.substitute(bytes, m_request.host, m_request.port, true);
            if (inBody.leak != nullptr) {
                leak(*inBody.leak, "body");
                return false;
            }
            if (usage) usage->requestBody(bytes);
            used.insert(used.end(), inBody.used.begin(), inBody.used.end());
            if (!toUpstream(headText + bytes)) return false;
        } else {
            if (!toUpstream(headText)) return false;
            std::function<void(std::string_view)> readRequest;
            if (usage) readRequest = [&usage](std::string_view b) { usage->requestBody(b); };
            if (!relayBody(m_client, true, body->first, body->second, up, readRequest)) {
                if (up.leak() != nullptr) leak(*up.leak(), "body");
                return false;
            }
        }

        HttpHead response;
        for (;;) {
            const HeadRead r =
                readHead(m_upstream, false, m_options.maxHeaderBytes, response, idle());
            if (r != HeadRead::Done) {
                refuse(502, "Bad Gateway",
                       m_request.host + (r == HeadRead::Closed ? " closed the connection"
                                                               : " sent a response Sandbench "
                                                                 "cannot read"));
                return false;
            }
            std::string responseHead = m_upstream.buffer.substr(0, response.size);
            m_upstream.buffer.erase(0, response.size);
            m_scan.hideValues(responseHead);
            if (!toClient(responseHead)) return false;
            if (response.status >= 200 || response.status == 101) break;
        }
        used.insert(used.end(), up.used().begin(), up.used().end());
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
        if (response.status == 101) {
            record(head, response.status, used, started, usage);
            tunnel();
            return false;
        }
        auto responseBody = proxy::responseBody(response, head.method == "HEAD");
        if (!responseBody) return false;
        SecretStream down(m_scan, SecretStream::Direction::ToSandbox, m_request.host,
                          m_request.port, true);
        std::function<void(std::string_view)> readResponse;
        if (usage) {
            const std::string* type = response.find("content-type");
            usage->responseHead(response.status, type != nullptr ? *type : "");
            readResponse = [&usage](std::string_view b) { usage->responseBody(b); };
        }
        const bool whole = relayBody(m_upstream, false, responseBody->first, responseBody->second,
                                     down, readResponse);
        record(head, response.status, used, started, usage);
        return whole && responseBody->first != BodyMode::UntilClose &&
               !head.hasToken("connection", "close") && !response.hasToken("connection", "close") &&
               head.version != "HTTP/1.0";
    }

    // The session's model limits: below them, or over them and allowed by the human. Refused,
    // the agent gets a 429 and the host nothing.
    bool withinLimits()
    {
        const std::uint64_t tokens = m_totals.tokens, requests = m_totals.requests;
        std::string limit;
        std::uint64_t value = 0;
        if (m_options.modelTokens > 0 && tokens >= m_options.modelTokens)
            limit = "model_tokens", value = m_options.modelTokens;
        else if (m_options.modelRequests > 0 && requests >= m_options.modelRequests)
            limit = "model_requests", value = m_options.modelRequests;
        if (limit.empty()) return true;
        const std::string rule = "limits." + limit + " (" + std::to_string(value) + ") reached";
        bool allowed = false;
        std::string answer = rule;
        if (m_options.ask) {
            auto decided = std::make_shared<std::promise<std::pair<bool, std::string>>>();
            auto future = decided->get_future();
            auto once = std::make_shared<std::once_flag>();
            m_options.ask(m_request, rule, [decided, once](bool allow, std::string by) {
                std::call_once(*once, [&] { decided->set_value({allow, std::move(by)}); });
            });
            std::tie(allowed, answer) = future.get();
        }
        ProxyEvent e = event(ProxyEvent::Kind::ModelLimit);
        e.action = allowed ? RuleAction::Allow : RuleAction::Deny;
        e.rule = answer;
        e.detail = limit;
        e.status = static_cast<int>(value);
        emit(std::move(e));
        if (!allowed)
            refuse(429, "Too Many Requests",
                   "the session's " + rule + "; the model request was not sent (" + answer + ")");
        return allowed;
    }

    void record(const HttpHead& head, int status, const std::vector<std::string>& used,
                SteadyClock::time_point started, std::optional<ModelUsageReader>& usage)
    {
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
        ProxyEvent e = event(ProxyEvent::Kind::Exchange);
        e.detail = head.method + " " + withoutQuery(head.target);
        e.status = status;
        e.durationMs = static_cast<std::uint64_t>(ms.count());
        e.secrets = used;
        emit(e);
        if (!usage) return;
        e.kind = ProxyEvent::Kind::Model;
        e.secrets.clear();
        e.usage = usage->finish();
        m_totals.requests += 1;
        m_totals.tokens += e.usage->inputTokens + e.usage->outputTokens + e.usage->cacheReadTokens +
                           e.usage->cacheWriteTokens;
        emit(std::move(e));
    }

    // After a 101: bytes both ways until either side ends, still through the secrets' scan.
    void tunnel()
    {
        SecretStream up(m_scan, SecretStream::Direction::ToHost, m_request.host, m_request.port,
                        true);
        SecretStream down(m_scan, SecretStream::Direction::ToSandbox, m_request.host,
                          m_request.port, true);
        std::string out;
        for (;;) {
            for (Side* side : {&m_client, &m_upstream}) {
                if (side->buffer.empty()) continue;
                out.clear();
                const bool fromClient = side == &m_client;
                if (!(fromClient ? up : down).feed(side->buffer, out)) return;
                side->buffer.clear();
                if (!out.empty() && !(fromClient ? toUpstream(out) : toClient(out))) return;
            }
            if (!m_client.stream.readable() && !m_upstream.stream.readable()) {
                pollfd p[2] = {{m_client.stream.fd(), POLLIN, 0},
                               {m_upstream.stream.fd(), POLLIN, 0}};
                const int ready = ::poll(p, 2, static_cast<int>(m_options.idleTimeout.count()));
                if (ready <= 0) return;
            }
            for (Side* side : {&m_client, &m_upstream})
                if (side->stream.readable() && !side->fill(idle())) return;
        }
    }

    const TlsInterceptor::Options& m_options;
    const SecretScan& m_scan;
    TlsInterceptor::ModelTotals& m_totals;
    const ConnectionRequest& m_request;
    Side m_client, m_upstream;
    std::uint64_t m_clientWritten = 0, m_upstreamWritten = 0;
};

} // namespace

void TlsInterceptor::serve(InterceptedConnection& c)
{
    auto failed = [&](std::string why) {
        ProxyEvent e;
        e.kind = ProxyEvent::Kind::Failed;
        e.request = c.request;
        e.detail = std::move(why);
        if (m_options.onEvent) m_options.onEvent(e);
    };
    const Deadline handshake = after(m_options.handshakeTimeout);
    if (auto e = writeRaw(c.client.get(), c.toClient, handshake)) return;
    // The host's handshake runs on a thread of its own beside the agent's, so that a new
    // connection waits for the longer of the two rather than for both. Its outcome is known
    // before anything of the agent's is read: when the host cannot be trusted, the agent hears
    // why in a 502 rather than in a bare TLS alert.
    auto upstream = TlsStream::client(static_cast<SSL_CTX*>(m_upstreamContext), c.upstream.get(),
                                      c.request.host);
    Status upstreamFailed = upstream ? Status{} : Status(upstream.error());
    std::thread hostSide;
    if (upstream) hostSide = std::thread([&] { upstreamFailed = upstream->handshake(handshake); });
    struct Join {
        std::thread& thread;
        int fd;
        ~Join() // the agent's side failed first: the host's handshake ends now, not at its deadline
        {
            if (!thread.joinable()) return;
            ::shutdown(fd, SHUT_RDWR);
            thread.join();
        }
    } join{hostSide, c.upstream.get()};
    auto context = m_ca->serverContext(c.request.host);
    if (!context) {
        failed("cannot make a certificate for " + c.request.host + ": " + context.error().message);
        return;
    }
    auto client = TlsStream::server(*context, c.client.get(), c.fromClient);
    if (!client) {
        failed(client.error().message);
        return;
    }
    if (auto e = client->handshake(handshake)) {
        failed("the sandbox's side of TLS to " + c.request.host + " failed (" + e->message +
               "): does the program trust the session's CA (SSL_CERT_FILE)?");
        return;
    }
    if (hostSide.joinable()) hostSide.join();
    if (upstreamFailed) {
        const std::string why = "cannot open TLS to " + c.request.host + " port " +
                                std::to_string(c.request.port) + ": " + upstreamFailed->message;
        failed(why);
        client->write(proxy::httpReply(502, "Bad Gateway", "sandbench: " + why + "\n", true),
                      after(m_options.handshakeTimeout));
        client->close();
        return;
    }
    Exchanges(m_options, m_scan, m_totals, c.request, *client, *upstream).run();
    client->close();
    upstream->close();
}

} // namespace sb
