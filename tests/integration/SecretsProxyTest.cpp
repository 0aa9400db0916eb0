// The proxy's TLS termination for secrets (issue 38), with curl as the agent and a TLS model API
// stand-in on 127.0.0.1 whose certificate the test's own CA signed: the supervisor's side trusts
// that CA through SSL_CERT_FILE (OpenSSL's setting for the trust store, never a weaker check),
// the agent trusts only the session's CA. Names ending in ".test" resolve to 127.0.0.1.
#include "FakeModelApi.h"
#include "ProxyTestSupport.h"
#include "network/TlsIntercept.h"
#include "secrets/SecretValues.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <mutex>
#include <sstream>

using namespace sb;
using namespace sbproxytest;

namespace {

const std::string kValue = "sk-ant-api03-REALVALUE-0123456789abcdefghijklmnop";
const std::string kGhValue = "ghp_REALVALUE0123456789abcdefghijklmn";

ResolvedSecret secret(const std::string& name, const std::string& host, std::uint16_t port,
                      const std::string& value)
{
    ResolvedSecret s;
    s.spec.name = name;
    s.spec.hosts = {host};
    s.spec.ports = {port};
    s.spec.env = "KEY";
    s.value = value;
    s.placeholder = makePlaceholder(value);
    return s;
}

} // namespace

class SecretsProxy : public ::testing::Test {
  protected:
    void SetUp() override
    {
        auto made = makeTestPki(dir.path(), "DNS:tls.test,DNS:other.test,IP:127.0.0.1");
        ASSERT_TRUE(made.ok()) << made.error().message;
        pki = *made;
        if (const char* old = std::getenv("SSL_CERT_FILE")) oldCertFile = old;
        ::setenv("SSL_CERT_FILE", pki.caCert.c_str(), 1);
        log = dir / "keys.log";
        api = std::make_unique<PythonServer>(sbit::writeFakeModelApi(dir.path()),
                                             std::vector<std::string>{"127.0.0.1", "0",
                                                                      pki.serverCert, pki.serverKey,
                                                                      log.string()});
        port = api->port();
        anthropic = secret("anthropic", "tls.test", port, kValue);
        gh = secret("gh", "other.test", port, kGhValue);
        TlsInterceptor::Options options;
        options.secrets = {anthropic, gh};
        start(options);
    }
    // The interceptor made from `options` behind a fresh proxy.
    void start(const TlsInterceptor::Options& options)
    {
        proxy.reset();
        if (interceptor) interceptor->stop();
        auto created = TlsInterceptor::create(options, "test");
        ASSERT_TRUE(created.ok()) << created.error().message;
        interceptor = *created;
        interceptor->setOnEvent([this](const ProxyEvent& e) { events.add(e); });
        sessionCa = dir / "session-ca.pem";
        std::ofstream(sessionCa) << interceptor->caCertificatePem();
        NetworkPolicy policy;
        policy.mode = NetworkMode::Filtered;
        policy.defaultAction = RuleAction::Deny;
        for (const char* host : {"tls.test", "other.test", "plain.test", "untrusted.test"})
            policy.rules.push_back({RuleAction::Allow, host, {}, {}});
        Proxy::Options proxyOptions;
        proxyOptions.intercept = interceptor;
        proxy = std::make_unique<TestProxy>(policy, proxyOptions);
    }
    void TearDown() override
    {
        proxy.reset();
        if (interceptor) interceptor->stop();
        if (oldCertFile.empty())
            ::unsetenv("SSL_CERT_FILE");
        else
            ::setenv("SSL_CERT_FILE", oldCertFile.c_str(), 1);
    }

    // curl through the proxy, trusting only the session's CA; the body, then "\n<status>".
    sbtest::RunResult curl(std::vector<std::string> args)
    {
        std::vector<std::string> argv = {
            "curl",       "-sS",
            "--noproxy",  "",
            "-x",         "http://127.0.0.1:" + std::to_string(proxy->port()),
            "--max-time", "20",
            "--cacert",   sessionCa.string(),
            "-w",         "\n%{http_code}"};
        argv.insert(argv.end(), args.begin(), args.end());
        return sbtest::run(argv, {}, cleanProxyEnv(), 30);
    }
    std::string url(const std::string& host, const std::string& path) const
    {
        return "https://" + host + ":" + std::to_string(port) + path;
    }

    sbtest::TempDir dir;
    TestPki pki;
    std::string oldCertFile;
    std::filesystem::path log, sessionCa;
    std::unique_ptr<PythonServer> api;
    std::uint16_t port = 0;
    ResolvedSecret anthropic, gh;
    std::shared_ptr<TlsInterceptor> interceptor;
    EventLog events;
    std::unique_ptr<TestProxy> proxy;
};

TEST_F(SecretsProxy, TheHostGetsTheValueAndTheAgentOnlyEverSeesThePlaceholder)
{
    auto r = curl(
        {"-H", "x-api-key: " + anthropic.placeholder, "-H", "content-type: application/json", "-d",
         R"({"model": "claude-test", "max_tokens": 5})", url("tls.test", "/v1/messages")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(R"("input_tokens": 11)"), std::string::npos) << r.out;
    EXPECT_EQ(sbtest::readFile(log), kValue + "\n") << "the host received the real value";

    // A host that echoes the key hands the agent the placeholder, not the value.
    auto echoed = curl({"-H", "x-api-key: " + anthropic.placeholder, url("tls.test", "/echo-key")});
    ASSERT_EQ(echoed.status, 0) << echoed.err;
    EXPECT_EQ(echoed.out, "your key: " + anthropic.placeholder + "\n\n200");

    // A client that waits to be asked for its body (curl does above 1 MiB) is asked at once.
    const std::string big(2 << 20, 'x');
    sbtest::writeFile(dir / "big.json", R"({"model": "m", "pad": ")" + big + R"("})");
    auto uploaded = curl({"-H", "x-api-key: " + anthropic.placeholder, "-H", "Expect: 100-continue",
                          "--expect100-timeout", "30", "--data-binary", "@" + (dir / "big.json").string(),
                          url("tls.test", "/v1/messages")});
    EXPECT_NE(uploaded.out.find("\n200"), std::string::npos) << uploaded.out << uploaded.err;

    // Asked for an answer it can read: whatever the agent accepts, the host is asked for none
    // compressed.
    auto encoding = curl({"--compressed", url("tls.test", "/echo-encoding")});
    EXPECT_EQ(encoding.out, "accept-encoding: identity\n\n200");

    auto exchange = events.waitFor(ProxyEvent::Kind::Exchange);
    ASSERT_TRUE(exchange);
    EXPECT_EQ(exchange->detail, "POST /v1/messages");
    EXPECT_EQ(exchange->status, 200);
    EXPECT_EQ(exchange->secrets, std::vector<std::string>{"anthropic"});
    auto model = events.waitFor(ProxyEvent::Kind::Model);
    ASSERT_TRUE(model && model->usage);
    EXPECT_EQ(model->usage->api, "anthropic-messages");
    EXPECT_EQ(model->usage->model, "claude-test");
    EXPECT_EQ(model->usage->inputTokens, 11u);
    EXPECT_EQ(model->usage->outputTokens, 7u);
    EXPECT_EQ(model->usage->cacheReadTokens, 3u);
    EXPECT_FALSE(model->usage->streamed);
}

TEST_F(SecretsProxy, AStreamedResponseHasItsTokensCounted)
{
    auto r =
        curl({"-N", "-H", "x-api-key: " + anthropic.placeholder, "-d",
              R"({"model": "claude-stream", "stream": true})", url("tls.test", "/v1/messages")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("event: message_stop"), std::string::npos) << r.out;
    auto model = events.waitFor(ProxyEvent::Kind::Model);
    ASSERT_TRUE(model && model->usage);
    EXPECT_TRUE(model->usage->streamed);
    EXPECT_EQ(model->usage->inputTokens, 13u);
    EXPECT_EQ(model->usage->outputTokens, 9u);
    EXPECT_EQ(model->usage->model, "claude-stream");
}

TEST_F(SecretsProxy, APlaceholderSentToAnotherHostIsRefusedAsALeak)
{
    // To a host another secret names (terminated): refused before anything reaches it.
    auto r = curl(
        {"-H", "authorization: Bearer " + anthropic.placeholder, url("other.test", "/echo-key")});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("403"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("placeholder of secret 'anthropic'"), std::string::npos) << r.out;
    auto leak = events.waitFor(ProxyEvent::Kind::Leak);
    ASSERT_TRUE(leak);
    EXPECT_EQ(leak->secrets, std::vector<std::string>{"anthropic"});
    EXPECT_EQ(leak->request.host, "other.test");
    EXPECT_EQ(sbtest::readFile(log), "") << "the host saw nothing";

    // In a body, and over plain HTTP to a host no secret names.
    auto body = curl({"-d", "k=" + anthropic.placeholder, url("other.test", "/v1/messages")});
    EXPECT_NE(body.out.find("403"), std::string::npos) << body.out;
    auto plain = curl({"-H", "x-api-key: " + anthropic.placeholder,
                       "http://plain.test:" + std::to_string(port) + "/"});
    EXPECT_NE(plain.out.find("403"), std::string::npos) << plain.out;
    EXPECT_EQ(events.all(ProxyEvent::Kind::Leak).size(), 2u);       // the interceptor's
    auto plainLeak = proxy->events.waitFor(ProxyEvent::Kind::Leak); // the proxy's own
    ASSERT_TRUE(plainLeak);
    EXPECT_EQ(plainLeak->request.host, "plain.test");
    EXPECT_EQ(sbtest::readFile(log), "");
}

TEST_F(SecretsProxy, AnUpstreamWithAnUntrustedCertificateIsRefused)
{
    // The stand-in's certificate names tls.test and 127.0.0.1; under another secret's name
    // and with the machine's trust store only, the host cannot be verified.
    ::setenv("SSL_CERT_FILE", "/dev/null", 1);
    TlsInterceptor::Options options;
    options.secrets = {secret("anthropic", "tls.test", port, kValue)};
    auto created = TlsInterceptor::create(options, "untrusting");
    ASSERT_TRUE(created.ok());
    auto strict = *created;
    EventLog strictEvents;
    strict->setOnEvent([&](const ProxyEvent& e) { strictEvents.add(e); });
    std::ofstream(sessionCa) << strict->caCertificatePem();
    NetworkPolicy policy;
    policy.mode = NetworkMode::Filtered;
    policy.rules.push_back({RuleAction::Allow, "tls.test", {}, {}});
    Proxy::Options proxyOptions;
    proxyOptions.intercept = strict;
    proxy = std::make_unique<TestProxy>(policy, proxyOptions);
    auto r = curl(
        {"-H", "x-api-key: " + options.secrets[0].placeholder, url("tls.test", "/v1/messages")});
    EXPECT_NE(r.out.find("502"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.out.find("cannot open TLS to tls.test"), std::string::npos) << r.out;
    auto failed = strictEvents.waitFor(ProxyEvent::Kind::Failed);
    ASSERT_TRUE(failed);
    EXPECT_NE(failed->detail.find("certificate"), std::string::npos) << failed->detail;
    EXPECT_EQ(sbtest::readFile(log), "");
    proxy.reset();
    strict->stop();
}

TEST_F(SecretsProxy, OverAModelLimitTheNextRequestIsPutToTheHumanFirst)
{
    TlsInterceptor::Options options;
    options.secrets = {anthropic};
    options.modelTokens = 10; // the stand-in's first answer uses 23
    start(options);
    std::mutex mutex;
    std::vector<std::string> asked;
    bool allow = false;
    interceptor->setAsk([&](const ConnectionRequest& r, const std::string& rule, Proxy::Decide d) {
        std::lock_guard lock(mutex);
        asked.push_back(r.host + ": " + rule);
        d(allow, "approval #" + std::to_string(asked.size()) + " (answered by test)");
    });
    const std::vector<std::string> request = {"-H", "x-api-key: " + anthropic.placeholder, "-d",
                                              R"({"model": "m"})", url("tls.test", "/v1/messages")};
    auto first = curl(request);
    EXPECT_NE(first.out.find("\n200"), std::string::npos) << first.out;
    EXPECT_TRUE(asked.empty()) << "under the limit, nobody is asked";

    auto refused = curl(request);
    EXPECT_NE(refused.out.find("429"), std::string::npos) << refused.out;
    EXPECT_NE(refused.out.find("limits.model_tokens (10) reached"), std::string::npos);
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0], "tls.test: limits.model_tokens (10) reached");
    EXPECT_EQ(sbtest::readFile(log), kValue + "\n") << "the refused request never reached the host";
    auto limit = events.waitFor(ProxyEvent::Kind::ModelLimit);
    ASSERT_TRUE(limit);
    EXPECT_EQ(limit->action, RuleAction::Deny);
    EXPECT_EQ(limit->detail, "model_tokens");

    {
        std::lock_guard lock(mutex);
        allow = true;
    }
    auto allowed = curl(request);
    EXPECT_NE(allowed.out.find("\n200"), std::string::npos) << allowed.out;
    EXPECT_EQ(asked.size(), 2u);
    EXPECT_EQ(sbtest::readFile(log), kValue + "\n" + kValue + "\n");
}

TEST_F(SecretsProxy, ALargeResponseReachesTheAgentWholeWithEveryValueHidden)
{
    // 8 MiB sent in 1 MiB writes, the value put where TLS records (16 KiB) and the relay's
    // batches (64 and 256 KiB) end: the agent gets what the host sent, byte for byte, with
    // each value turned back into the placeholder.
    const auto script = dir / "big_response.py";
    std::ofstream(script) << R"PY(
import os, socket, ssl, sys, threading
cert, key, value, sent = sys.argv[1], sys.argv[2], sys.argv[3].encode(), sys.argv[4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
print(listener.getsockname()[1], flush=True)

def answer(raw):
    with ctx.wrap_socket(raw, server_side=True) as c:
        head = b""
        while b"\r\n\r\n" not in head:
            got = c.recv(4096)
            if not got:
                return
            head += got
        n = int(head.split(b" ")[1][1:])
        body = bytearray(os.urandom(n))
        for at in (16384 - 10, 65536 - 5, 262144 - 20, 3 * 262144 + 7, n - len(value) - 1):
            body[at:at + len(value)] = value
        with open(sent, "wb") as f:
            f.write(body)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
        view = memoryview(body)
        for at in range(0, n, 1 << 20):
            c.sendall(view[at:at + (1 << 20)])

while True:
    c, _ = listener.accept()
    threading.Thread(target=answer, args=(c,), daemon=True).start()
)PY";
    const auto sent = dir / "sent.bin", got = dir / "got.bin";
    PythonServer big(script, {pki.serverCert, pki.serverKey, kValue, sent.string()});
    const ResolvedSecret s = secret("anthropic", "tls.test", big.port(), kValue);
    TlsInterceptor::Options options;
    options.secrets = {s};
    start(options);
    auto r =
        curl({"-o", got.string(), "https://tls.test:" + std::to_string(big.port()) + "/8388608"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "\n200");
    std::string expected = sbtest::readFile(sent);
    ASSERT_EQ(expected.size(), 8u << 20);
    int values = 0;
    for (auto at = expected.find(kValue); at != std::string::npos; at = expected.find(kValue, at)) {
        expected.replace(at, kValue.size(), s.placeholder);
        ++values;
    }
    EXPECT_EQ(values, 5);
    const std::string received = sbtest::readFile(got);
    ASSERT_EQ(received.size(), expected.size());
    EXPECT_TRUE(received == expected) << "the agent's bytes differ from the host's";
    EXPECT_EQ(received.find(kValue), std::string::npos);
}
