// getHost(port) over the API (PortHost.cpp): the domain the SDK is told, the names it builds
// from it, and a request for such a name sent on to the port's preview.
#include "E2bApiFixture.h"
#include "e2b/E2bInternal.h"

#include <algorithm>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {

using json = nlohmann::json;
using sbtest::MemoryExchange;

TEST(PortHostTest, NamesOfAPortOfASandbox)
{
    auto h = sb::e2b::parsePortHost("8000-20261206-161555-abc123.localhost:41837");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->port, 8000u);
    EXPECT_EQ(h->sandbox, "20261206-161555-abc123");
    EXPECT_TRUE(sb::e2b::parsePortHost("3000-x.LOCALHOST"));
    EXPECT_TRUE(sb::e2b::parsePortHost("3000-x.localhost."));
    for (const char* not_one :
         {"localhost:41837", "127.0.0.1:41837", "8000.localhost", "8000-.localhost",
          "0-x.localhost", "70000-x.localhost", "8000-x.localhost:port", "8000-x_y.localhost",
          "8000-x.example", "x-8000.localhost", "[::1]:41837", ""})
        EXPECT_FALSE(sb::e2b::parsePortHost(not_one)) << not_one;
}

// One HTTP server on 127.0.0.1 that takes one request and gives `answer`: what a server in the
// sandbox is, seen through its port's preview.
class OneAnswerServer {
  public:
    explicit OneAnswerServer(std::string answer)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::listen(m_fd, 1) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
            std::abort();
        port = ntohs(a.sin_port);
        m_thread = std::thread([this, answer = std::move(answer)] {
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) return;
            char buf[4096];
            for (ssize_t n;
                 request.find("\r\n\r\n") == std::string::npos || !request.ends_with("body");) {
                if ((n = ::recv(c, buf, sizeof buf, 0)) <= 0) break;
                request.append(buf, static_cast<std::size_t>(n));
            }
            (void)::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
            ::close(c);
        });
    }
    ~OneAnswerServer()
    {
        ::shutdown(m_fd, SHUT_RDWR);
        if (m_thread.joinable()) m_thread.join();
        ::close(m_fd);
    }
    // The request it took, once it answered.
    std::string took()
    {
        m_thread.join();
        return request;
    }
    unsigned port = 0;

  private:
    std::string request;
    int m_fd = -1;
    std::thread m_thread;
};

TEST_F(E2bApiTest, TheDomainNamesThisServerAndItsPortNamesReachTheServerOnThatPort)
{
    MemoryExchange created("POST", "/v2/sandboxes", R"({"templateID": "base"})",
                           {{"X-API-Key", "sb_key"}, {"Host", "127.0.0.1:41837"}});
    api->handle(created);
    ASSERT_EQ(created.status, 201) << created.response;
    const json sbx = json::parse(created.response);
    EXPECT_EQ(sbx["domain"], "localhost:41837");
    const std::string id = sbx["sandboxID"];
    MemoryExchange info("GET", "/sandboxes/" + id, "",
                        {{"X-API-Key", "sb_key"}, {"Host", "localhost:41837"}});
    api->handle(info);
    EXPECT_EQ(json::parse(info.response)["domain"], "localhost:41837");

    // No key or token, as E2B's public port URLs; method, path, query, headers and body go on,
    // the answer comes back with its status, type and headers.
    const std::string host = "8000-" + id + ".localhost:41837";
    {
        OneAnswerServer web("HTTP/1.0 201 Created\r\nContent-Type: text/plain\r\nX-From: "
                            "sandbox\r\nConnection: close\r\n\r\nhello from the port");
        launcher.previewPort = web.port;
        MemoryExchange post("POST", "/a b/c?x=1&y=%20", "the body",
                            {{"Host", host},
                             {"X-Asked", "yes"},
                             {"Connection", "keep-alive"},
                             {"X-API-Key", "sb_key"}});
        api->handle(post);
        EXPECT_EQ(post.status, 201) << post.response;
        EXPECT_EQ(post.contentType, "text/plain");
        EXPECT_EQ(post.response, "hello from the port");
        EXPECT_NE(std::find(post.headers.begin(), post.headers.end(),
                            std::pair<std::string, std::string>{"X-From", "sandbox"}),
                  post.headers.end());
        const std::string request = web.took();
        EXPECT_TRUE(request.starts_with("POST /a%20b/c?x=1&y=%20 HTTP/1.0\r\n")) << request;
        EXPECT_NE(request.find("\r\nHost: " + host + "\r\n"), std::string::npos) << request;
        EXPECT_NE(request.find("\r\nX-Asked: yes\r\n"), std::string::npos);
        EXPECT_NE(request.find("\r\nConnection: close\r\n"), std::string::npos);
        EXPECT_EQ(request.find("keep-alive"), std::string::npos);
        EXPECT_EQ(request.find("sb_key"), std::string::npos) << "the API key stays out";
        EXPECT_TRUE(request.ends_with("\r\nContent-Length: 8\r\nConnection: close\r\n\r\nthe body"))
            << request;
    }
    {
        // Not HTTP, or nothing at all, from the port: E2B's 502 saying so.
        OneAnswerServer web("SSH-2.0-OpenSSH\r\n\r\n");
        launcher.previewPort = web.port;
        MemoryExchange get("GET", "/", "body", {{"Host", host}});
        api->handle(get);
        EXPECT_EQ(get.status, 502);
        EXPECT_NE(get.response.find("not an HTTP answer"), std::string::npos) << get.response;
    }

    MemoryExchange gone("GET", "/", "", {{"Host", "8000-nope.localhost:41837"}});
    api->handle(gone);
    EXPECT_EQ(gone.status, 502);
    const json why = json::parse(gone.response);
    EXPECT_EQ(why["message"], "The sandbox was not found");
    EXPECT_EQ(why["sandboxId"], "nope");
    EXPECT_EQ(why["code"], 502);
}

TEST(PortHostTest, AnswersOfAServerInTheSandbox)
{
    auto head = sb::e2b::parseResponseHead("HTTP/1.1 404 Not Found\r\nA: 1\r\nB:two words \r\n");
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 404);
    ASSERT_EQ(head->headers.size(), 2u);
    EXPECT_EQ(head->headers[1], (std::pair<std::string, std::string>{"B", "two words"}));
    EXPECT_TRUE(sb::e2b::parseResponseHead("HTTP/1.0 200\r\n"));
    for (const char* not_one : {"HTTP/2 200 OK\r\n", "HTTP/1.1 99 Low\r\n", "HTTP/1.1 2000\r\n",
                                "HTTP/1.1 200 OK\r\nno colon\r\n", "HTTP/1.1 200 OK\r\n: v\r\n",
                                "HTTP/1.1 200 OK\r\nBad Name: v\r\n", "ICY 200 OK\r\n", ""})
        EXPECT_FALSE(sb::e2b::parseResponseHead(not_one)) << not_one;
}

// What `doctor` reads to say whether getHost(port)'s names reach this machine from Node.
TEST(PortHostTest, TheResolverKnowsLocalhostNamesWithMyhostnameOrResolved)
{
    using sb::e2b::localhostNamesResolve;
    EXPECT_TRUE(localhostNamesResolve("passwd: files\nhosts:          files myhostname dns\n"));
    EXPECT_TRUE(localhostNamesResolve("hosts: mymachines resolve [!UNAVAIL=return] files dns"));
    EXPECT_TRUE(localhostNamesResolve("  hosts:\tfiles\tmyhostname"));
    EXPECT_FALSE(localhostNamesResolve("hosts:          files dns\n"));
    EXPECT_FALSE(localhostNamesResolve("hosts: files dns # myhostname later\n"));
    EXPECT_FALSE(localhostNamesResolve("# hosts: files myhostname\nhosts: files dns\n"));
    EXPECT_FALSE(localhostNamesResolve("hosts: files [myhostname=return] dns"));
    EXPECT_FALSE(localhostNamesResolve("hosts: files mdns4_minimal resolver dns"));
    // glibc reads the first hosts line.
    EXPECT_FALSE(localhostNamesResolve("hosts: files dns\nhosts: files myhostname\n"));
    EXPECT_FALSE(localhostNamesResolve(""));
    EXPECT_FALSE(localhostNamesResolve("hosts: files [NOTFOUND=return"));
}

} // namespace
