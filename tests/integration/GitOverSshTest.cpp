// git over ssh through the transparent network (issue 34): ssh ignores the proxy variables, so
// in a filtered session its connection is redirected to the proxy and decided there like any
// other, by a rule that names the program. The server is Debian's openssh-server, an sshd the
// test starts with a configuration, a host key and a user key of its own, listening on
// 198.18.0.1 inside test-network (tests/probe), a network namespace of the test's own: nothing
// leaves the machine, as root and as an unprivileged user alike.
#include "IntegrationSupport.h"
#include "support/TestNetwork.h"

#include <nlohmann/json.hpp>
#include <pwd.h>
#include <unistd.h>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;
using sbit::quote;

namespace {

class GitOverSsh : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    sbtest::TempDir server; // sshd's configuration and keys, and the repository it serves
    // test-network's own HTTP server takes its port; sshd listens beside it.
    sbit::TestNetwork net{.timeoutSeconds = 120};
    const int sshPort = net.port + 2;
};

// ssh, git clone and git push over ssh reach the server a rule naming /usr/bin/ssh allows; curl
// is refused the same host and port, directly (the transparent network) and through the proxy.
TEST_F(GitOverSsh, ARuleNamingSshLetsGitThroughAndNotCurl)
{
    for (const char* program : {"/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen"})
        if (::access(program, X_OK) != 0)
            SB_SKIP(std::string(program) +
                    " is missing: the test's ssh server is Debian's openssh-server "
                    "(scripts/deps.sh --tests installs it)");
    const passwd* pw = ::getpwuid(::geteuid());
    ASSERT_NE(pw, nullptr);
    const std::string user = pw->pw_name; // sshd, not root when the test is not, lets only it in
    const std::string token = sbit::uniqueToken();
    const fs::path keys = sb.workspace() / "keys"; // the sandbox sees the project, not the server
    fs::create_directories(keys);
    const std::string ssh = "ssh -i " + (keys / "client").string() +
                            " -o UserKnownHostsFile=" + (keys / "known_hosts").string() +
                            " -o BatchMode=yes -o StrictHostKeyChecking=yes";
    const std::string remote = "ssh://" + user + "@198.18.0.1:" + std::to_string(sshPort) +
                               (server.path() / "repo.git").string();
    const std::vector<std::pair<std::string, std::string>> words = {
        {"@SSHPORT@", std::to_string(sshPort)},
        {"@SERVER@", quote(server.path().string())},
        {"@KEYS@", quote(keys.string())},
        {"@WORKSPACE@", quote(sb.workspace().string())},
        {"@CLI@", quote(sbtest::cliPath())},
        {"@REMOTE@", quote(remote)},
        {"@USER@", user},
        {"@TOKEN@", token}};
    auto fill = [&words](std::string text) {
        for (const auto& [word, value] : words)
            for (auto at = text.find(word); at != std::string::npos;
                 at = text.find(word, at + value.size()))
                text.replace(at, word.size(), value);
        return text;
    };
    // Inside the sandbox (ssh reads no proxy variable anyway).
    sbtest::writeFile(keys / "inside.sh", fill("export GIT_SSH_COMMAND=" + quote(ssh) + R"SH(
cd @WORKSPACE@
$GIT_SSH_COMMAND -p @SSHPORT@ @USER@@198.18.0.1 'echo "ssh: reached $(id -un)"'
git clone -q @REMOTE@ clone && echo "git clone: $(cat clone/README)"
cd clone && echo more > more.txt && git add more.txt &&
  git -c user.name=agent -c user.email=agent@example.invalid commit -qm "pushed from the sandbox" &&
  git push -q origin HEAD:main && echo "git push: done"
cd ..
curl --noproxy '*' --http0.9 -sS -m 20 http://198.18.0.1:@SSHPORT@/; echo "curl direct: $?"
curl --http0.9 -sS -m 20 -o /dev/null -w 'curl through the proxy: %{http_code}\n' \
  http://198.18.0.1:@SSHPORT@/
true
)SH"));
    const std::string policy =
        sb.writePolicy(fill(R"({"version": 1, "network": {"mode": "filtered", "default": "deny",
        "rules": [{"action": "allow", "host": "198.18.0.1", "ports": [@SSHPORT@],
                   "program": "/usr/bin/ssh"}]}})"))
            .string();
    // Outside the sandbox, in test-network's namespace: the keys, a repository with one commit,
    // sshd (as root in a mount namespace of its own whose /run holds the privilege separation
    // folder a system sshd would have made), the session, then what the server received.
    const std::string script = fill(R"SH(
set -u
cd @SERVER@
ssh-keygen -q -t ed25519 -N '' -C test-host -f host_key
ssh-keygen -q -t ed25519 -N '' -C test-user -f @KEYS@/client
cp @KEYS@/client.pub authorized_keys
printf '[198.18.0.1]:@SSHPORT@ %s\n' "$(cut -d' ' -f1,2 host_key.pub)" > @KEYS@/known_hosts
git init -q --bare repo.git && git -C repo.git symbolic-ref HEAD refs/heads/main
git init -q seed && echo @TOKEN@ > seed/README && git -C seed add README &&
  git -C seed -c user.name=test -c user.email=test@example.invalid commit -qm seed &&
  git -C seed push -q "$PWD/repo.git" HEAD:refs/heads/main
cat > sshd_config <<EOF
ListenAddress 198.18.0.1:@SSHPORT@
HostKey $PWD/host_key
AuthorizedKeysFile $PWD/authorized_keys
AllowUsers @USER@
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel VERBOSE
EOF
if [ "$(id -u)" -eq 0 ]; then
  unshare -m sh -c 'mount -t tmpfs -o mode=755 tmpfs /run && mkdir -m 755 /run/sshd &&
    exec /usr/sbin/sshd -D -e -f "$1"' sh "$PWD/sshd_config" 2> sshd.log &
else
  /usr/sbin/sshd -D -e -f "$PWD/sshd_config" 2> sshd.log &
fi
sshd=$!
for i in $(seq 300); do
  grep -q 'Server listening' sshd.log && break
  kill -0 $sshd 2>/dev/null || break
  sleep 0.1
done
@CLI@ run --workspace @WORKSPACE@ --session-id ssh --policy )SH" +
                                    quote(policy) + R"SH( -- bash @KEYS@/inside.sh
echo "session: $?"
kill $sshd; wait $sshd
git -C repo.git log --format='server has: %s' main
sed 's/^/sshd: /' sshd.log
)SH");
    auto r = net.run(sb, {"bash", "-c", script});
    ASSERT_EQ(r.status, 0) << dump(r);
    ASSERT_TRUE(
        contains(r.out, "sshd: Server listening on 198.18.0.1 port " + std::to_string(sshPort)))
        << dump(r);
    EXPECT_TRUE(contains(r.out, "session: 0")) << dump(r);
    EXPECT_TRUE(contains(r.out, "ssh: reached " + user + "\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "git clone: " + token + "\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "git push: done")) << dump(r);
    EXPECT_TRUE(contains(r.out, "server has: pushed from the sandbox")) << dump(r);
    // curl never met sshd: no banner, a failed transfer, a 403 from the proxy.
    EXPECT_FALSE(contains(r.out, "SSH-2.0")) << dump(r);
    EXPECT_FALSE(contains(r.out, "curl direct: 0\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "curl direct: ")) << dump(r);
    EXPECT_TRUE(contains(r.out, "curl through the proxy: 403")) << dump(r);

    // Each decision names its program: ssh's are allowed by the rule, curl's denied by default.
    int sshAllowed = 0, curlDenied = 0;
    for (const auto& d : sbit::networkDecisions(sb, "ssh")) {
        ASSERT_TRUE(d.contains("process") && !d["process"].empty()) << d.dump();
        const std::string program = d["process"][0].value("program", "");
        EXPECT_EQ(d.value("port", 0), sshPort) << d.dump();
        if (program == "/usr/bin/ssh") {
            EXPECT_EQ(d.value("decision", ""), "allow") << d.dump();
            EXPECT_TRUE(contains(d.value("rule", ""), "/usr/bin/ssh")) << d.dump();
            sshAllowed += d.value("decision", "") == "allow";
        } else {
            EXPECT_TRUE(contains(program, "curl")) << d.dump();
            EXPECT_EQ(d.value("decision", ""), "deny") << d.dump();
            EXPECT_EQ(d.value("rule", ""), "default (deny)") << d.dump();
            curlDenied += d.value("decision", "") == "deny";
        }
    }
    EXPECT_EQ(sshAllowed, 3) << "ssh, git clone, git push";
    EXPECT_EQ(curlDenied, 2) << "curl directly and through the proxy";
}

} // namespace
