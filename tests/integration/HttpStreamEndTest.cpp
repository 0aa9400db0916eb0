// The HTTP server's streamed responses on a real socket on 127.0.0.1: one that ends sends the
// last chunk, one aborted drops the connection with its body unfinished, which is how the E2B
// API tells the SDK a command's sandbox went away (docs/e2b.md).
#include "http/HttpServer.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace {

// The bytes the server sent for one request, up to the connection's end, or up to `stopAt`.
// A receive timeout guards against a server that neither ends nor drops (not a measurement).
std::string exchange(std::uint16_t port, const std::string& path, bool& closed,
                     const std::string& stopAt = {})
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval guard{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof guard);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n";
    EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    std::string got;
    closed = false;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            closed = true;
            break;
        }
        if (n < 0) break; // the guard
        got.append(buf, static_cast<std::size_t>(n));
        if (!stopAt.empty() && got.find(stopAt) != std::string::npos) break;
    }
    ::close(fd);
    return got;
}

} // namespace

TEST(HttpStreamEnd, AnAbortedStreamDropsTheConnectionWithoutItsLastChunk)
{
    sb::http::ServerOptions options;
    options.threads = 4;
    auto server = sb::http::Server::start(options, [](sb::http::Exchange& ex) {
        ex.beginStream(200, "text/plain");
        ex.writeChunk("partial");
        if (ex.path() == "/abort")
            ex.abort();
        else
            ex.endStream();
    });
    if (!server) GTEST_SKIP() << server.error().describe(); // civetweb is not installed
    const std::uint16_t port = (*server)->port();

    bool closed = false;
    const std::string ended = exchange(port, "/end", closed, "0\r\n\r\n");
    EXPECT_NE(ended.find("7\r\npartial\r\n0\r\n\r\n"), std::string::npos) << ended;
    EXPECT_FALSE(closed) << "an ended stream leaves the connection for the next request";

    const std::string aborted = exchange(port, "/abort", closed);
    EXPECT_TRUE(closed) << "the connection dropped";
    EXPECT_NE(aborted.find("7\r\npartial\r\n"), std::string::npos) << aborted;
    EXPECT_EQ(aborted.find("0\r\n\r\n"), std::string::npos) << "no last chunk: " << aborted;
}
