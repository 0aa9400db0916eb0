// Reading secrets' values on the host and the placeholders that stand in for them (issue 38).
#include "secrets/SecretValues.h"

#include "TestSupport.h"

#include <fstream>
#include <gtest/gtest.h>

using namespace sb;

namespace {

SecretSpec spec(const std::string& name, SecretSource from, bool optional = false)
{
    SecretSpec s;
    s.name = name;
    s.from = std::move(from);
    s.hosts = {"api.example.com"};
    s.env = "KEY_" + name;
    s.optional = optional;
    return s;
}

SecretSource env(const std::string& variable)
{
    SecretSource s;
    s.kind = SecretSource::Kind::Env;
    s.variable = variable;
    return s;
}

} // namespace

TEST(SecretValues, APlaceholderKeepsTheShapeAndLengthButNotTheValue)
{
    const std::string value = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    const std::string a = makePlaceholder(value), b = makePlaceholder(value);
    EXPECT_EQ(a.size(), value.size());
    EXPECT_TRUE(a.starts_with("sk-ant-api03-")) << a;
    EXPECT_NE(a, value);
    EXPECT_NE(a, b) << "unique per session";
    EXPECT_EQ(a.substr(13).find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
              std::string::npos);
    EXPECT_TRUE(makePlaceholder("ghp_0123456789abcdefghij0123456789abcdef").starts_with("ghp_"));
    // No prefix worth keeping: random through and through.
    const std::string plain = makePlaceholder("0123456789abcdef");
    EXPECT_EQ(plain.size(), 16u);
    EXPECT_NE(plain, "0123456789abcdef");
}

TEST(SecretValues, ReadsFromTheEnvironmentAFileAndACommand)
{
    sbtest::TempDir dir;
    const auto file = dir.path() / "key";
    std::ofstream(file) << "file-value-0123456789\n";
    SecretSource fromFile;
    fromFile.kind = SecretSource::Kind::File;
    fromFile.path = file.string();
    SecretSource fromCommand;
    fromCommand.kind = SecretSource::Kind::Command;
    fromCommand.argv = {"printf", "%s\\n", "command-value-0123456789"};
    auto read =
        readSecrets({spec("a", env("REAL_KEY")), spec("b", fromFile), spec("c", fromCommand)},
                    {"OTHER=x", "REAL_KEY=env-value-0123456789"});
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_EQ(read->secrets.size(), 3u);
    EXPECT_EQ(read->secrets[0].value, "env-value-0123456789");
    EXPECT_EQ(read->secrets[1].value, "file-value-0123456789") << "its newline taken off";
    EXPECT_EQ(read->secrets[2].value, "command-value-0123456789");
    for (const ResolvedSecret& s : read->secrets)
        EXPECT_EQ(s.placeholder.size(), s.value.size());
}

TEST(SecretValues, AMissingRequiredSecretFailsNamingItAndAnOptionalOneIsLeftOut)
{
    auto required = readSecrets({spec("anthropic", env("NOT_SET"))}, {});
    ASSERT_FALSE(required.ok());
    EXPECT_EQ(required.error().message, "secret 'anthropic': NOT_SET is not set");

    auto optional = readSecrets({spec("anthropic", env("NOT_SET"), true)}, {});
    ASSERT_TRUE(optional.ok());
    EXPECT_TRUE(optional->secrets.empty());
    ASSERT_EQ(optional->notes.size(), 1u);
    EXPECT_EQ(optional->notes[0], "secret 'anthropic': NOT_SET is not set; left out");

    SecretSource failing;
    failing.kind = SecretSource::Kind::Command;
    failing.argv = {"false"};
    auto failed = readSecrets({spec("cmd", failing)}, {});
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error().message, "secret 'cmd': false failed (exit status 1)");
}

TEST(SecretValues, RefusesValuesThatCouldEndAHeaderOrAreTooShort)
{
    auto broken = readSecrets({spec("k", env("K"))}, {"K=abc\r\nX-Injected: 1234567"});
    ASSERT_FALSE(broken.ok());
    EXPECT_NE(broken.error().message.find("line break"), std::string::npos);
    EXPECT_EQ(broken.error().message.find("Injected"), std::string::npos) << "never the value";
    auto shortValue = readSecrets({spec("k", env("K"))}, {"K=abc"});
    ASSERT_FALSE(shortValue.ok());
    EXPECT_NE(shortValue.error().message.find("too short"), std::string::npos);
}

TEST(SecretValues, RedactionReplacesEveryValueByTheSecretsName)
{
    ResolvedSecret s{spec("anthropic", env("K")), "the-value-0123456789", "the-place-holder-xyz"};
    EXPECT_EQ(redactSecrets("a the-value-0123456789 b the-value-0123456789", {s}),
              "a [secret anthropic] b [secret anthropic]");
}

TEST(SecretValues, AKeyringWithoutASecretServiceSaysSo)
{
    // No D-Bus session here: the lookup fails with a reason instead of hanging or crashing.
    ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
    auto found = keyringLookup({{"service", "sandbench-test"}});
    ASSERT_FALSE(found.ok());
    EXPECT_FALSE(found.error().message.empty());
}
