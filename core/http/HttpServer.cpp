#include "http/HttpServer.h"

#include "base/LazyLibrary.h"
#include "http/CivetwebLibrary.h"

#include <arpa/inet.h>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <mutex>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>

namespace sb::http {
namespace {

CivetwebLibrary g_civetweb;
// The soname Debian's libcivetweb1 installs, which the package depends on.
constexpr const char* kSoname = "libcivetweb.so.1";
// Its functions, once start() opened it (nothing calls them before).
const CivetwebLibrary& cw()
{
    return g_civetweb;
}

// An Exchange over one civetweb connection, on the thread civetweb gave it.
class CivetExchange : public Exchange {
  public:
    explicit CivetExchange(mg_connection* conn)
        : m_conn(conn), m_info(cw().mg_get_request_info(conn)),
          m_path(m_info->local_uri != nullptr ? m_info->local_uri : "/")
    {
    }

    bool responded() const { return m_responded; }
    int status() const { return m_status; }

    std::string_view method() const override { return m_info->request_method; }
    std::string_view path() const override { return m_path; }
    std::string_view rawQuery() const override
    {
        return m_info->query_string != nullptr ? m_info->query_string : "";
    }
    std::optional<std::string_view> header(std::string_view name) const override
    {
        for (int i = 0; i < m_info->num_headers; ++i) {
            const mg_header& h = m_info->http_headers[i];
            if (name.size() == std::strlen(h.name) &&
                ::strncasecmp(h.name, name.data(), name.size()) == 0)
                return std::string_view(h.value);
        }
        return std::nullopt;
    }

    std::vector<std::pair<std::string_view, std::string_view>> requestHeaders() const override
    {
        std::vector<std::pair<std::string_view, std::string_view>> all;
        for (int i = 0; i < m_info->num_headers; ++i)
            all.emplace_back(m_info->http_headers[i].name, m_info->http_headers[i].value);
        return all;
    }

    Status readBody(const std::function<bool(std::string_view)>& sink) override
    {
        // On the heap: civetweb's worker threads have small stacks, and a 64 KiB frame under
        // the handlers' own overflowed them (found by the whole suite under ASan).
        std::string buf(64 * 1024, '\0');
        for (;;) {
            int n = cw().mg_read(m_conn, buf.data(), buf.size());
            if (n == 0) return {};
            if (n < 0) return inputError("the request's body ended early or is malformed");
            if (!sink({buf.data(), static_cast<std::size_t>(n)})) return {};
        }
    }

    Status readForm(FormSink& sink) override
    {
        struct State {
            FormSink& sink;
            bool inPart = false;
            bool stopped = false;
        } state{sink};
        mg_form_data_handler handler{};
        handler.user_data = &state;
        handler.field_found = [](const char* key, const char* filename, char*, std::size_t,
                                 void* data) -> int {
            auto& s = *static_cast<State*>(data);
            if (s.inPart && !s.sink.endPart()) {
                s.stopped = true;
                return MG_FORM_FIELD_STORAGE_ABORT;
            }
            s.inPart =
                s.sink.beginPart(key != nullptr ? key : "", filename != nullptr ? filename : "");
            return s.inPart ? MG_FORM_FIELD_STORAGE_GET : MG_FORM_FIELD_STORAGE_SKIP;
        };
        // Called for each piece of the part's data (with the key only on the first).
        handler.field_get = [](const char*, const char* value, std::size_t size,
                               void* data) -> int {
            auto& s = *static_cast<State*>(data);
            if (!s.sink.partData({value, size})) {
                s.stopped = true;
                return MG_FORM_FIELD_HANDLE_ABORT;
            }
            return MG_FORM_FIELD_HANDLE_GET;
        };
        int fields = cw().mg_handle_form_request(m_conn, &handler);
        if (state.stopped) return {};
        if (state.inPart && !sink.endPart()) return {};
        if (fields < 0) return inputError("the request's form data is malformed");
        return {};
    }

    void respond(int status, std::string_view contentType, std::string_view body,
                 const Headers& extra) override
    {
        if (!begin(status, contentType, extra, std::to_string(body.size()))) return;
        if (!body.empty()) cw().mg_write(m_conn, body.data(), body.size());
    }

    bool beginStream(int status, std::string_view contentType, const Headers& extra) override
    {
        m_streaming = begin(status, contentType, extra, {});
        return m_streaming;
    }

    bool writeChunk(std::string_view bytes) override
    {
        if (!m_streaming) return false;
        if (bytes.empty()) return true; // an empty chunk would end the body
        if (cw().mg_send_chunk(m_conn, bytes.data(), static_cast<unsigned>(bytes.size())) < 0)
            m_streaming = false;
        return m_streaming;
    }

    void endStream() override
    {
        if (m_streaming) cw().mg_send_chunk(m_conn, "", 0);
        m_streaming = false;
    }

    // civetweb has no call that drops a server connection, nor one that tells its socket: the
    // socket is the one TCP descriptor of this process whose two ends are the request's.
    // shutdown() leaves the descriptor to civetweb, which then finds it closed and frees it.
    void abort() override
    {
        m_streaming = false;
        m_responded = true;
        if (int fd = connectionSocket(); fd >= 0) ::shutdown(fd, SHUT_RDWR);
    }

  private:
    int connectionSocket() const
    {
        DIR* dir = ::opendir("/proc/self/fd");
        if (dir == nullptr) return -1;
        int found = -1;
        while (dirent* e = ::readdir(dir)) {
            const int fd = std::atoi(e->d_name);
            if (fd <= 2 || fd == ::dirfd(dir)) continue;
            if (portOf(fd, ::getsockname) == m_info->server_port &&
                portOf(fd, ::getpeername) == m_info->remote_port &&
                peerAddress(fd) == m_info->remote_addr) {
                found = fd;
                break;
            }
        }
        ::closedir(dir);
        return found;
    }
    static int portOf(int fd, int (*name)(int, sockaddr*, socklen_t*))
    {
        sockaddr_storage a{};
        socklen_t length = sizeof a;
        if (name(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0) return -1;
        if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
        if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
        return -1;
    }
    static std::string peerAddress(int fd)
    {
        sockaddr_storage a{};
        socklen_t length = sizeof a;
        if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0) return {};
        char text[INET6_ADDRSTRLEN] = {};
        const void* raw =
            a.ss_family == AF_INET
                ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&a)->sin_addr)
                : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&a)->sin6_addr);
        return ::inet_ntop(a.ss_family, raw, text, sizeof text) != nullptr ? text : "";
    }

    // The status line and headers; a chunked body when `length` is empty.
    bool begin(int status, std::string_view contentType, const Headers& extra,
               const std::string& length)
    {
        if (m_responded) return false;
        m_responded = true;
        m_status = status;
        if (cw().mg_response_header_start(m_conn, status) < 0) return false;
        cw().mg_response_header_add(m_conn, "Content-Type", contentType.data(),
                                    static_cast<int>(contentType.size()));
        if (length.empty())
            cw().mg_response_header_add(m_conn, "Transfer-Encoding", "chunked", -1);
        else
            cw().mg_response_header_add(m_conn, "Content-Length", length.c_str(), -1);
        for (const auto& [name, value] : extra)
            cw().mg_response_header_add(m_conn, name.c_str(), value.c_str(),
                                        static_cast<int>(value.size()));
        return cw().mg_response_header_send(m_conn) >= 0;
    }

    mg_connection* m_conn;
    const mg_request_info* m_info;
    std::string m_path;
    bool m_responded = false;
    bool m_streaming = false;
    int m_status = 0;
};

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace

struct Server::Context {
    Handler handler;
    std::function<void(const std::string&)> log;
    mg_context* civet = nullptr;
};

Result<std::string> readWholeBody(Exchange& exchange, std::size_t limit)
{
    std::string body;
    bool tooLarge = false;
    Status read = exchange.readBody([&](std::string_view piece) {
        if (body.size() + piece.size() > limit) {
            tooLarge = true;
            return false;
        }
        body.append(piece);
        return true;
    });
    if (read) return *read;
    if (tooLarge)
        return inputError("the request's body is larger than " + std::to_string(limit) + " bytes");
    return body;
}

std::string percentDecode(std::string_view text, bool plusIsSpace)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%' && i + 2 < text.size()) {
            const int hi = hexValue(text[i + 1]), lo = hexValue(text[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        out += plusIsSpace && c == '+' ? ' ' : c;
    }
    return out;
}

std::optional<std::string> queryValue(std::string_view query, std::string_view name)
{
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        const std::size_t eq = pair.find('=');
        if (percentDecode(pair.substr(0, eq), true) == name)
            return eq == std::string_view::npos ? std::string()
                                                : percentDecode(pair.substr(eq + 1), true);
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

SB_DEFINE_LAZY_LIBRARY(CivetwebLibrary, g_civetweb, loadCivetweb, "civetweb", kSoname, 0, "",
                       SB_CIVETWEB_FUNCTIONS)

Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options, Handler handler)
{
    if (auto loaded = loadCivetweb(); !loaded) return loaded.error();
    static std::once_flag initialised;
    std::call_once(initialised, [] { cw().mg_init_library(0); });

    std::unique_ptr<Server> server(new Server());
    server->m_context = std::make_unique<Context>();
    Context& context = *server->m_context;
    context.handler = std::move(handler);
    context.log = options.log;

    const bool v6 = options.host.find(':') != std::string::npos;
    const std::string ports =
        (v6 ? "[" + options.host + "]" : options.host) + ":" + std::to_string(options.port);
    const std::string threads = std::to_string(options.threads);
    // Idle keep-alive connections are kept a while: clients reuse them (undici, the E2B SDK's
    // HTTP client, expects that); the request timeout bounds how long one request may dawdle.
    // One option and its value a line.
    // clang-format off
    const char* civetOptions[] = {
        "listening_ports", ports.c_str(),
        "num_threads", threads.c_str(),
        "enable_keep_alive", "yes",
        "keep_alive_timeout_ms", "30000",
        "request_timeout_ms", "60000",
        "enable_auth_domain_check", "no",
        // Headers and body go out in separate writes: with Nagle's algorithm the second waited
        // for the client's delayed ACK (40 ms a request).
        "tcp_nodelay", "1",
        nullptr};
    // clang-format on
    mg_callbacks callbacks{};
    callbacks.log_message = [](const mg_connection* conn, const char* message) -> int {
        auto* ctx = static_cast<Context*>(cw().mg_get_user_data(cw().mg_get_context(conn)));
        if (ctx != nullptr && ctx->log) ctx->log(message);
        return 1;
    };
    context.civet = cw().mg_start(&callbacks, &context, civetOptions);
    if (context.civet == nullptr)
        return Error{ErrorCode::System, 0,
                     "cannot listen on " + ports + " (in use, or not an address of this machine)"};
    cw().mg_set_request_handler(
        context.civet, "/",
        [](mg_connection* conn, void* data) -> int {
            auto& ctx = *static_cast<Context*>(data);
            CivetExchange exchange(conn);
            try {
                ctx.handler(exchange);
            } catch (const std::exception& e) {
                if (ctx.log) ctx.log("request " + std::string(exchange.path()) + ": " + e.what());
                if (!exchange.responded())
                    exchange.respond(500, "text/plain", "internal error\n", {});
            }
            if (!exchange.responded()) exchange.respond(500, "text/plain", "no response\n", {});
            exchange.endStream();
            return exchange.status();
        },
        &context);
    mg_server_port bound[4]{};
    if (cw().mg_get_server_ports(context.civet, 4, bound) < 1)
        return Error{ErrorCode::System, 0, "the HTTP server has no listening port"};
    server->m_port = static_cast<std::uint16_t>(bound[0].port);
    return server;
}

Server::~Server()
{
    if (m_context && m_context->civet != nullptr) cw().mg_stop(m_context->civet);
}

} // namespace sb::http
