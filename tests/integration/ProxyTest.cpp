// The filtering proxy with real clients (curl, wget, python3 urllib, git) against servers this
// test starts on the host's 127.0.0.1. Names like "a.test" resolve to 127.0.0.1 through the
// proxy's resolver hook, so no test ever reaches a real DNS server or the internet.
#include "network/Proxy.h"

#include "ProxyTestSupport.h"

#include <arpa/inet.h>
#include <atomic>
#include <cstring>
#include <gtest/gtest.h>
#include <thread>
#include <unistd.h>

using namespace sb;
using namespace sbproxytest;
using std::chrono::milliseconds;

namespace {

NetworkRule rule(RuleAction action, std::string host, std::vector<std::uint16_t> ports = {})
{
    return NetworkRule{action, std::move(host), std::move(ports), {}};
}

NetworkPolicy policy(RuleAction defaultAction, std::vector<NetworkRule> rules)
{
    NetworkPolicy p;
    p.mode = NetworkMode::Filtered;
    p.defaultAction = defaultAction;
    p.rules = std::move(rules);
    return p;
}

std::string proxyUrl(const TestProxy& proxy)
{
    return "http://127.0.0.1:" + std::to_string(proxy.port());
}

// curl through the proxy; prints the body then "\n<status>" on stdout.
sbtest::RunResult curl(const TestProxy& proxy, std::vector<std::string> args)
{
    std::vector<std::string> argv = {"curl", "-sS",           "--noproxy",  "",
                                     "-x",   proxyUrl(proxy), "--max-time", "20",
                                     "-w",   "\n%{http_code}"};
    argv.insert(argv.end(), args.begin(), args.end());
    return sbtest::run(argv, {}, cleanProxyEnv(), 30);
}

std::string lastLine(const std::string& text)
{
    auto trimmed = text;
    while (!trimmed.empty() && trimmed.back() == '\n')
        trimmed.pop_back();
    auto nl = trimmed.rfind('\n');
    return nl == std::string::npos ? trimmed : trimmed.substr(nl + 1);
}

} // namespace

class ProxyTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        web = std::make_unique<PythonServer>("http", files.path());
        sbtest::writeFile(files / "hello.txt", "hello through the proxy\n");
        sbtest::writeFile(files / "other.txt", "the other file\n");
    }
    std::string url(const std::string& host, const std::string& path = "/hello.txt") const
    {
        return "http://" + host + ":" + std::to_string(web->port()) + path;
    }

    sbtest::TempDir files;
    std::unique_ptr<PythonServer> web;
};

TEST_F(ProxyTest, ConnectAllowedByRuleRelaysAndReportsBytes)
{
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "a.test")}));
    auto r = curl(proxy, {"-p", url("a.test")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "hello through the proxy\n\n200");

    auto decided = proxy.events.waitFor(ProxyEvent::Kind::Decided);
    ASSERT_TRUE(decided);
    EXPECT_EQ(decided->action, RuleAction::Allow);
    EXPECT_EQ(decided->rule, "rule 1 (allow a.test)");
    EXPECT_EQ(decided->request.protocol, "connect");
    EXPECT_EQ(decided->request.host, "a.test");
    EXPECT_EQ(decided->request.address, "127.0.0.1");
    auto closed = proxy.events.waitFor(ProxyEvent::Kind::Closed);
    ASSERT_TRUE(closed);
    EXPECT_GT(closed->bytesUp, 40U);   // the GET request
    EXPECT_GT(closed->bytesDown, 24U); // the response, without the proxy's own 200
}

TEST_F(ProxyTest, DeniedConnectGets403NamingTheRule)
{
    TestProxy proxy(policy(RuleAction::Allow, {rule(RuleAction::Deny, "*.test", {web->port()})}));
    auto r = curl(proxy, {"-p", url("a.test")});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("403"), std::string::npos) << r.err;

    auto reply = rawExchange(proxy.port(), "CONNECT a.test:" + std::to_string(web->port()) +
                                               " HTTP/1.1\r\nHost: a.test\r\n\r\n");
    EXPECT_TRUE(reply.starts_with("HTTP/1.1 403 Forbidden\r\n")) << reply;
    EXPECT_NE(reply.find("denied by rule 1 (deny *.test port " + std::to_string(web->port()) + ")"),
              std::string::npos)
        << reply;
    auto decided = proxy.events.waitFor(ProxyEvent::Kind::Decided);
    ASSERT_TRUE(decided);
    EXPECT_EQ(decided->action, RuleAction::Deny);
}

TEST_F(ProxyTest, LoopbackIsRefusedInEverySpellingUnlessNamed)
{
    TestProxy proxy(policy(RuleAction::Allow, {rule(RuleAction::Allow, "*")}));
    auto port = std::to_string(web->port());
    for (std::string host :
         {"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::1]",
          "[::ffff:127.0.0.1]", "localhost", "localhost.", "rebind.test"}) {
        auto r = curl(proxy, {"http://" + host + ":" + port + "/hello.txt"});
        EXPECT_EQ(lastLine(r.out), "403") << host << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find("built-in: loopback"), std::string::npos) << host << "\n" << r.out;
    }
    // Metadata is refused before any connection is tried.
    auto meta = curl(proxy, {"http://169.254.169.254/latest/meta-data/"});
    EXPECT_EQ(lastLine(meta.out), "403") << meta.out;
    EXPECT_NE(meta.out.find("cloud metadata"), std::string::npos) << meta.out;

    TestProxy named(policy(RuleAction::Deny, {rule(RuleAction::Allow, "127.0.0.1")}));
    auto ok = curl(named, {"http://2130706433:" + port + "/hello.txt"});
    EXPECT_EQ(ok.out, "hello through the proxy\n\n200") << ok.err;
}

TEST_F(ProxyTest, AskAnsweredAllowAndDenyThroughTheHook)
{
    // The servers are on loopback, which only a rule naming them opens: ask rules, by name.
    TestProxy proxy(policy(RuleAction::Deny,
                           {rule(RuleAction::Ask, "a.test"), rule(RuleAction::Ask, "b.test")}));
    std::atomic<int> asked{0};
    proxy.setAsk([&](const ConnectionRequest& request, const std::string& rule,
                     Proxy::Decide decide) {
        ++asked;
        EXPECT_EQ(rule, request.host == "a.test" ? "rule 1 (ask a.test)" : "rule 2 (ask b.test)");
        bool allow = request.host == "a.test";
        EXPECT_EQ(request.address, "127.0.0.1");
        // Answered later, from another thread, as the approval broker would.
        std::thread([decide, allow] {
            std::this_thread::sleep_for(milliseconds(50));
            decide(allow, allow ? "allowed by tester (once)" : "denied by tester (once)");
        }).detach();
    });
    auto allowed = curl(proxy, {"-p", url("a.test")});
    EXPECT_EQ(allowed.out, "hello through the proxy\n\n200") << allowed.err;
    auto denied = curl(proxy, {url("b.test")});
    EXPECT_EQ(lastLine(denied.out), "403");
    EXPECT_NE(denied.out.find("denied by tester"), std::string::npos) << denied.out;
    EXPECT_EQ(asked.load(), 2);
    auto events = proxy.events.all(ProxyEvent::Kind::Decided);
    ASSERT_EQ(events.size(), 2U);
    EXPECT_TRUE(events[0].asked);
    EXPECT_EQ(events[0].action, RuleAction::Allow);
    EXPECT_EQ(events[1].action, RuleAction::Deny);
    EXPECT_EQ(events[1].rule, "denied by tester (once)");
}

TEST_F(ProxyTest, AskWithoutAHookDenies)
{
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Ask, "a.test")}), {}, false);
    auto r = curl(proxy, {url("a.test")});
    EXPECT_EQ(lastLine(r.out), "403");
    EXPECT_NE(r.out.find("no one to ask"), std::string::npos) << r.out;
}

TEST_F(ProxyTest, KeepAliveChecksEveryRequestAndSwitchesUpstreams)
{
    PythonServer second("http", files.path());
    TestProxy proxy(policy(RuleAction::Deny,
                           {rule(RuleAction::Allow, "a.test"), rule(RuleAction::Allow, "c.test")}));
    ClientSocket s(proxy.port());
    auto get = [&](const std::string& target) {
        s.send("GET " + target + " HTTP/1.1\r\nHost: x\r\nUser-Agent: test\r\n\r\n");
        return s.readResponse();
    };
    auto first = get(url("a.test"));
    EXPECT_TRUE(first.starts_with("HTTP/1.0 200") || first.starts_with("HTTP/1.1 200")) << first;
    EXPECT_TRUE(first.ends_with("hello through the proxy\n")) << first;
    auto denied = get(url("b.test"));
    EXPECT_TRUE(denied.starts_with("HTTP/1.1 403")) << denied;
    EXPECT_NE(denied.find("default (deny)"), std::string::npos) << denied;
    // Same connection, another allowed host on another server: a new upstream.
    auto other = get("http://c.test:" + std::to_string(second.port()) + "/other.txt");
    EXPECT_TRUE(other.ends_with("the other file\n")) << other;
    auto again = get(url("a.test", "/other.txt"));
    EXPECT_TRUE(again.ends_with("the other file\n")) << again;

    auto decided = proxy.events.all(ProxyEvent::Kind::Decided);
    ASSERT_EQ(decided.size(), 4U);
    EXPECT_EQ(decided[1].request.host, "b.test");
    EXPECT_EQ(decided[1].action, RuleAction::Deny);
    EXPECT_EQ(decided[2].request.host, "c.test");
    EXPECT_EQ(decided[0].detail, "GET " + url("a.test"));
    EXPECT_EQ(decided[0].request.connection, decided[3].request.connection);
}

TEST_F(ProxyTest, PolicyUpdateAppliesToTheNextRequest)
{
    TestProxy proxy(policy(RuleAction::Allow, {rule(RuleAction::Allow, "a.test")}));
    ClientSocket s(proxy.port());
    s.send("GET " + url("a.test") + " HTTP/1.1\r\nHost: a.test\r\n\r\n");
    EXPECT_TRUE(s.readResponse().ends_with("hello through the proxy\n"));
    ASSERT_FALSE(proxy.proxy().updatePolicy(policy(RuleAction::Deny, {})));
    s.send("GET " + url("a.test") + " HTTP/1.1\r\nHost: a.test\r\n\r\n");
    auto denied = s.readResponse();
    EXPECT_TRUE(denied.starts_with("HTTP/1.1 403")) << denied;
    auto bad =
        proxy.proxy().updatePolicy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "x*")}));
    ASSERT_TRUE(bad);
    EXPECT_NE(bad->message.find("network rule 1"), std::string::npos);
}

TEST_F(ProxyTest, RequestBodiesPassWithLengthAndChunked)
{
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "a.test")}));
    std::string big(300 * 1024, 'x');
    for (std::size_t i = 0; i < big.size(); i += 97)
        big[i] = static_cast<char>('a' + i % 26);
    sbtest::writeFile(files / "upload.bin", big);
    auto sized = curl(
        proxy, {"--data-binary", "@" + (files / "upload.bin").string(), url("a.test", "/echo")});
    EXPECT_EQ(sized.out, big + "\n200") << sized.err;
    auto chunked = curl(proxy, {"-H", "Transfer-Encoding: chunked", "--data-binary",
                                "@" + (files / "upload.bin").string(), url("a.test", "/echo")});
    EXPECT_EQ(chunked.out, big + "\n200") << chunked.err;
}

TEST_F(ProxyTest, Socks5WithCurlAndRawClients)
{
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "a.test")}));
    // b.test resolves to 127.0.0.1 too: an address rule would open it, so this one is separate.
    TestProxy byAddress(policy(RuleAction::Deny, {rule(RuleAction::Allow, "127.0.0.1")}));
    auto socks = "socks5h://127.0.0.1:" + std::to_string(proxy.port());
    auto ok = sbtest::run(
        {"curl", "-sS", "--noproxy", "", "--max-time", "20", "-x", socks, url("a.test")}, {},
        cleanProxyEnv(), 30);
    EXPECT_EQ(ok.out, "hello through the proxy\n") << ok.err;
    auto denied = sbtest::run(
        {"curl", "-sS", "--noproxy", "", "--max-time", "20", "-x", socks, url("b.test")}, {},
        cleanProxyEnv(), 30);
    EXPECT_NE(denied.status, 0);

    auto port = web->port();
    auto hi = static_cast<char>(port >> 8), lo = static_cast<char>(port & 0xff);
    // IPv4 address type, allowed by the 127.0.0.1 rule.
    {
        ClientSocket s(byAddress.port());
        s.send(std::string("\x05\x01\x00", 3));
        EXPECT_EQ(s.readExactly(2), std::string("\x05\x00", 2));
        s.send(std::string("\x05\x01\x00\x01\x7f\x00\x00\x01", 8) + hi + lo);
        auto reply = s.readExactly(10);
        EXPECT_EQ(reply[1], '\x00');
        s.send("GET /hello.txt HTTP/1.0\r\n\r\n");
        EXPECT_TRUE(s.readAll().ends_with("hello through the proxy\n"));
    }
    // IPv6 ::1 is loopback, not named by any rule: "not allowed by ruleset" (0x02).
    {
        ClientSocket s(proxy.port());
        s.send(std::string("\x05\x01\x00", 3));
        s.readExactly(2);
        std::string v6(16, '\0');
        v6[15] = 1;
        s.send(std::string("\x05\x01\x00\x04", 4) + v6 + hi + lo);
        auto reply = s.readExactly(10);
        EXPECT_EQ(reply[1], '\x02');
    }
    // Domain name denied by default.
    {
        ClientSocket s(proxy.port());
        s.send(std::string("\x05\x01\x00", 3));
        s.readExactly(2);
        s.send(std::string("\x05\x01\x00\x03\x06", 5) + "b.test" + hi + lo);
        EXPECT_EQ(s.readExactly(10)[1], '\x02');
    }
    // BIND is not supported: 0x07.
    {
        ClientSocket s(proxy.port());
        s.send(std::string("\x05\x01\x00", 3));
        s.readExactly(2);
        s.send(std::string("\x05\x02\x00\x01\x7f\x00\x00\x01", 8) + hi + lo);
        EXPECT_EQ(s.readExactly(10)[1], '\x07');
    }
    // Only username/password offered: no acceptable method.
    {
        ClientSocket s(proxy.port());
        s.send(std::string("\x05\x01\x02", 3));
        EXPECT_EQ(s.readExactly(2), std::string("\x05\xff", 2));
    }
}

TEST_F(ProxyTest, RealClientsWgetAndPythonUrllib)
{
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "a.test")}));
    auto env = cleanProxyEnv();
    env["http_proxy"] = proxyUrl(proxy);
    auto wget = sbtest::run({"wget", "-q", "-O", "-", "--tries=1", "--timeout=20", url("a.test")},
                            {}, env, 30);
    EXPECT_EQ(wget.status, 0) << wget.err;
    EXPECT_EQ(wget.out, "hello through the proxy\n");
    auto wgetDenied = sbtest::run(
        {"wget", "-q", "-O", "-", "--tries=1", "--timeout=20", url("b.test")}, {}, env, 30);
    EXPECT_NE(wgetDenied.status, 0);

    std::string script = "import sys, urllib.request, urllib.error\n"
                         "o = urllib.request.build_opener(urllib.request.ProxyHandler("
                         "{'http': sys.argv[1]}))\n"
                         "print(o.open(sys.argv[2], timeout=20).read().decode(), end='')\n"
                         "try:\n"
                         "    o.open(sys.argv[3], timeout=20)\n"
                         "except urllib.error.HTTPError as e:\n"
                         "    print(e.code, e.read().decode(), end='')\n";
    auto py = sbtest::run({"python3", "-c", script, proxyUrl(proxy), url("a.test"), url("b.test")},
                          {}, cleanProxyEnv(), 30);
    EXPECT_EQ(py.status, 0) << py.err;
    EXPECT_TRUE(py.out.starts_with("hello through the proxy\n403 sandbench: b.test port"))
        << py.out;
}

TEST_F(ProxyTest, GitCloneOverHttp)
{
    auto git = makeServedRepository(files.path());
    ASSERT_TRUE(git.ok()) << git.error().message;
    PythonServer backend("cgi", *git, {}, {{"GIT_PROJECT_ROOT", git->string()}});
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "git.test")}));
    auto env = cleanProxyEnv();
    env["http_proxy"] = proxyUrl(proxy);
    env["GIT_TERMINAL_PROMPT"] = "0";
    env["GIT_CONFIG_NOSYSTEM"] = "1";
    auto dest = files / "clone";
    auto r = sbtest::run(
        {"git", "clone", "-q",
         "http://git.test:" + std::to_string(backend.port()) + "/cgi-bin/git-http-backend/repo.git",
         dest.string()},
        {}, env, 60);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(sbtest::readFile(dest / "README"), "served over http through the proxy\n");
    auto denied = sbtest::run({"git", "clone", "-q",
                               "http://other.test:" + std::to_string(backend.port()) +
                                   "/cgi-bin/git-http-backend/repo.git",
                               (files / "clone2").string()},
                              {}, env, 60);
    EXPECT_NE(denied.status, 0);
    EXPECT_NE(denied.err.find("403"), std::string::npos) << denied.err;
}

TEST_F(ProxyTest, TlsThroughConnectWithATestCa)
{
    auto pki = makeTestPki(files.path());
    ASSERT_TRUE(pki.ok()) << pki.error().message;
    PythonServer tls("https", files.path(), {pki->serverCert, pki->serverKey});
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "tls.test", {tls.port()})}));
    auto r = curl(proxy, {"--cacert", pki->caCert,
                          "https://tls.test:" + std::to_string(tls.port()) + "/hello.txt"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "hello through the proxy\n\n200");
    auto decided = proxy.events.waitFor(ProxyEvent::Kind::Decided);
    ASSERT_TRUE(decided);
    EXPECT_EQ(decided->request.protocol, "connect");
}

TEST_F(ProxyTest, MalformedInputGetsAnErrorAndTheProxyKeepsServing)
{
    Proxy::Options options;
    options.handshakeTimeout = milliseconds(300);
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "a.test")}), options);
    struct Case {
        std::string input, expect;
    };
    std::vector<Case> cases = {
        {"\x16\x03\x01garbage\r\n\r\n", "HTTP/1.1 400"},
        {"GET /hello.txt HTTP/1.1\r\nHost: a.test\r\n\r\n", "HTTP/1.1 400"}, // origin form
        {"GET ftp://a.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
        {"GET http://a.test:99999/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
        {"GET http://user@a.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
        {"GET http://a.test/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
         "HTTP/1.1 400"},
        {"GET http://a.test/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
         "HTTP/1.1 400"},
        {"GET http://a.test/ HTTP/1.1\r\nBad Header: x\r\n\r\n", "HTTP/1.1 400"},
        {"GET http://a.test/ HTTP/1.1\r\nX: a\r\n folded\r\n\r\n", "HTTP/1.1 400"},
        {"CONNECT a.test HTTP/1.1\r\n\r\n", "HTTP/1.1 400"}, // no port
        {"GET http://b\xc3\xbc.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
        {"GET http://a.test/ HTTP/1.1\r\nX: " + std::string(70 * 1024, 'a') + "\r\n\r\n",
         "HTTP/1.1 431"},
        {"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n", "HTTP/1.1 408"}, // cut short
    };
    for (const auto& c : cases) {
        auto reply = rawExchange(proxy.port(), c.input);
        EXPECT_TRUE(reply.starts_with(c.expect)) << c.input.substr(0, 80) << " → " << reply;
    }
    // Truncated SOCKS: the greeting promises 3 methods and sends one; closed after the timeout.
    EXPECT_EQ(rawExchange(proxy.port(), std::string("\x05\x03\x00", 3)), "");
    EXPECT_EQ(rawExchange(proxy.port(), std::string("\x05\x01\x00\x05\x01\x00\x03\x09"
                                                    "a.t",
                                                    11)),
              std::string("\x05\x00", 2));
    EXPECT_EQ(rawExchange(proxy.port(), std::string("\x04\x01\x00\x50\x7f\x00\x00\x01\x00", 9))
                  .substr(0, 2),
              std::string("\x00\x5b", 2)); // SOCKS4: rejected in its own format

    auto malformed = proxy.events.all(ProxyEvent::Kind::Malformed);
    EXPECT_GE(malformed.size(), cases.size() + 2);
    // Still serving.
    auto r = curl(proxy, {url("a.test")});
    EXPECT_EQ(r.out, "hello through the proxy\n\n200") << r.err;
}

TEST_F(ProxyTest, HalfCloseReachesTheServerAndTheAnswerStillComesBack)
{
    EchoServer echo;
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "echo.test")}));
    ClientSocket s(proxy.port());
    s.send("CONNECT echo.test:" + std::to_string(echo.port()) + " HTTP/1.1\r\n\r\n");
    EXPECT_EQ(s.readUntil("\r\n\r\n"), "HTTP/1.1 200 Connection established\r\n\r\n");
    std::string payload(200 * 1024, 'h');
    s.send(payload);
    s.shutdownWrite(); // the server echoes everything, sees EOF, then closes
    EXPECT_EQ(s.readAll().size(), payload.size());
}

TEST_F(ProxyTest, IdleAndHalfOpenConnectionsTimeOut)
{
    EchoServer echo;
    Proxy::Options options;
    options.handshakeTimeout = milliseconds(200);
    options.idleTimeout = milliseconds(400);
    TestProxy proxy(policy(RuleAction::Allow, {rule(RuleAction::Allow, "echo.test")}), options);
    ClientSocket silent(proxy.port());
    ClientSocket idle(proxy.port());
    idle.send("CONNECT echo.test:" + std::to_string(echo.port()) + " HTTP/1.1\r\n\r\n");
    idle.readUntil("\r\n\r\n");
    EXPECT_EQ(silent.readAll(milliseconds(3000)), ""); // closed, not left hanging
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(idle.readAll(milliseconds(5000)), "");
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(3000));
    EXPECT_TRUE(waitUntil([&] { return proxy.proxy().activeConnections() == 0; }));
}

TEST_F(ProxyTest, TwoHundredConcurrentClients)
{
    EchoServer echo;
    TestProxy proxy(policy(RuleAction::Deny, {rule(RuleAction::Allow, "echo.test")}));
    constexpr int kClients = 200;
    std::vector<std::unique_ptr<ClientSocket>> clients;
    for (int i = 0; i < kClients; ++i) {
        clients.push_back(std::make_unique<ClientSocket>(proxy.port()));
        if (i % 2)
            clients.back()->send("CONNECT echo.test:" + std::to_string(echo.port()) +
                                 " HTTP/1.1\r\n\r\n");
        else
            clients.back()->sendSocksConnect("echo.test", echo.port());
    }
    for (int i = 0; i < kClients; ++i) {
        if (i % 2)
            ASSERT_EQ(clients[i]->readUntil("\r\n\r\n"),
                      "HTTP/1.1 200 Connection established\r\n\r\n");
        else
            ASSERT_TRUE(clients[i]->readSocksConnected());
    }
    EXPECT_EQ(proxy.proxy().activeConnections(), static_cast<std::size_t>(kClients));
    for (int i = 0; i < kClients; ++i)
        clients[i]->send("client " + std::to_string(i) + "\n");
    for (int i = 0; i < kClients; ++i)
        EXPECT_EQ(clients[i]->readUntil("\n"), "client " + std::to_string(i) + "\n");
    clients.clear();
    EXPECT_TRUE(waitUntil([&] { return proxy.proxy().activeConnections() == 0; }));
    EXPECT_EQ(proxy.events.all(ProxyEvent::Kind::Closed).size(),
              static_cast<std::size_t>(kClients));
}
