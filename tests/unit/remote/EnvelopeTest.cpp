// The dial stream's envelopes and ssh:// hosts (core/remote).
#include "remote/Envelope.h"

#include "remote/SshTarget.h"

#include <gtest/gtest.h>

using namespace sb::remote;

TEST(Envelope, RoundTripsByteByByteAndWhole)
{
    std::string stream = encodeEnvelope(7, "hello") + encodeEnvelope(9, "") +
                         encodeControl({{"op", "list"}, {"id", 1}}) +
                         encodeEnvelope(3, std::string(70000, 'x'));
    for (std::size_t step : {std::size_t{1}, std::size_t{5}, stream.size()}) {
        EnvelopeDecoder decoder;
        std::vector<Envelope> got;
        for (std::size_t at = 0; at < stream.size(); at += step) {
            decoder.feed(std::string_view(stream).substr(at, step));
            Envelope e;
            for (;;) {
                auto more = decoder.next(e);
                ASSERT_TRUE(more) << more.error().message;
                if (!*more) break;
                got.push_back(e);
            }
        }
        ASSERT_EQ(got.size(), 4u) << "step " << step;
        EXPECT_EQ(got[0].channel, 7u);
        EXPECT_EQ(got[0].payload, "hello");
        EXPECT_EQ(got[1].channel, 9u);
        EXPECT_TRUE(got[1].payload.empty()) << "an empty payload ends a direction";
        EXPECT_EQ(got[2].channel, kControlChannel);
        auto control = parseControl(got[2].payload);
        ASSERT_TRUE(control);
        EXPECT_EQ((*control)["op"], "list");
        EXPECT_EQ(got[3].payload.size(), 70000u);
        EXPECT_EQ(decoder.buffered(), 0u);
    }
}

TEST(Envelope, AnOversizedLengthIsAnErrorNamingIt)
{
    EnvelopeDecoder decoder;
    std::string header = encodeEnvelope(4, "");
    header[4] = header[5] = header[6] = '\xff'; // 16 MiB and more
    decoder.feed(header);
    Envelope e;
    auto got = decoder.next(e);
    ASSERT_FALSE(got);
    EXPECT_NE(got.error().message.find("channel 4"), std::string::npos) << got.error().message;
}

TEST(Envelope, ControlMessagesAreObjectsWithAnOp)
{
    EXPECT_FALSE(parseControl("[1]"));
    EXPECT_FALSE(parseControl("{\"op\": 3}"));
    EXPECT_FALSE(parseControl("not json"));
    EXPECT_TRUE(parseControl("{\"op\": \"hello\"}"));
}

TEST(SshTarget, ParsesUserHostAndPort)
{
    auto t = parseSshTarget("ssh://dev@build-1.example.org:2222");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->user, "dev");
    EXPECT_EQ(t->host, "build-1.example.org");
    EXPECT_EQ(t->port, 2222);
    auto alias = parseSshTarget("ssh://devbox");
    ASSERT_TRUE(alias);
    EXPECT_EQ(alias->user, "");
    EXPECT_EQ(alias->host, "devbox");
    EXPECT_EQ(alias->port, 0);
    auto v6 = parseSshTarget("ssh://[::1]:22/");
    ASSERT_TRUE(v6) << v6.error().message;
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->port, 22);
}

TEST(SshTarget, RefusesWhatSshWouldMisreadOrWeCannotHonour)
{
    for (const char* bad :
         {"devbox", "http://devbox", "ssh://", "ssh://-oProxyCommand=x", "ssh://-@host",
          "ssh://host:0", "ssh://host:65536", "ssh://host:", "ssh://host:22x", "ssh://host/path",
          "ssh://@host", "ssh://a b", "ssh://[::1", "ssh://[nothex]", "ssh://us er@host"}) {
        auto t = parseSshTarget(bad);
        EXPECT_FALSE(t) << bad;
        if (!t) {
            EXPECT_NE(t.error().message.find("ssh://[USER@]HOST[:PORT]"), std::string::npos);
        }
    }
}

TEST(SshTarget, TheSshCommandKeepsHostKeyChecksAndNeverPrompts)
{
    auto t = parseSshTarget("ssh://dev@devbox:2200");
    ASSERT_TRUE(t);
    DialOptions options;
    options.ssh = {"ssh", "-F", "/tmp/config"};
    const std::vector<std::string> expected = {
        // clang-format off
        "ssh", "-F", "/tmp/config", "-o", "BatchMode=yes", "-T", "-a", "-x",
        "-o", "ClearAllForwardings=yes", "-p", "2200", "--", "dev@devbox",
        "sandbench-cli dial-stdio"};
    // clang-format on
    EXPECT_EQ(sshCommand(*t, options), expected);
    for (const auto& word : sshCommand(*t, options))
        EXPECT_EQ(word.find("StrictHostKeyChecking"), std::string::npos);
}

TEST(SshTarget, FailuresSayWhatWentWrongInTheUsersTerms)
{
    auto said = [](int status, const std::string& err) {
        return dialFailure("ssh://devbox", status, err).message;
    };
    EXPECT_NE(said(255, "Host key verification failed.\r\n").find("host key of ssh://devbox"),
              std::string::npos);
    EXPECT_NE(said(255, "dev@devbox: Permission denied (publickey).\n").find("could not log in"),
              std::string::npos);
    EXPECT_NE(said(127, "bash: line 1: sandbench-cli: command not found\n")
                  .find("Sandbench is not installed on ssh://devbox"),
              std::string::npos);
    EXPECT_NE(said(2, "A subcommand is required\nRun with --help for more information.\n")
                  .find("too old"),
              std::string::npos);
    EXPECT_NE(said(255, "ssh: connect to host devbox port 22: Connection refused\n")
                  .find("could not reach ssh://devbox (ssh: ssh: connect to host devbox port 22: "
                        "Connection refused)"),
              std::string::npos);
    EXPECT_NE(said(3, "").find("status 3"), std::string::npos);
}
