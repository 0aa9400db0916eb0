// Signed file URLs (uploadUrl, downloadUrl) and file metadata on writes: a URL signed with the
// sandbox's token reads or writes its one path without the token's header, anything else
// signed wrong or too late is a 401 with envd's message; metadata headers go to the session
// with the write, and a session that does not keep them fails the write.
#include "E2bApiFixture.h"
#include "e2b/FileSignature.h"

#include <chrono>

using nlohmann::json;
using sb::e2b::checkFileSignature;
using sb::e2b::fileSignature;
using sb::e2b::SignatureCheck;
using sb::e2b::signedFileQuery;
using sbtest::MemoryExchange;

namespace {

long long nowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// A query string's value, as the SDK's URLSearchParams would write it.
std::string escaped(std::string_view text)
{
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
            out += static_cast<char>(c);
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out;
}

} // namespace

// Known answers, worked out apart from this code (SHA-256 and base64 of the texts).
TEST(FileSignature, IsVersionOneOverPathOperationUserTokenAndExpiration)
{
    EXPECT_EQ(fileSignature("hello.txt", "read", "", "tok", 1700000000LL),
              "v1_EUu2ENlqKPzOY/NaOk0BqXuM7BkFsPEMrnoTb0VpeXc");
    EXPECT_EQ(fileSignature("/home/user/a b.txt", "write", "user", "tok", std::nullopt),
              "v1_KliWTWuiJY1rMLkMYdkBjEyKLZ3P/TWDtyGAS3iMARU");
}

TEST(FileSignature, TheQueryIsReadAndABadExpirationRefused)
{
    auto none = signedFileQuery("path=a.txt");
    ASSERT_TRUE(none);
    EXPECT_FALSE(none->has_value());
    auto query = signedFileQuery("path=a%20b.txt&username=user&signature=v1_x%2By&"
                                 "signature_expiration=-5");
    ASSERT_TRUE(query && query->has_value());
    EXPECT_EQ((*query)->path, "a b.txt");
    EXPECT_EQ((*query)->user, "user");
    EXPECT_EQ((*query)->signature, "v1_x+y");
    EXPECT_EQ((*query)->expiration, -5);
    for (const char* bad :
         {"signature=s&signature_expiration=", "signature=s&signature_expiration=1e9",
          "signature=s&signature_expiration=12x",
          "signature=s&signature_expiration=99999999999999999999999"}) {
        auto refused = signedFileQuery(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_NE(refused.error().message.find("signature_expiration"), std::string::npos);
    }
}

TEST(FileSignature, AWrongSignatureIsInvalidBeforeItIsExpired)
{
    sb::e2b::SignedFileQuery q{fileSignature("a.txt", "read", "", "tok", 100), 100, "a.txt", ""};
    EXPECT_EQ(checkFileSignature(q, "read", "tok", 99), SignatureCheck::Valid);
    EXPECT_EQ(checkFileSignature(q, "read", "tok", 100), SignatureCheck::Valid);
    EXPECT_EQ(checkFileSignature(q, "read", "tok", 101), SignatureCheck::Expired);
    EXPECT_EQ(checkFileSignature(q, "write", "tok", 0), SignatureCheck::Invalid);
    EXPECT_EQ(checkFileSignature(q, "read", "other", 0), SignatureCheck::Invalid);
    q.path = "b.txt";
    EXPECT_EQ(checkFileSignature(q, "read", "tok", 101), SignatureCheck::Invalid);
    q.path = "a.txt";
    q.expiration = 5000; // the expiration is part of what was signed
    EXPECT_EQ(checkFileSignature(q, "read", "tok", 0), SignatureCheck::Invalid);
}

class E2bSignedFiles : public sbtest::E2bApiTest {
  protected:
    // A request with nothing but the URL, as fetch(downloadUrl) sends it.
    MemoryExchange bare(std::string method, std::string target, std::string body = {},
                        sb::http::Headers headers = {})
    {
        MemoryExchange ex(std::move(method), std::move(target), std::move(body),
                          std::move(headers));
        api->handle(ex);
        return ex;
    }
    static std::string signedTarget(const json& sandbox, const std::string& path,
                                    const char* operation, std::optional<long long> expiration,
                                    const std::string& user = "")
    {
        const std::string token = sandbox["envdAccessToken"];
        std::string target = "/files?path=" + escaped(path);
        if (!user.empty()) target += "&username=" + user;
        target += "&signature=" + escaped(fileSignature(path, operation, user, token, expiration));
        if (expiration) target += "&signature_expiration=" + std::to_string(*expiration);
        return target;
    }
};

TEST_F(E2bSignedFiles, ASignedUrlReadsAndWritesWithoutTheToken)
{
    create(); // another sandbox: the signature tells them apart
    const json sandbox = create();
    auto read = bare("GET", signedTarget(sandbox, "hello.txt", "read", nowSeconds() + 60));
    EXPECT_EQ(read.status, 200) << read.response;
    EXPECT_EQ(read.response, "hello");
    auto forever =
        bare("GET", signedTarget(sandbox, "/home/user/hello.txt", "read", std::nullopt, "user"));
    EXPECT_EQ(forever.status, 200) << forever.response;
    auto wrote =
        bare("POST", signedTarget(sandbox, "notes.txt", "write", nowSeconds() + 60), "text");
    ASSERT_EQ(wrote.status, 200) << wrote.response;
    EXPECT_EQ(
        json::parse(wrote.response),
        json::parse(R"([{"name": "notes.txt", "type": "file", "path": "/home/user/notes.txt"}])"));
    // With the sandbox's header too (a client that sends both).
    auto named = bare("GET", signedTarget(sandbox, "hello.txt", "read", nowSeconds() + 60), "",
                      {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()}});
    EXPECT_EQ(named.status, 200) << named.response;
}

TEST_F(E2bSignedFiles, AnythingElseIsRefusedWithEnvdsMessage)
{
    const json sandbox = create();
    const json other = create();
    auto expect401 = [](const MemoryExchange& ex, const std::string& message) {
        EXPECT_EQ(ex.status, 401) << ex.response;
        EXPECT_EQ(json::parse(ex.response), json({{"code", 401}, {"message", message}}));
    };
    expect401(bare("GET", signedTarget(sandbox, "hello.txt", "read", nowSeconds() - 10)),
              "signature is already expired");
    expect401(bare("POST", signedTarget(sandbox, "x.txt", "write", nowSeconds() - 100), "x"),
              "signature is already expired");
    // Signed to read, used to write; for another path; tampered with; another expiration.
    expect401(bare("POST", signedTarget(sandbox, "hello.txt", "read", nowSeconds() + 60), "x"),
              "invalid signature");
    std::string target = signedTarget(sandbox, "hello.txt", "read", nowSeconds() + 60);
    expect401(bare("GET", std::string(target).replace(target.find("hello"), 5, "hellp")),
              "invalid signature");
    expect401(bare("GET", target + "0"), "invalid signature");
    std::string later = target;
    later.back() = later.back() == '9' ? '8' : '9';
    expect401(bare("GET", later), "invalid signature");
    // Signed for one sandbox, sent to another by its header.
    expect401(bare("GET", signedTarget(sandbox, "hello.txt", "read", nowSeconds() + 60), "",
                   {{"E2b-Sandbox-Id", other["sandboxID"].get<std::string>()}}),
              "invalid signature");
    EXPECT_TRUE(m_supervisors.front().writes().empty()) << "a refused upload was written";

    // A signature stands for the token on /files only, and a wrong token is not made good by
    // a right signature.
    MemoryExchange stat("POST",
                        "/filesystem.Filesystem/Stat?" +
                            signedTarget(sandbox, "hello.txt", "read", std::nullopt).substr(7),
                        R"({"path": "hello.txt"})",
                        {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()}});
    api->handle(stat);
    EXPECT_EQ(stat.status, 401) << stat.response;
    auto wrongToken = bare(
        "GET", signedTarget(sandbox, "hello.txt", "read", std::nullopt), "",
        {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()}, {"X-Access-Token", "wrong"}});
    EXPECT_EQ(wrongToken.status, 401) << wrongToken.response;
    auto badExpiration =
        bare("GET", "/files?path=hello.txt&signature=v1_x&signature_expiration=soon");
    EXPECT_EQ(badExpiration.status, 400) << badExpiration.response;
    // A killed sandbox's URLs end with it.
    const std::string url = signedTarget(sandbox, "hello.txt", "read", std::nullopt);
    EXPECT_EQ(rest("DELETE", "/v2/sandboxes/" + sandbox["sandboxID"].get<std::string>()).status,
              204);
    expect401(bare("GET", url), "invalid signature");
}

TEST_F(E2bSignedFiles, MetadataHeadersGoWithTheWriteAndAreCheckedFirst)
{
    const json sandbox = create();
    MemoryExchange wrote("POST", "/files?path=meta.txt", "content",
                         {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()},
                          {"X-Access-Token", sandbox["envdAccessToken"].get<std::string>()},
                          {"Content-Type", "application/octet-stream"},
                          {"X-Metadata-Author", "mish"},
                          {"x-metadata-purpose", "upload"},
                          {"X-Metadata-Author", "second"}});
    api->handle(wrote);
    const auto writes = m_supervisors.back().writes();
    ASSERT_EQ(writes.size(), 1u);
    EXPECT_EQ(writes[0]["metadata"], json({{"author", "mish"}, {"purpose", "upload"}}));
    // This fake supervisor keeps no metadata, as one older than the server: the write says so
    // rather than answer metadata the file does not have.
    EXPECT_EQ(wrote.status, 500) << wrote.response;
    EXPECT_NE(wrote.response.find("did not keep the metadata"), std::string::npos)
        << wrote.response;

    MemoryExchange bad("POST", "/files?path=bad.txt", "content",
                       {{"E2b-Sandbox-Id", sandbox["sandboxID"].get<std::string>()},
                        {"X-Access-Token", sandbox["envdAccessToken"].get<std::string>()},
                        {"X-Metadata-Note", "tab\there"}});
    api->handle(bad);
    EXPECT_EQ(bad.status, 400) << bad.response;
    EXPECT_NE(bad.response.find("note"), std::string::npos) << bad.response;
    EXPECT_EQ(m_supervisors.back().writes().size(), 1u) << "a refused write reached the sandbox";
}
