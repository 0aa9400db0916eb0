// An HTTP/1.1 server for the API fronts (the E2B-compatible API): civetweb (Debian's
// libcivetweb) parses the requests and runs each on a thread of its pool; a handler sees one
// Exchange, the request and its response, and never civetweb itself. Tests and fuzz targets
// drive handlers through Exchanges of their own.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// The parts of a multipart/form-data body, as they arrive.
class FormSink {
  public:
    virtual ~FormSink() = default;
    // A part begins; false skips it. `filename` is empty for a plain field.
    virtual bool beginPart(std::string_view name, std::string_view filename) = 0;
    // Its bytes, in pieces; false stops reading the body.
    virtual bool partData(std::string_view bytes) = 0;
    // It ended; false stops reading the body.
    virtual bool endPart() = 0;
};

// One request and its response.
class Exchange {
  public:
    virtual ~Exchange() = default;
    virtual std::string_view method() const = 0;
    // Percent-decoded, without the query.
    virtual std::string_view path() const = 0;
    // As it came, without the '?'; see queryValue().
    virtual std::string_view rawQuery() const = 0;
    // Case-insensitive; the first of that name.
    virtual std::optional<std::string_view> header(std::string_view name) const = 0;
    // Every header, in the order they came, names as the client spelled them.
    virtual std::vector<std::pair<std::string_view, std::string_view>> requestHeaders() const = 0;
    // The body in pieces as they arrive (chunked or not); `sink` returns false to stop early.
    virtual Status readBody(const std::function<bool(std::string_view)>& sink) = 0;
    // A multipart/form-data body, part by part.
    virtual Status readForm(FormSink& sink) = 0;

    // A whole response (Content-Length set).
    virtual void respond(int status, std::string_view contentType, std::string_view body,
                         const Headers& extra = {}) = 0;
    // A response streamed in chunks (Transfer-Encoding: chunked): begin once, write, end.
    // writeChunk() is false once the client is gone.
    virtual bool beginStream(int status, std::string_view contentType,
                             const Headers& extra = {}) = 0;
    virtual bool writeChunk(std::string_view bytes) = 0;
    virtual void endStream() = 0;
    // Drops the connection with a streamed response unfinished (no last chunk): the client
    // sees the connection lost mid-body, as when the server behind it died.
    virtual void abort() = 0;
};

// The whole body, refused past `limit` bytes.
Result<std::string> readWholeBody(Exchange& exchange, std::size_t limit);

// The value of `name` in a query string ("a=1&b=x%20y"), percent-decoded ('+' is a space);
// nullopt when absent. A malformed escape is kept as it is.
std::optional<std::string> queryValue(std::string_view query, std::string_view name);
std::string percentDecode(std::string_view text, bool plusIsSpace);

struct ServerOptions {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0; // 0: any free port (Server::port() tells which)
    // Requests served at once; a streamed response holds its thread until it ends.
    unsigned threads = 128;
    std::function<void(const std::string&)> log;
};

class Server {
  public:
    using Handler = std::function<void(Exchange&)>;
    static Result<std::unique_ptr<Server>> start(const ServerOptions& options, Handler handler);
    ~Server(); // stops: waits for the requests in progress
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    std::uint16_t port() const { return m_port; }

  private:
    Server() = default;
    struct Context;
    std::unique_ptr<Context> m_context;
    std::uint16_t m_port = 0;
};

} // namespace sb::http
