// The policy's `secrets` section (issue 38): what may be written, what is refused and where,
// and the document written back.
#include "policy/Policy.h"
#include "policy/PolicyJson.h"

#include <gtest/gtest.h>

using namespace sb;

namespace {

Result<Policy> parse(const std::string& secrets)
{
    return parsePolicy(R"({"version": 1, "secrets": )" + secrets + "}", "p.json");
}

std::string problem(const std::string& secrets)
{
    auto p = parse(secrets);
    return p ? std::string("(accepted)") : p.error().message;
}

} // namespace

TEST(SecretsPolicy, ReadsEverySourceWithItsHostsAndWhereTheSandboxSeesIt)
{
    auto p = parse(R"({
      "anthropic": {"from": {"env": "ANTHROPIC_API_KEY"}, "hosts": ["api.anthropic.com"],
                    "env": "ANTHROPIC_API_KEY", "optional": true},
      "gh": {"from": {"command": ["gh", "auth", "token"]}, "hosts": ["*.GitHub.com"],
             "ports": [443, 8443], "file": "~/.config/gh-token", "body": true},
      "kr": {"from": {"keyring": {"service": "openai", "account": "me"}},
             "hosts": ["10.0.0.5"], "env": "OPENAI_API_KEY"},
      "f": {"from": {"file": "~/.key"}, "hosts": ["h.example"], "env": "F_KEY"}
    })");
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_EQ(p->secrets.size(), 4u);
    const SecretSpec& a = p->secrets[0];
    EXPECT_EQ(a.name, "anthropic");
    EXPECT_EQ(a.from.kind, SecretSource::Kind::Env);
    EXPECT_EQ(a.from.variable, "ANTHROPIC_API_KEY");
    EXPECT_EQ(a.ports, std::vector<std::uint16_t>{443});
    EXPECT_TRUE(a.optional);
    EXPECT_FALSE(a.body);
    const SecretSpec& gh = p->secrets[1];
    EXPECT_EQ(gh.from.kind, SecretSource::Kind::Command);
    EXPECT_EQ(gh.from.argv, (std::vector<std::string>{"gh", "auth", "token"}));
    EXPECT_EQ(gh.hosts, std::vector<std::string>{"*.github.com"});
    EXPECT_EQ(gh.ports, (std::vector<std::uint16_t>{443, 8443}));
    EXPECT_EQ(gh.file, "~/.config/gh-token");
    EXPECT_TRUE(gh.body);
    EXPECT_EQ(p->secrets[2].from.kind, SecretSource::Kind::Keyring);
    EXPECT_EQ(p->secrets[2].from.attributes.size(), 2u);
    EXPECT_EQ(p->secrets[3].from.path, "~/.key");

    // Written back, it reads the same (and never holds a value: there is none to hold).
    auto again = parsePolicy(policyToJson(*p).dump(), "again");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(policyToJson(*again).dump(), policyToJson(*p).dump());
}

TEST(SecretsPolicy, HostsAndPortsDecideWhereAValueMayGo)
{
    SecretSpec s;
    s.hosts = {"api.example.com", "*.github.com"};
    s.ports = {443};
    EXPECT_TRUE(secretAllows(s, "api.example.com", 443));
    EXPECT_FALSE(secretAllows(s, "api.example.com", 80));
    EXPECT_FALSE(secretAllows(s, "xapi.example.com", 443));
    EXPECT_TRUE(secretAllows(s, "github.com", 443));
    EXPECT_TRUE(secretAllows(s, "uploads.github.com", 443));
    EXPECT_FALSE(secretAllows(s, "evilgithub.com", 443));
}

TEST(SecretsPolicy, RefusesWhatCannotBeHonouredNamingWhereItIs)
{
    EXPECT_NE(problem(R"({"Bad Name": {"from": {"env": "X"}, "hosts": ["a.b"], "env": "X"}})")
                  .find("invalid secret name 'Bad Name'"),
              std::string::npos);
    EXPECT_NE(problem(R"({"k": {"from": {"env": "X"}, "hosts": ["a.b"]}})")
                  .find("the secret reaches the sandbox nowhere"),
              std::string::npos);
    EXPECT_NE(problem(R"({"k": {"from": {"env": "X"}, "hosts": ["*"], "env": "X"}})")
                  .find("names more than one host"),
              std::string::npos);
    EXPECT_NE(problem(R"({"k": {"from": {"env": "X"}, "hosts": ["10.0.0.0/8"], "env": "X"}})")
                  .find("names more than one host"),
              std::string::npos);
    EXPECT_NE(problem(R"({"k": {"from": {"env": "X"}, "hosts": [], "env": "X"}})").find("no host"),
              std::string::npos);
    EXPECT_NE(
        problem(R"({"k": {"from": {"env": "X", "file": "/k"}, "hosts": ["a.b"], "env": "X"}})")
            .find("expected one of"),
        std::string::npos);
    EXPECT_NE(
        problem(R"({"k": {"from": {"vault": "x"}, "hosts": ["a.b"], "env": "X"}})").find("vault"),
        std::string::npos);
    EXPECT_NE(problem(R"({"k": {"from": {"file": "relative/key"}, "hosts": ["a.b"], "env": "X"}})")
                  .find("is not an absolute path"),
              std::string::npos);
    EXPECT_NE(problem(R"({"k": {"from": {"command": []}, "hosts": ["a.b"], "env": "X"}})")
                  .find("an empty command"),
              std::string::npos);
    EXPECT_NE(
        problem(R"({"k": {"from": {"env": "X"}, "hosts": ["a.b"], "env": "X", "header": "y"}})")
            .find("header"),
        std::string::npos);
    EXPECT_NE(problem(R"({"a": {"from": {"env": "X"}, "hosts": ["a.b"], "env": "SAME"},
                          "b": {"from": {"env": "Y"}, "hosts": ["a.b"], "env": "SAME"}})")
                  .find("secret 'a' already uses the variable SAME"),
              std::string::npos);
    // Where: file, line and column, and the JSON pointer.
    EXPECT_NE(problem(R"({"k": {"from": {"env": "X"}, "hosts": ["a.b"], "env": "1X"}})")
                  .find("p.json:1:"),
              std::string::npos);
}
