// Secrets from the desktop keyring (issue 38): a private D-Bus session (dbus-run-session) with
// GNOME Keyring's Secret Service unlocked by a test password, an item stored with secret-tool,
// and real sessions that read it through libsecret. The value reaches its host (a TLS stand-in
// inside test-network that logs the keys it gets) while the sandbox sees a placeholder; a
// missing optional item is left out; a locked keyring and a bus without a Secret Service stop
// the start saying why.
#include "FakeModelApi.h"
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"
#include "support/TestNetwork.h"

namespace fs = std::filesystem;
using sbit::contains;

namespace {

bool haveProgram(const std::string& name)
{
    return sbtest::run({"sh", "-c", "command -v " + name}).status == 0;
}

// Why the keyring tests cannot run here, or empty.
std::string missingKeyringTools()
{
    for (const char* program :
         {"dbus-run-session", "dbus-send", "gnome-keyring-daemon", "secret-tool"})
        if (!haveProgram(program))
            return std::string(program) +
                   " is not installed (scripts/deps.sh --tests installs dbus, gnome-keyring and "
                   "libsecret-tools)";
    return {};
}

} // namespace

TEST(KeyringSecrets, AnItemStoredWithSecretToolReachesItsHostAndNeverTheSandbox)
{
    if (auto why = missingKeyringTools(); !why.empty()) SB_SKIP(why);

    const std::string account = "user-" + sbit::uniqueToken();
    const std::string value = "kr-test-" + sbit::uniqueToken() + "-FROMTHEKEYRING";
    sbit::Sandbench sb;
    sbit::TestNetwork net{.names = {"model.test.example"}, .timeoutSeconds = 150};
    sbtest::TempDir server;
    auto pki = sbproxytest::makeTestPki(server.path(), "DNS:model.test.example");
    ASSERT_TRUE(pki.ok()) << pki.error().message;
    const std::string api = std::to_string(net.port + 2);
    const fs::path policy =
        sb.writePolicy(sbit::filledIn(R"({"version": 1,
      "network": {"mode": "filtered", "default": "deny", "rules": [
        {"action": "allow", "host": "model.test.example", "ports": [@API@]}]},
      "secrets": {
        "stored": {"from": {"keyring": {"service": "sandbench-test", "account": "@ACCOUNT@"}},
                   "hosts": ["model.test.example"], "ports": [@API@], "env": "STORED_KEY"},
        "spare": {"from": {"keyring": {"service": "sandbench-test", "account": "nobody-@ACCOUNT@"}},
                  "optional": true, "hosts": ["model.test.example"], "env": "SPARE_KEY"}}})",
                                      {{"@API@", api}, {"@ACCOUNT@", account}}));

    const std::string inside = R"SH(
echo "seen inside: [$STORED_KEY] spare: [${SPARE_KEY-unset}]"
curl -sS --max-time 20 -H "x-api-key: $STORED_KEY" https://model.test.example:@API@/echo-key
)SH";
    // In a D-Bus session of its own: the keyring unlocked with the test's password, the item
    // stored, a session that reads it; then the keyring locked and a session that cannot.
    const std::string script = R"SH(@START_API@
printf %s test-password | gnome-keyring-daemon --foreground --unlock --components=secrets \
  > /dev/null 2> keyring.err &
keyring=$!
for i in $(seq 100); do
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q "boolean true" &&
    break
  sleep 0.1
done
printf %s '@VALUE@' | secret-tool store --label="Sandbench test" service sandbench-test \
  account @ACCOUNT@ || echo "secret-tool store failed"
SSL_CERT_FILE=@CA@ @CLI@ run --workspace @WORKSPACE@ --session-id keyring --policy @POLICY@ \
  -- bash -c "$INSIDE"
echo "unlocked: $?"
dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
  org.freedesktop.Secret.Service.Lock \
  array:objpath:/org/freedesktop/secrets/collection/login > /dev/null
SSL_CERT_FILE=@CA@ @CLI@ run --workspace @WORKSPACE@ --session-id locked --policy @POLICY@ \
  -- true
echo "locked: $?"
kill $api $keyring
)SH";
    const std::map<std::string, std::string> words = {
        {"@START_API@",
         sbit::startFakeModelApi(server.path(), "198.18.0.1", net.port + 2, pki->serverCert,
                                 pki->serverKey, server / "keys.log")},
        {"@API@", api},
        {"@CA@", pki->caCert},
        {"@VALUE@", value},
        {"@ACCOUNT@", account},
        {"@CLI@", sbtest::cliPath()},
        {"@WORKSPACE@", sb.workspace().string()},
        {"@POLICY@", policy.string()}};
    auto result = net.run(
        sb,
        {"env", "INSIDE=" + sbit::filledIn(inside, words), "dbus-run-session", "--", "bash", "-c",
         "cd " + server.path().string() + " || exit 1\n" + sbit::filledIn(script, words)});
    const std::string context = result.out + result.err + sbtest::readFile(server / "api.err") +
                                sbtest::readFile(server / "keyring.err");
    ASSERT_EQ(result.status, 0) << context;
    ASSERT_FALSE(contains(result.out, "secret-tool store failed")) << context;

    // Read from the keyring: the start went ahead, the sandbox got a placeholder of the value's
    // shape, and the host got the value itself.
    EXPECT_TRUE(contains(result.out, "unlocked: 0")) << context;
    const std::string prefix = "seen inside: [";
    const auto seen = result.out.find(prefix);
    ASSERT_NE(seen, std::string::npos) << context;
    const std::string placeholder =
        result.out.substr(seen + prefix.size(), result.out.find(']', seen) - seen - prefix.size());
    EXPECT_TRUE(placeholder.starts_with("kr-test-")) << placeholder;
    EXPECT_EQ(placeholder.size(), value.size()) << placeholder;
    EXPECT_NE(placeholder, value);
    EXPECT_EQ(sbtest::readFile(server / "keys.log"), value + "\n");
    // The host's echo of the key comes back to the sandbox as the placeholder.
    EXPECT_TRUE(contains(result.out, "your key: " + placeholder)) << context;
    EXPECT_FALSE(contains(result.out, value));
    EXPECT_FALSE(contains(result.err, value));

    // The optional item the keyring does not have: left out, and the start says so.
    EXPECT_TRUE(contains(result.out, "spare: [unset]")) << context;
    EXPECT_TRUE(contains(result.err, "secret 'spare': no such item in the keyring; left out"))
        << context;

    // Locked (and no desktop to ask for its password): the start stops naming the secret.
    EXPECT_TRUE(contains(result.out, "locked: 125")) << context;
    EXPECT_TRUE(contains(result.err, "secret 'stored': the keyring is locked")) << context;
}

TEST(KeyringSecrets, WithoutASecretServiceTheStartSaysWhy)
{
    if (auto why = missingKeyringTools(); !why.empty()) SB_SKIP(why);

    sbit::Sandbench sb;
    // A session bus that can start no services: no keyring answers on it.
    sbtest::TempDir dir;
    const fs::path config = dir / "session.conf";
    sbtest::writeFile(config, R"(<!DOCTYPE busconfig PUBLIC
 "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
)");
    const fs::path policy = sb.writePolicy(R"({"version": 1,
      "secrets": {"stored": {"from": {"keyring": {"service": "sandbench-test", "account": "a"}},
                             "optional": true, "hosts": ["api.example.com"], "env": "KEY"}}})");
    auto r = sbtest::run({"dbus-run-session", "--config-file=" + config.string(), "--",
                          sbtest::cliPath(), "run", "--workspace", sb.workspace().string(),
                          "--policy", policy.string(), "--", "true"},
                         {}, sb.env(), 60);
    // Even an optional secret: a keyring that cannot be asked is not an item it lacks.
    EXPECT_EQ(r.status, 125) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "secret 'stored': the keyring could not be asked: The name "
                                "org.freedesktop.secrets was not provided"))
        << r.err;
}
