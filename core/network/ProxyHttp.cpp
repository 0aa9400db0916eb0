// HTTP: CONNECT, and absolute-URI requests relayed one exchange at a time so that every request
// of a keep-alive connection is decided on its own (and goes to its own upstream).
#include "network/ProxyInternal.h"
#include "network/TlsIntercept.h"

namespace sb {

using namespace proxy;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kMaxBuffered = 256 * 1024; // then wait for the destination to drain

} // namespace

void Proxy::Impl::httpError(Conn& c, int status, std::string_view reason, std::string detail)
{
    emitMalformed(c, detail);
    c.down.pending += httpReply(status, reason, "sandbench: " + detail + "\n", true);
    finish(c);
}

bool Proxy::Impl::stepHttpHead(Conn& c)
{
    // A 403 for the previous request may still be on its way out.
    if (pump(c.down, c.upstream, c.client) == Pump::Error) {
        closeConn(c);
        return false;
    }
    HttpHead head;
    std::string why;
    auto parsed = parseRequestHead(c.cin, m_options.maxHeaderBytes, head, why);
    if (parsed == ParseResult::Incomplete) {
        bool wasEmpty = c.cin.empty();
        int n = readInto(c.client, c.cin, 16 * 1024);
        if (n < 0) {
            closeConn(c);
            return false;
        }
        if (n == 0 && c.client.eof) {
            if (!c.cin.empty()) emitMalformed(c, "request head cut short");
            finish(c); // delivers what is pending, then closes
            return true;
        }
        if (n > 0 && wasEmpty && !c.firstHead)
            c.deadline = std::min(c.deadline, proxy::Clock::now() + m_options.handshakeTimeout);
        return n > 0;
    }
    if (parsed == ParseResult::TooLarge) {
        httpError(c, 431, "Request Header Fields Too Large",
                  "request head over " + std::to_string(m_options.maxHeaderBytes) + " bytes");
        return true;
    }
    if (parsed == ParseResult::Bad) {
        httpError(c, 400, "Bad Request", why);
        return true;
    }
    std::string headBytes; // for the secrets' scan
    if (m_options.intercept) headBytes = c.cin.substr(0, head.size);
    c.cin.erase(0, head.size);
    c.httpDetail = head.method + " " + head.target.substr(0, 200);
    c.http = HttpState{};
    bool http10 = head.version == "HTTP/1.0";
    c.http.clientClose = head.hasToken("connection", "close") ||
                         head.hasToken("proxy-connection", "close") ||
                         (http10 && !head.hasToken("connection", "keep-alive") &&
                          !head.hasToken("proxy-connection", "keep-alive"));
    c.firstHead = false;

    if (head.method == "CONNECT") {
        auto authority = parseAuthority(head.target, 0);
        if (!authority) {
            httpError(c, 400, "Bad Request",
                      "CONNECT " + head.target.substr(0, 200) + ": " + authority.error().message);
            return true;
        }
        request(c, authority->host, authority->port, "connect");
        return true;
    }
    auto uri = parseAbsoluteUri(head.target);
    if (!uri) {
        httpError(c, 400, "Bad Request", uri.error().message);
        return true;
    }
    auto body = requestBody(head);
    if (!body) {
        httpError(c, 400, "Bad Request", body.error().message);
        return true;
    }
    c.http.reqMode = body->first;
    c.up.limit = body->second; // the request body's length, until startHttpExchange
    c.http.headRequest = head.method == "HEAD";
    auto& [authority, path] = *uri;
    if (m_options.intercept) {
        // Plain HTTP is never terminated: a placeholder in it goes nowhere but is refused
        // on its way to a host its secret does not name.
        if (const ResolvedSecret* leak =
                m_options.intercept->scan().leakIn(headBytes, authority.host, authority.port)) {
            ProxyEvent e;
            e.kind = ProxyEvent::Kind::Leak;
            e.request = c.req;
            e.request.host = authority.host;
            e.request.port = authority.port;
            e.request.protocol = "http";
            e.secrets = {leak->spec.name};
            e.detail = "head";
            emit(std::move(e));
            httpError(c, 403, "Forbidden",
                      "the request carries the placeholder of secret '" + leak->spec.name +
                          "', which may not be sent to " + authority.host);
            return true;
        }
    }
    c.pendingHead = rewriteRequestHead(head, authority, path);
    request(c, authority.host, authority.port, "http");
    return true;
}

void Proxy::Impl::startHttpExchange(Conn& c)
{
    c.up.pending += c.pendingHead;
    c.pendingHead.clear();
    c.up.splicing = false;
    switch (c.http.reqMode) {
    case BodyMode::None:
        c.http.reqDone = true;
        break;
    case BodyMode::Length: {
        // Body bytes that came with the head go first; the rest is spliced, counted.
        auto take = static_cast<std::size_t>(std::min<std::uint64_t>(c.up.limit, c.cin.size()));
        c.up.pending.append(c.cin, 0, take);
        c.cin.erase(0, take);
        c.up.limit -= take;
        c.up.splicing = c.up.limit > 0;
        c.http.reqDone = c.up.limit == 0;
        break;
    }
    case BodyMode::Chunked:
    case BodyMode::UntilClose:
        c.up.limit = 0;
        break;
    }
    c.down.splicing = false;
    c.down.limit = 0;
    c.uin.clear();
    setPhase(c, Phase::HttpExchange, std::chrono::milliseconds(0));
}

Proxy::Impl::ChunkStep Proxy::Impl::relayChunks(ChunkScanner& scanner, Side& from, std::string& in,
                                                std::string& out)
{
    if (in.empty() && readInto(from, in, kReadChunk) < 0) return ChunkStep::ReadFailed;
    if (in.empty()) return ChunkStep::Idle;
    std::size_t used = 0;
    const auto r = scanner.feed(in, used);
    if (r == ChunkScanner::Result::Bad) return ChunkStep::Bad;
    out.append(in, 0, used);
    in.erase(0, used);
    return r == ChunkScanner::Result::Done ? ChunkStep::Done : ChunkStep::Progress;
}

bool Proxy::Impl::stepHttpExchange(Conn& c)
{
    HttpState& h = c.http;
    bool progress = false;

    // Request body, agent → destination.
    if (!h.reqDone && h.reqMode == BodyMode::Chunked && c.up.pending.size() < kMaxBuffered) {
        const ChunkStep step = relayChunks(h.reqChunks, c.client, c.cin, c.up.pending);
        if (step == ChunkStep::ReadFailed || (step == ChunkStep::Bad && h.sentToClient)) {
            closeConn(c);
            return false;
        }
        if (step == ChunkStep::Bad) {
            closeUpstream(c);
            httpError(c, 400, "Bad Request", "malformed chunked request body");
            return true;
        }
        h.reqDone = step == ChunkStep::Done;
        progress = progress || step != ChunkStep::Idle;
    }
    if (!h.reqDone && h.reqMode == BodyMode::Length && c.up.limit == 0) h.reqDone = true;
    if (!h.reqDone && c.client.eof && c.cin.empty()) {
        closeConn(c); // the agent gave up in the middle of its request body
        return false;
    }
    auto up = pump(c.up, c.client, c.upstream);
    if (up == Pump::Error) {
        // The server stopped reading (it may have answered early): finish the response, but
        // neither connection can carry another request.
        c.up.pending.clear();
        c.up.pendingOff = 0;
        c.up.splicing = false;
        h.reqDone = true;
        h.clientClose = h.upstreamClose = true;
    }
    progress = progress || up == Pump::Progress;

    // Response head, destination → agent.
    while (!h.respHeadDone) {
        HttpHead head;
        std::string why;
        auto parsed = parseResponseHead(c.uin, m_options.maxHeaderBytes, head, why);
        if (parsed == ParseResult::Incomplete) {
            int n = readInto(c.upstream, c.uin, kReadChunk);
            if (n < 0 || (n == 0 && c.upstream.eof)) {
                failUpstream(c, 502, 0, c.req.host + " closed the connection without a response");
                return true;
            }
            if (n == 0) break;
            continue;
        }
        if (parsed != ParseResult::Done) {
            failUpstream(c, 502, 0,
                         parsed == ParseResult::TooLarge ? "response head too large" : why);
            return true;
        }
        c.uin.erase(0, head.size);
        progress = true;
        if (head.status == 101) {
            failUpstream(c, 502, 0, "protocol upgrades are not proxied");
            return true;
        }
        if (head.status < 200) { // interim (100 Continue): pass on, the real one follows
            c.down.pending += rewriteResponseHead(head, false);
            h.sentToClient = true;
            continue;
        }
        auto body = responseBody(head, h.headRequest);
        if (!body) {
            failUpstream(c, 502, 0, body.error().message);
            return true;
        }
        h.respMode = body->first;
        bool http10 = head.version == "HTTP/1.0";
        h.upstreamClose = h.upstreamClose || head.hasToken("connection", "close") ||
                          (http10 && !head.hasToken("connection", "keep-alive")) ||
                          h.respMode == BodyMode::UntilClose;
        // A body that ends with the connection can only end the agent's connection too.
        h.clientClose = h.clientClose || h.respMode == BodyMode::UntilClose;
        c.down.pending += rewriteResponseHead(head, h.clientClose);
        h.sentToClient = true;
        h.respHeadDone = true;
        if (h.respMode == BodyMode::Length) {
            auto take =
                static_cast<std::size_t>(std::min<std::uint64_t>(body->second, c.uin.size()));
            c.down.pending.append(c.uin, 0, take);
            c.uin.erase(0, take);
            c.down.limit = body->second - take;
            c.down.splicing = c.down.limit > 0;
        } else if (h.respMode == BodyMode::UntilClose) {
            c.down.pending += c.uin;
            c.uin.clear();
            c.down.limit = kUnlimited;
            c.down.splicing = true;
        }
    }

    // Response body.
    if (h.respHeadDone && !h.respDone) {
        switch (h.respMode) {
        case BodyMode::None:
            h.respDone = true;
            break;
        case BodyMode::Length:
            h.respDone = c.down.limit == 0;
            break;
        case BodyMode::UntilClose:
            h.respDone = c.upstream.eof && c.down.drained();
            break;
        case BodyMode::Chunked: {
            if (c.down.pending.size() >= kMaxBuffered) break;
            const ChunkStep step = relayChunks(h.respChunks, c.upstream, c.uin, c.down.pending);
            // A bad chunk mid-response: only a cut connection tells the agent.
            if (step == ChunkStep::ReadFailed || step == ChunkStep::Bad) {
                closeConn(c);
                return false;
            }
            h.respDone = step == ChunkStep::Done;
            progress = progress || step != ChunkStep::Idle;
            break;
        }
        }
        if (!h.respDone && c.upstream.eof && c.uin.empty() && c.down.drained() &&
            h.respMode != BodyMode::UntilClose) {
            closeConn(c); // the server cut its response short
            return false;
        }
    }
    auto down = pump(c.down, c.upstream, c.client);
    if (down == Pump::Error) {
        closeConn(c);
        return false;
    }
    progress = progress || down == Pump::Progress;

    if (!(h.reqDone && h.respDone && c.up.drained() && c.down.drained())) return progress;
    if (!c.uin.empty())
        h.upstreamClose = true; // bytes beyond the response: do not trust this connection
    if (h.clientClose) {
        finish(c);
        return true;
    }
    if (h.upstreamClose) closeUpstream(c);
    c.up.splicing = c.down.splicing = false;
    c.up.limit = c.down.limit = 0;
    setPhase(c, Phase::HttpHead, m_options.idleTimeout);
    return true;
}

} // namespace sb
