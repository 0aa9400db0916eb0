// The real Claude Code CLI with its API key as a secret (issue 38, end to end): `claude -p` runs
// in a session inside test-network (tests/probe) with ANTHROPIC_BASE_URL at a TLS stand-in for
// the Messages API (FakeModelApi) listening on 198.18.0.1 as model.test.example, with a
// certificate of the test's own CA that only the supervisor trusts. The CLI gets a placeholder,
// completes with the stand-in's streamed answer, the stand-in receives the real key, and the
// session records the request's model and tokens. The CLI is the npm package
// @anthropic-ai/claude-code pinned in tests/js (test-only; tests/js/run.sh --install-only
// installs it), exposed read-only to the sandbox.
#include "FakeModelApi.h"
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"
#include "support/TestNetwork.h"

#include <sstream>

namespace fs = std::filesystem;
using sbit::contains;

namespace {

const fs::path kClaudeDir =
    fs::path(SANDBENCH_SOURCE_DIR) / "tests/js/node_modules/@anthropic-ai/claude-code";

} // namespace

TEST(ClaudeCodeSecrets, ClaudeCompletesWithThePlaceholderAndTheApiReceivesTheKey)
{
    if (sbtest::run({"node", "--version"}).status != 0)
        SB_SKIP("node is not installed (scripts/deps.sh installs nodejs)");
    if (!fs::exists(kClaudeDir / "cli.js"))
        SB_SKIP("the Claude Code CLI is not installed in tests/js: run tests/js/run.sh "
                "--install-only");

    const std::string value = "sk-ant-api03-ONLYTHETESTKNOWS-" + sbit::uniqueToken() + "-AA";
    sbit::Sandbench sb;
    sbit::TestNetwork net{.names = {"model.test.example"}, .timeoutSeconds = 180};
    sbtest::TempDir server;
    auto pki = sbproxytest::makeTestPki(server.path(), "DNS:model.test.example");
    ASSERT_TRUE(pki.ok()) << pki.error().message;
    const std::string api = std::to_string(net.port + 2);
    const fs::path policy =
        sb.writePolicy(sbit::filledIn(R"({"version": 1,
      "network": {"mode": "filtered", "default": "deny", "rules": [
        {"action": "allow", "host": "model.test.example", "ports": [@API@]}]},
      "filesystem": {"expose": [{"path": "@CLAUDE@", "mode": "ro"}]},
      "env": {"set": {"ANTHROPIC_BASE_URL": "https://model.test.example:@API@",
                      "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                      "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1"}},
      "secrets": {"anthropic": {"from": {"env": "THE_REAL_KEY"}, "hosts": ["model.test.example"],
                                "ports": [@API@], "env": "ANTHROPIC_API_KEY"}}})",
                                      {{"@API@", api}, {"@CLAUDE@", kClaudeDir.string()}}));
    // Inside: the key as the CLI sees it, then the CLI itself (a HOME of its own for its state).
    const std::string inside = R"SH(
echo "seen inside: [$ANTHROPIC_API_KEY]"
export HOME=$(mktemp -d)
node @CLAUDE@/cli.js -p "Say hello to the sandbox." < /dev/null
echo "claude status: $?"
)SH";
    const std::string script = R"(@START_API@
SSL_CERT_FILE=@CA@ THE_REAL_KEY=@VALUE@ @CLI@ run --workspace @WORKSPACE@ --session-id claude \
  --policy @POLICY@ -- bash -c "$INSIDE"
status=$?
kill $api
exit $status
)";
    const std::map<std::string, std::string> words = {
        {"@START_API@",
         sbit::startFakeModelApi(server.path(), "198.18.0.1", net.port + 2, pki->serverCert,
                                 pki->serverKey, server / "keys.log")},
        {"@CA@", pki->caCert},
        {"@VALUE@", value},
        {"@CLI@", sbtest::cliPath()},
        {"@WORKSPACE@", sb.workspace().string()},
        {"@POLICY@", policy.string()},
        {"@CLAUDE@", kClaudeDir.string()}};
    auto result = net.run(
        sb, {"env", "INSIDE=" + sbit::filledIn(inside, words), "bash", "-c",
             "cd " + server.path().string() + " || exit 1\n" + sbit::filledIn(script, words)});
    ASSERT_EQ(result.status, 0) << result.out << result.err << sbtest::readFile(server / "api.err");

    // The CLI completed with the stand-in's streamed answer.
    EXPECT_TRUE(contains(result.out, "hello\nclaude status: 0")) << result.out << result.err;
    // Inside: a placeholder shaped like the key (its prefix and length), never the key.
    const std::string prefix = "seen inside: [";
    const auto seen = result.out.find(prefix);
    ASSERT_NE(seen, std::string::npos) << result.out;
    const auto end = result.out.find(']', seen);
    ASSERT_NE(end, std::string::npos) << result.out;
    const std::string placeholder =
        result.out.substr(seen + prefix.size(), end - seen - prefix.size());
    EXPECT_TRUE(placeholder.starts_with("sk-ant-api03-")) << placeholder;
    EXPECT_EQ(placeholder.size(), value.size()) << placeholder;
    EXPECT_NE(placeholder, value);
    EXPECT_FALSE(contains(result.out, value));
    EXPECT_FALSE(contains(result.err, value));

    // The stand-in: the real key with every request the CLI made, never the placeholder.
    const std::string keys = sbtest::readFile(server / "keys.log");
    std::istringstream lines(keys);
    int requests = 0;
    for (std::string line; std::getline(lines, line); ++requests)
        EXPECT_EQ(line, value);
    EXPECT_GE(requests, 1) << result.err;
    EXPECT_FALSE(contains(keys, placeholder));

    // Recorded: each request to the Messages API, streamed, with the tokens the stand-in
    // reported (13 in, 9 out); nothing else went out.
    const auto models = sbit::recordedPayloads(sb, "claude", "model");
    ASSERT_EQ(models.size(), static_cast<size_t>(requests)) << result.err;
    for (const auto& m : models) {
        EXPECT_EQ(m.value("api", ""), "anthropic-messages");
        EXPECT_EQ(m.value("host", ""), "model.test.example");
        EXPECT_FALSE(m.value("model", "").empty()) << m.dump();
        EXPECT_TRUE(m.value("streamed", false)) << m.dump();
        EXPECT_EQ(m.value("status", 0), 200);
        EXPECT_EQ(m.value("input_tokens", 0), 13);
        EXPECT_EQ(m.value("output_tokens", 0), 9);
    }
    EXPECT_TRUE(sbit::recordedPayloads(sb, "claude", "leak").empty());
    // Nothing else went out. (This version asks api.anthropic.com for its metrics opt-out
    // whatever DISABLE_TELEMETRY says; the policy's default denies it.)
    int allowed = 0;
    for (const auto& d : sbit::networkDecisions(sb, "claude")) {
        if (d.value("host", "") == "model.test.example" && d.value("decision", "") == "allow")
            ++allowed;
        else
            EXPECT_EQ(d.value("decision", ""), "deny") << d.dump();
    }
    EXPECT_GE(allowed, 1);
}
