// HTTP/1.1 message parsing for the proxy: strict where a lax reading could let two parties see
// two different requests (smuggling), lenient only where it cannot (bare LF line ends).
#include "network/ProxyInternal.h"

#include <algorithm>

namespace sb::proxy {

namespace {

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x | 0x20) == (y | 0x20);
           });
}

bool isToken(std::string_view s)
{
    static constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
        auto u = static_cast<unsigned char>(ch);
        return (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'z') ||
               extra.find(ch) != std::string_view::npos;
    });
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// Splits the head into lines; Done when the empty line was found.
ParseResult splitHead(std::string_view buffer, std::size_t maxBytes,
                      std::vector<std::string_view>& lines, std::size_t& size)
{
    std::size_t pos = 0;
    for (;;) {
        auto lf = buffer.find('\n', pos);
        if (lf == std::string_view::npos)
            return buffer.size() > maxBytes ? ParseResult::TooLarge : ParseResult::Incomplete;
        if (lf + 1 > maxBytes) return ParseResult::TooLarge;
        auto line = buffer.substr(pos, lf - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = lf + 1;
        if (line.empty()) {
            if (lines.empty()) continue; // RFC 9112: ignore empty lines before a request line
            size = pos;
            return ParseResult::Done;
        }
        lines.push_back(line);
    }
}

ParseResult parseHeaders(const std::vector<std::string_view>& lines, HttpHead& head,
                         std::string& why)
{
    for (std::size_t i = 1; i < lines.size(); ++i) {
        auto line = lines[i];
        if (line.front() == ' ' || line.front() == '\t') {
            why = "folded header line";
            return ParseResult::Bad;
        }
        auto colon = line.find(':');
        if (colon == std::string_view::npos || !isToken(line.substr(0, colon))) {
            why = "malformed header line";
            return ParseResult::Bad;
        }
        auto value = trim(line.substr(colon + 1));
        if (value.find('\0') != std::string_view::npos) {
            why = "NUL in a header value";
            return ParseResult::Bad;
        }
        head.headers.push_back({std::string(line.substr(0, colon)), std::string(value)});
    }
    return ParseResult::Done;
}

bool isHopByHop(const HttpHead& head, std::string_view name, bool request)
{
    static constexpr std::string_view always[] = {"connection", "keep-alive", "proxy-connection",
                                                  "te",         "trailer",    "upgrade"};
    for (auto h : always)
        if (iequals(name, h)) return true;
    if (request && (iequals(name, "proxy-authorization") || iequals(name, "host"))) return true;
    for (const auto& h : head.headers) {
        if (!iequals(h.name, "connection") && !iequals(h.name, "proxy-connection")) continue;
        std::string_view list = h.value;
        while (!list.empty()) {
            auto comma = list.find(',');
            auto item = trim(list.substr(0, comma));
            // Framing headers stay whatever Connection says: the proxy relies on them.
            if (iequals(item, name) && !iequals(name, "content-length") &&
                !iequals(name, "transfer-encoding"))
                return true;
            list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        }
    }
    return false;
}

Result<std::optional<std::uint64_t>> contentLength(const HttpHead& head)
{
    std::optional<std::uint64_t> length;
    for (const auto& h : head.headers) {
        if (!iequals(h.name, "content-length")) continue;
        const auto& v = h.value;
        if (v.empty() || v.size() > 18 ||
            !std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            return inputError("invalid Content-Length");
        auto n = std::stoull(v);
        if (length && *length != n) return inputError("conflicting Content-Length headers");
        length = n;
    }
    return length;
}

} // namespace

const std::string* HttpHead::find(std::string_view name) const
{
    for (const auto& h : headers)
        if (iequals(h.name, name)) return &h.value;
    return nullptr;
}

bool HttpHead::hasToken(std::string_view name, std::string_view token) const
{
    for (const auto& h : headers) {
        if (!iequals(h.name, name)) continue;
        std::string_view list = h.value;
        while (!list.empty()) {
            auto comma = list.find(',');
            if (iequals(trim(list.substr(0, comma)), token)) return true;
            list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        }
    }
    return false;
}

ParseResult parseRequestHead(std::string_view buffer, std::size_t maxBytes, HttpHead& head,
                             std::string& why)
{
    std::vector<std::string_view> lines;
    auto r = splitHead(buffer, maxBytes, lines, head.size);
    if (r != ParseResult::Done) return r;
    auto line = lines[0];
    auto sp1 = line.find(' ');
    auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
        why = "malformed request line";
        return ParseResult::Bad;
    }
    head.method = line.substr(0, sp1);
    head.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    head.version = line.substr(sp2 + 1);
    if (!isToken(head.method) || head.target.empty() ||
        (head.version != "HTTP/1.1" && head.version != "HTTP/1.0")) {
        why = "malformed request line";
        return ParseResult::Bad;
    }
    return parseHeaders(lines, head, why);
}

ParseResult parseResponseHead(std::string_view buffer, std::size_t maxBytes, HttpHead& head,
                              std::string& why)
{
    std::vector<std::string_view> lines;
    auto r = splitHead(buffer, maxBytes, lines, head.size);
    if (r != ParseResult::Done) return r;
    auto line = lines[0];
    if (line.size() < 12 || !line.starts_with("HTTP/1.") || line[8] != ' ' ||
        !std::all_of(line.begin() + 9, line.begin() + 12,
                     [](char ch) { return ch >= '0' && ch <= '9'; })) {
        why = "malformed status line from the server";
        return ParseResult::Bad;
    }
    head.version = line.substr(0, 8);
    head.status = std::stoi(std::string(line.substr(9, 3)));
    head.statusLine = line;
    return parseHeaders(lines, head, why);
}

Result<Authority> parseAuthority(std::string_view text, std::uint16_t defaultPort)
{
    if (text.find('@') != std::string_view::npos)
        return inputError("user information in the URL is not accepted");
    Authority a;
    a.hostText = text;
    std::string_view host = text, port;
    if (text.starts_with('[')) {
        auto close = text.find(']');
        if (close == std::string_view::npos)
            return inputError("unterminated '[' in \"" + std::string(text) + "\"");
        host = text.substr(0, close + 1);
        auto rest = text.substr(close + 1);
        if (!rest.empty() && rest.front() != ':')
            return inputError("junk after ']' in \"" + std::string(text) + "\"");
        if (!rest.empty()) port = rest.substr(1);
    } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (port.empty()) {
        if (defaultPort == 0) return inputError("\"" + std::string(text) + "\" has no port");
        a.port = defaultPort;
    } else {
        if (port.size() > 5 ||
            !std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            return inputError("invalid port in \"" + std::string(text) + "\"");
        auto n = std::stoul(std::string(port));
        if (n == 0 || n > 65535) return inputError("invalid port in \"" + std::string(text) + "\"");
        a.port = static_cast<std::uint16_t>(n);
    }
    auto normalised = normaliseHost(host);
    if (!normalised) return normalised.error();
    a.host = std::move(*normalised);
    return a;
}

Result<std::pair<Authority, std::string>> parseAbsoluteUri(std::string_view target)
{
    constexpr std::string_view scheme = "http://";
    if (target.size() < scheme.size() || !iequals(target.substr(0, scheme.size()), scheme)) {
        if (target.starts_with('/'))
            return inputError("this is a proxy: send the absolute URI (http://host/path)");
        return inputError("only http:// URIs are proxied (use CONNECT for https)");
    }
    target.remove_prefix(scheme.size());
    auto end = target.find_first_of("/?#");
    auto authority = parseAuthority(target.substr(0, end), 80);
    if (!authority) return authority.error();
    std::string path = end == std::string_view::npos ? "/" : std::string(target.substr(end));
    if (auto hash = path.find('#'); hash != std::string::npos)
        path.erase(hash); // fragments never go on the wire
    if (path.empty() || path.front() != '/') path.insert(0, "/");
    return std::pair{std::move(*authority), std::move(path)};
}

Result<std::pair<BodyMode, std::uint64_t>> requestBody(const HttpHead& head)
{
    auto length = contentLength(head);
    if (!length) return length.error();
    if (const auto* te = head.find("transfer-encoding")) {
        if (*length) return inputError("both Transfer-Encoding and Content-Length");
        if (!iequals(trim(*te), "chunked"))
            return inputError("unsupported Transfer-Encoding \"" + *te + "\"");
        return std::pair{BodyMode::Chunked, std::uint64_t{0}};
    }
    if (*length && **length > 0) return std::pair{BodyMode::Length, **length};
    return std::pair{BodyMode::None, std::uint64_t{0}};
}

Result<std::pair<BodyMode, std::uint64_t>> responseBody(const HttpHead& head, bool headRequest)
{
    if (headRequest || (head.status >= 100 && head.status < 200) || head.status == 204 ||
        head.status == 304)
        return std::pair{BodyMode::None, std::uint64_t{0}};
    if (const auto* te = head.find("transfer-encoding")) {
        auto v = trim(*te);
        bool chunkedLast = v.size() >= 7 && iequals(v.substr(v.size() - 7), "chunked");
        return std::pair{chunkedLast ? BodyMode::Chunked : BodyMode::UntilClose, std::uint64_t{0}};
    }
    auto length = contentLength(head);
    if (!length) return length.error();
    if (*length) return std::pair{**length ? BodyMode::Length : BodyMode::None, **length};
    return std::pair{BodyMode::UntilClose, std::uint64_t{0}};
}

std::string rewriteRequestHead(const HttpHead& head, const Authority& authority,
                               const std::string& path)
{
    std::string out =
        head.method + " " + path + " HTTP/1.1\r\nHost: " + authority.hostText + "\r\n";
    for (const auto& h : head.headers)
        if (!isHopByHop(head, h.name, true)) out += h.name + ": " + h.value + "\r\n";
    return out + "\r\n";
}

std::string rewriteResponseHead(const HttpHead& head, bool closeClient)
{
    std::string out = head.statusLine + "\r\n";
    for (const auto& h : head.headers)
        if (!isHopByHop(head, h.name, false)) out += h.name + ": " + h.value + "\r\n";
    if (closeClient) out += "Connection: close\r\n";
    return out + "\r\n";
}

std::string httpReply(int status, std::string_view reason, std::string_view body, bool close,
                      std::string_view rule)
{
    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
                      "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n";
    if (!rule.empty()) out += "X-Sandbench-Rule: " + std::string(rule) + "\r\n";
    if (close) out += "Connection: close\r\n";
    return out + "\r\n" + std::string(body);
}

ChunkScanner::Result ChunkScanner::feed(std::string_view data, std::size_t& used,
                                        std::string* payload)
{
    constexpr std::size_t kMaxLine = 4096;
    auto hex = [](char ch) -> int {
        if (ch >= '0' && ch <= '9') return ch - '0';
        ch = static_cast<char>(ch | 0x20);
        return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
    };
    used = 0;
    while (used < data.size()) {
        if (m_state == State::Data) {
            auto take = std::min<std::uint64_t>(m_remaining, data.size() - used);
            if (payload != nullptr)
                payload->append(data.substr(used, static_cast<std::size_t>(take)));
            used += static_cast<std::size_t>(take);
            m_remaining -= take;
            if (m_remaining == 0) m_state = State::DataCr;
            continue;
        }
        char ch = data[used++];
        switch (m_state) {
        case State::Size:
            if (int h = hex(ch); h >= 0) {
                if (++m_digits > 15) return Result::Bad;
                m_remaining = m_remaining * 16 + static_cast<std::uint64_t>(h);
            } else if (m_digits > 0 && (ch == ';' || ch == ' ' || ch == '\t')) {
                m_state = State::Extension;
            } else if (m_digits > 0 && ch == '\r') {
                m_state = State::SizeLf;
            } else {
                return Result::Bad;
            }
            break;
        case State::Extension:
            if (++m_lineBytes > kMaxLine || ch == '\n')
                return Result::Bad; // a bare LF here is a classic smuggling vector
            if (ch == '\r') m_state = State::SizeLf;
            break;
        case State::SizeLf:
            if (ch != '\n') return Result::Bad;
            m_lineBytes = 0;
            m_digits = 0;
            m_state = m_remaining == 0 ? State::TrailerStart : State::Data;
            break;
        case State::DataCr:
            if (ch != '\r') return Result::Bad;
            m_state = State::DataLf;
            break;
        case State::DataLf:
            if (ch != '\n') return Result::Bad;
            m_state = State::Size;
            break;
        case State::TrailerStart:
            m_state = ch == '\r' ? State::EndLf : State::Trailer;
            break;
        case State::Trailer:
            if (++m_lineBytes > kMaxLine) return Result::Bad;
            if (ch == '\r') m_state = State::TrailerLf;
            break;
        case State::TrailerLf:
            if (ch != '\n') return Result::Bad;
            m_lineBytes = 0;
            m_state = State::TrailerStart;
            break;
        case State::EndLf:
            if (ch != '\n') return Result::Bad;
            return Result::Done;
        case State::Data:
            break;
        }
    }
    return Result::More;
}

} // namespace sb::proxy
