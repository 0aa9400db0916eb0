// Placeholders replaced toward a secret's hosts, refused toward others, values hidden on the
// way back, across any split of a stream (issue 38).
#include "base/Bytes.h"
#include "network/SecretScan.h"

#include <gtest/gtest.h>

using namespace sb;

namespace {

ResolvedSecret secret(std::string name, std::string host, std::string value,
                      std::string placeholder, bool body = false)
{
    ResolvedSecret s;
    s.spec.name = std::move(name);
    s.spec.hosts = {std::move(host)};
    s.spec.body = body;
    s.value = std::move(value);
    s.placeholder = std::move(placeholder);
    return s;
}

const SecretScan
    kScan({secret("anthropic", "api.anthropic.com", "sk-REAL-aaaaaaaaaaaa", "sk-PHLD-bbbbbbbbbbbb"),
           secret("gh", "*.github.com", "ghp_REALcccccccccc", "ghp_PHLDdddddddddd", true)});

} // namespace

TEST(SecretScan, APlaceholderBecomesItsValueOnlyTowardItsHosts)
{
    EXPECT_TRUE(kScan.namesHost("api.anthropic.com", 443));
    EXPECT_FALSE(kScan.namesHost("api.anthropic.com", 80));
    EXPECT_FALSE(kScan.namesHost("example.com", 443));

    std::string head = "POST /v1/messages HTTP/1.1\r\nx-api-key: sk-PHLD-bbbbbbbbbbbb\r\n\r\n";
    auto o = kScan.substitute(head, "api.anthropic.com", 443, false);
    EXPECT_EQ(o.leak, nullptr);
    EXPECT_EQ(o.used, std::vector<std::string>{"anthropic"});
    EXPECT_EQ(head, "POST /v1/messages HTTP/1.1\r\nx-api-key: sk-REAL-aaaaaaaaaaaa\r\n\r\n");

    // The same placeholder toward another host: a leak, and nothing replaced.
    std::string elsewhere = "x-api-key: sk-PHLD-bbbbbbbbbbbb";
    auto leak = kScan.substitute(elsewhere, "uploads.github.com", 443, false);
    ASSERT_NE(leak.leak, nullptr);
    EXPECT_EQ(leak.leak->spec.name, "anthropic");
    EXPECT_EQ(elsewhere, "x-api-key: sk-PHLD-bbbbbbbbbbbb");
    EXPECT_NE(kScan.leakIn("GET /?k=sk-PHLD-bbbbbbbbbbbb", "paste.example", 80), nullptr);
    EXPECT_EQ(kScan.leakIn("GET /?k=sk-PHLD-bbbbbbbbbbbb", "api.anthropic.com", 443), nullptr);
}

TEST(SecretScan, BodiesOnlyWhereTheSecretSaysSo)
{
    std::string body = R"({"a": "sk-PHLD-bbbbbbbbbbbb", "g": "ghp_PHLDdddddddddd"})";
    auto a = kScan.substitute(body, "api.anthropic.com", 443, true);
    ASSERT_NE(a.leak, nullptr) << "gh's placeholder may not go to anthropic";
    std::string ghBody = R"({"g": "ghp_PHLDdddddddddd", "x": 1})";
    auto g = kScan.substitute(ghBody, "api.github.com", 443, true);
    EXPECT_EQ(g.leak, nullptr);
    EXPECT_EQ(ghBody, R"({"g": "ghp_REALcccccccccc", "x": 1})");
    std::string anthropicBody = R"({"k": "sk-PHLD-bbbbbbbbbbbb"})";
    auto kept = kScan.substitute(anthropicBody, "api.anthropic.com", 443, true);
    EXPECT_EQ(kept.leak, nullptr);
    EXPECT_TRUE(kept.used.empty()) << "anthropic's value goes in heads only";
    EXPECT_EQ(anthropicBody, R"({"k": "sk-PHLD-bbbbbbbbbbbb"})");
}

TEST(SecretScan, ValuesSentBackBecomePlaceholders)
{
    std::string echoed = "you sent sk-REAL-aaaaaaaaaaaa and ghp_REALcccccccccc";
    EXPECT_TRUE(kScan.hideValues(echoed));
    EXPECT_EQ(echoed, "you sent sk-PHLD-bbbbbbbbbbbb and ghp_PHLDdddddddddd");
}

TEST(SecretScan, AStreamFindsWhatAnySplitOfItCarries)
{
    const std::string up = R"({"g":"ghp_PHLDdddddddddd","n":1})";
    const std::string down = "echo: ghp_REALcccccccccc, done";
    for (std::size_t split = 0; split <= up.size(); ++split) {
        SecretStream s(kScan, SecretStream::Direction::ToHost, "api.github.com", 443, true);
        std::string out;
        ASSERT_TRUE(s.feed(up.substr(0, split), out));
        ASSERT_TRUE(s.feed(up.substr(split), out));
        s.finish(out);
        EXPECT_EQ(out, R"({"g":"ghp_REALcccccccccc","n":1})") << "split at " << split;
        EXPECT_EQ(s.used(), std::vector<std::string>{"gh"});
    }
    for (std::size_t split = 0; split <= down.size(); ++split) {
        SecretStream s(kScan, SecretStream::Direction::ToSandbox, "api.github.com", 443, true);
        std::string out;
        s.feed(down.substr(0, split), out);
        s.feed(down.substr(split), out);
        s.finish(out);
        EXPECT_EQ(out, "echo: ghp_PHLDdddddddddd, done") << "split at " << split;
    }
    // A leak split across two pieces is still one.
    SecretStream s(kScan, SecretStream::Direction::ToHost, "paste.example", 443, true);
    std::string out;
    EXPECT_TRUE(s.feed("x=sk-PHLD-bbb", out));
    EXPECT_FALSE(s.feed("bbbbbbbbb&y=1", out));
    ASSERT_NE(s.leak(), nullptr);
    EXPECT_EQ(out.find("sk-PHLD"), std::string::npos) << "nothing of it went on";
}

TEST(SecretScan, OrdinaryBytesAreNotHeldBack)
{
    // Only a tail that could begin a placeholder waits: a streamed response is not delayed.
    EXPECT_EQ(kScan.pendingTail("data: {\"text\": \"hello\"}\n\n", false), 0u);
    EXPECT_EQ(kScan.pendingTail("abc sk-PH", false), 5u);
    EXPECT_EQ(kScan.pendingTail("abc sk-RE", true), 5u);
}

TEST(SecretScan, BasicCredentialsCarryATokenAsGitSendsIt)
{
    // git's "Authorization: Basic base64(user:token)" toward the token's host: the token inside
    // is replaced, the line encoded again; toward another host it is a leak.
    const std::string placeholder = "ghp_PHLDdddddddddd", value = "ghp_REALcccccccccc";
    std::string head = "GET /o/r.git/info/refs HTTP/1.1\r\nAuthorization: Basic " +
                       base64("x-access-token:" + placeholder) + "\r\n\r\n";
    auto o = kScan.substitute(head, "github.com", 443, false);
    EXPECT_EQ(o.leak, nullptr);
    EXPECT_EQ(o.used, std::vector<std::string>{"gh"});
    EXPECT_EQ(head, "GET /o/r.git/info/refs HTTP/1.1\r\nAuthorization: Basic " +
                        base64("x-access-token:" + value) + "\r\n\r\n");

    std::string elsewhere = "GET / HTTP/1.1\r\nauthorization: basic " +
                            base64("me:" + placeholder) + "\r\n\r\n";
    auto leak = kScan.substitute(elsewhere, "paste.example", 443, false);
    ASSERT_NE(leak.leak, nullptr);
    EXPECT_EQ(leak.leak->spec.name, "gh");
    EXPECT_NE(kScan.leakIn(elsewhere, "paste.example", 80), nullptr);
}
