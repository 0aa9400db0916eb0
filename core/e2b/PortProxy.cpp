// A getHost(port) request relayed to the port's preview (PortHost.cpp): the request goes to
// 127.0.0.1:HOST_PORT as HTTP/1.0 (so the answer is never chunked and ends with the connection),
// its body whole and bounded; the answer's head is read and checked (parseResponseHead), its
// body streamed to the client as it comes.
#include "base/UniqueFd.h"
#include "e2b/E2bInternal.h"

#include <arpa/inet.h>
#include <cerrno>
#include <charconv>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sb::e2b {

namespace {

constexpr std::size_t kMaxHead = 64 * 1024;
constexpr int kQuietMs = 300'000; // an upstream silent this long is given up

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// Headers that belong to one connection, not to the message: never passed on either way.
bool hopByHop(std::string_view name)
{
    for (std::string_view h : {"connection", "keep-alive", "proxy-connection",
                               "proxy-authorization", "proxy-authenticate", "te", "trailer",
                               "transfer-encoding", "upgrade", "content-length", "host"})
        if (equalsIgnoringCase(name, h)) return true;
    return false;
}

// This API's own credentials: a client that sends them along never hands them to the sandbox.
bool credential(std::string_view name)
{
    for (std::string_view h : {"x-api-key", "x-access-token", "e2b-traffic-access-token"})
        if (equalsIgnoringCase(name, h)) return true;
    return false;
}

bool tokenChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

Status sendAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return sysError("send to the port's preview");
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

// Up to `room` bytes appended to `into`; 0 at the end; -1 on an error or a silence too long.
ssize_t receive(int fd, std::string& into, std::size_t room)
{
    pollfd p{fd, POLLIN, 0};
    int ready = 0;
    do {
        ready = ::poll(&p, 1, kQuietMs);
    } while (ready < 0 && errno == EINTR);
    if (ready <= 0) return -1;
    const std::size_t at = into.size();
    into.resize(at + room);
    ssize_t n = 0;
    do {
        n = ::recv(fd, into.data() + at, room, 0);
    } while (n < 0 && errno == EINTR);
    into.resize(at + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    return n;
}

void portClosed(http::Exchange& ex, const Api::Sandbox& s, unsigned port, const std::string& why)
{
    sendJson(ex, 502,
             {{"sandboxId", s.id},
              {"message", "The sandbox is running but port " + std::to_string(port) +
                              " answers no HTTP (" + why + ")"},
              {"port", port},
              {"code", 502}});
}

// The path as it came, percent-encoded again for the request line.
std::string encodedPath(std::string_view path)
{
    static const char digits[] = "0123456789ABCDEF";
    std::string out;
    for (char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) ||
            std::string_view("-._~/:@!$&'()*+,;=").find(c) != std::string_view::npos) {
            out += c;
        } else {
            out += '%';
            out += digits[u >> 4];
            out += digits[u & 15];
        }
    }
    return out;
}

} // namespace

std::optional<ResponseHead> parseResponseHead(std::string_view head)
{
    // "HTTP/1.x NNN reason" CRLF, then "Name: value" CRLF lines; the blank line is not in `head`.
    ResponseHead out;
    std::size_t end = head.find("\r\n");
    const std::string_view status = head.substr(0, end);
    if (status.size() < 12 || !status.starts_with("HTTP/1.") || status[8] != ' ' ||
        (status.size() > 12 && status[12] != ' '))
        return std::nullopt;
    auto [p, ec] = std::from_chars(status.data() + 9, status.data() + 12, out.status);
    if (ec != std::errc() || p != status.data() + 12 || out.status < 100 || out.status > 599)
        return std::nullopt;
    while (end != std::string_view::npos) {
        head.remove_prefix(end + 2);
        end = head.find("\r\n");
        const std::string_view line = head.substr(0, end);
        if (line.empty()) break;
        const std::size_t colon = line.find(':');
        if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
        const std::string_view name = line.substr(0, colon);
        for (char c : name)
            if (!tokenChar(c)) return std::nullopt;
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
            value.remove_suffix(1);
        for (char c : value)
            if (c == '\r' || c == '\n' || c == '\0') return std::nullopt;
        out.headers.emplace_back(name, value);
    }
    return out;
}

bool Api::relayToPort(http::Exchange& ex, const Sandbox& sandbox, unsigned port, unsigned hostPort,
                      const std::string& body, bool last)
{
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(hostPort));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (!fd || ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
        if (!last) return false;
        return portClosed(ex, sandbox, port, "its preview cannot be reached"), true;
    }

    std::string target = encodedPath(ex.path());
    if (!ex.rawQuery().empty()) target += "?" + std::string(ex.rawQuery());
    std::string request = std::string(ex.method()) + " " + target + " HTTP/1.0\r\n";
    request += "Host: " + std::string(ex.header("Host").value_or("localhost")) + "\r\n";
    for (const auto& [name, value] : ex.requestHeaders())
        if (!hopByHop(name) && !credential(name))
            request += std::string(name) + ": " + std::string(value) + "\r\n";
    request += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
    if (sendAll(fd.get(), request) || sendAll(fd.get(), body))
        return portClosed(ex, sandbox, port, "the request could not be sent"), true;

    std::string bytes;
    std::size_t headEnd = std::string::npos;
    while ((headEnd = bytes.find("\r\n\r\n")) == std::string::npos) {
        if (bytes.size() >= kMaxHead)
            return portClosed(ex, sandbox, port, "an answer too long"), true;
        const ssize_t n = receive(fd.get(), bytes, kMaxHead - bytes.size());
        if (n <= 0)
            return portClosed(ex, sandbox, port,
                              bytes.empty() ? "nothing listens there" : "its answer ended early"),
                   true;
    }
    auto head = parseResponseHead(std::string_view(bytes).substr(0, headEnd + 2));
    if (!head || head->status < 200)
        return portClosed(ex, sandbox, port, "not an HTTP answer"), true;
    std::string type = "application/octet-stream";
    http::Headers extra;
    for (const auto& [name, value] : head->headers) {
        if (equalsIgnoringCase(name, "content-type"))
            type = value;
        else if (equalsIgnoringCase(name, "transfer-encoding"))
            return portClosed(ex, sandbox, port, "a chunked answer to an HTTP/1.0 request"), true;
        else if (!hopByHop(name))
            extra.emplace_back(name, value);
    }
    std::string rest = bytes.substr(headEnd + 4);
    if (ex.method() == "HEAD" || head->status == 204 || head->status == 304)
        return ex.respond(head->status, type, "", extra), true;
    if (!ex.beginStream(head->status, type, extra)) return true;
    for (;;) {
        if (!rest.empty() && !ex.writeChunk(rest)) return true; // the client went
        rest.clear();
        const ssize_t n = receive(fd.get(), rest, 64 * 1024);
        if (n == 0) break;
        if (n < 0) return ex.abort(), true; // cut short: the client must not take it for whole
    }
    ex.endStream();
    return true;
}

} // namespace sb::e2b
