// Every connection of a filtered sandbox meets the policy, also from programs that ignore the
// proxy variables (issue 34). The sessions run inside test-network (tests/probe): a network
// namespace of the test's own where 198.18.0.1 and 2001:db8::1 are local addresses with an HTTP
// server on them, so the proxy's upstream connections stay on this machine, as root and as an
// unprivileged user alike.
#include "IntegrationSupport.h"
#include "support/TestNetwork.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;

namespace {

class Transparent : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    sbit::TestNetwork net{.timeoutSeconds = 120};
    const int port = net.port;

    // `run` of `script` (bash) in a session `id` under `policy`, inside the test network.
    // PORT in the script is the test server's port, OTHER one nobody listens on.
    sbtest::RunResult run(const std::string& id, const fs::path& policy, std::string script)
    {
        for (auto [word, value] :
             {std::pair{std::string("PORT"), port}, std::pair{std::string("OTHER"), port + 1}})
            for (auto at = script.find(word); at != std::string::npos; at = script.find(word))
                script.replace(at, word.size(), std::to_string(value));
        return net.session(sb, id, policy, script);
    }

    fs::path allowPolicy()
    {
        const std::string p = std::to_string(port);
        return sb.writePolicy(R"({"version": 1, "network": {"mode": "filtered", "default": "deny",
            "rules": [{"action": "allow", "host": "198.18.0.1", "ports": [)" +
                              p + R"(]},
                      {"action": "allow", "host": "2001:db8::1", "ports": [)" +
                              p + R"(]}]}})");
    }

    std::vector<nlohmann::json> networkDecisions(const std::string& id)
    {
        return sbit::networkDecisions(sb, id);
    }
};

// A plain socket, whatever the language: Python's, with and without O_NONBLOCK, IPv4 and IPv6,
// and Node's fetch() (undici, which ignores HTTP_PROXY): allowed destinations answer, and the
// program's socket names the destination as its peer.
TEST_F(Transparent, ProgramsThatIgnoreTheProxyReachAnAllowedDestination)
{
    const std::string script = R"SH(
python3 - <<'EOF'
import socket, select, errno
def get(family, address, blocking=True):
    s = socket.socket(family)
    if blocking:
        s.settimeout(10)
        s.connect((address, PORT))
    else:
        s.setblocking(False)
        rc = s.connect_ex((address, PORT))
        print("nonblocking connect:", errno.errorcode.get(rc, rc))
        select.select([], [s], [], 10)
        print("connect result:", s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))
        s.setblocking(True)
        s.settimeout(10)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    reply = b""
    while True:
        chunk = s.recv(4096)
        if not chunk: break
        reply += chunk
    print("peer", s.getpeername()[0], "body", reply.split(b"\r\n\r\n", 1)[-1].decode().strip())
get(socket.AF_INET, "198.18.0.1")
get(socket.AF_INET6, "2001:db8::1")
get(socket.AF_INET, "198.18.0.1", blocking=False)
# TCP Fast Open: sendto() opens the connection and carries the first bytes.
s = socket.socket()  # blocking: without a cookie, sendto() waits for the handshake
s.sendto(b"GET / HTTP/1.0\r\n\r\n", socket.MSG_FASTOPEN, ("198.18.0.1", PORT))
s.settimeout(10)
print("fastopen", s.makefile("rb").read().split(b"\r\n\r\n", 1)[-1].decode().strip())
EOF
printf 'GET / HTTP/1.0\r\n\r\n' | nc -N 198.18.0.1 PORT | tail -n 1 | sed 's/^/nc: /'
node -e 'fetch("http://198.18.0.1:PORT/").then(r => r.text()).then(t => console.log("fetch:", t.trim()), e => console.log("fetch failed:", e.cause ?? e))'
)SH";
    auto r = run("plain", allowPolicy(), script);
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "peer 198.18.0.1 body hello from 198.18.0.1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "peer 2001:db8::1 body hello from 2001:db8::1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "nonblocking connect: EINPROGRESS")) << dump(r);
    EXPECT_TRUE(contains(r.out, "connect result: 0")) << dump(r);
    EXPECT_TRUE(contains(r.out, "fetch: hello from 198.18.0.1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "fastopen hello from 198.18.0.1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "nc: hello from 198.18.0.1")) << dump(r);

    auto decisions = networkDecisions("plain");
    ASSERT_GE(decisions.size(), 4u) << sb.cli({"export", "plain", "--format", "jsonl"}).out;
    for (const auto& d : decisions) {
        EXPECT_EQ(d.value("protocol", ""), "tcp") << d.dump();
        EXPECT_EQ(d.value("decision", ""), "allow") << d.dump();
        EXPECT_TRUE(contains(d.value("rule", ""), "rule ")) << d.dump();
    }
    auto show = sb.cli({"show", "plain"});
    EXPECT_TRUE(contains(show.out, "198.18.0.1:" + std::to_string(port))) << dump(show);
}

// What the policy does not allow is refused in connect() itself, as a closed port would be
// (ECONNREFUSED, blocking or not), and recorded with the rule and the program; a datagram sent
// to an address outside the sandbox fails (EPERM) and is recorded once, ICMP echo likewise
// (DNS has the sandbox's own resolver).
TEST_F(Transparent, WhatThePolicyDoesNotAllowIsRefusedAndRecorded)
{
    const std::string script = R"SH(
python3 - <<'EOF'
import socket, select, errno
for family, address in [(socket.AF_INET, "198.18.0.1"), (socket.AF_INET6, "2001:db8::1")]:
    s = socket.socket(family)
    s.settimeout(10)
    try:
        s.connect((address, OTHER))
        print("CONNECTED", address)
    except OSError as e:
        print("refused", address, errno.errorcode.get(e.errno, e.errno))
s = socket.socket()
s.setblocking(False)
rc = s.connect_ex(("198.18.0.1", OTHER))
if rc == errno.EINPROGRESS:
    select.select([], [s], [], 10)
    rc = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
print("nonblocking", errno.errorcode.get(rc, rc))
f = socket.socket()
try:
    f.sendto(b"x", socket.MSG_FASTOPEN, ("198.18.0.1", OTHER))
    print("FASTOPEN SENT")
except OSError as e:
    print("fastopen refused", errno.errorcode.get(e.errno, e.errno))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(3):
    try:
        u.sendto(b"x", ("198.18.0.1", 9))
        print("UDP SENT")
    except OSError as e:
        print("udp refused", errno.errorcode.get(e.errno, e.errno))
try:
    ping = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
    ping.sendto(b"\x08\x00\x00\x00\x00\x01\x00\x01", ("198.18.0.1", 0))
    print("PING SENT")
except OSError as e:
    print("ping refused", e.errno)
EOF
)SH";
    auto r = run("refused", allowPolicy(), script);
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_FALSE(contains(r.out, "CONNECTED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "refused 198.18.0.1 ECONNREFUSED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "refused 2001:db8::1 ECONNREFUSED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "nonblocking ECONNREFUSED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "fastopen refused ECONNREFUSED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "udp refused EPERM")) << dump(r);
    EXPECT_FALSE(contains(r.out, "UDP SENT")) << dump(r);
    EXPECT_FALSE(contains(r.out, "PING SENT")) << dump(r);

    int tcp = 0, udp = 0;
    for (const auto& d : networkDecisions("refused")) {
        EXPECT_EQ(d.value("decision", ""), "deny") << d.dump();
        ASSERT_TRUE(d.contains("process") && !d["process"].empty()) << d.dump();
        EXPECT_TRUE(contains(d["process"][0].value("program", ""), "python3")) << d.dump();
        if (d.value("protocol", "") == "tcp") {
            ++tcp;
            EXPECT_EQ(d.value("rule", ""), "default (deny)") << d.dump();
            EXPECT_GT(d.value("command_id", 0), 0) << "the command that tried\n" << d.dump();
            EXPECT_EQ(d.value("port", 0), port + 1) << d.dump();
        } else if (d.value("protocol", "") == "udp") {
            ++udp;
            EXPECT_TRUE(contains(d.value("rule", ""), "only TCP leaves the sandbox")) << d.dump();
            EXPECT_EQ(d.value("port", 0), 9) << d.dump();
        }
    }
    EXPECT_EQ(tcp, 4);
    EXPECT_EQ(udp, 1) << "three datagrams to one destination make one event";
}

// The sandbox's own loopback stays its own: a server the agent starts inside is reached
// directly, never through the proxy.
TEST_F(Transparent, TheSandboxesOwnLoopbackIsNotRedirected)
{
    const std::string script = R"SH(
python3 - <<'EOF'
import socket, threading
server = socket.socket(socket.AF_INET6)
server.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
server.bind(("::", 8765))
server.listen()
def serve():
    for _ in range(2):
        c, _ = server.accept()
        c.sendall(b"inside")
        c.close()
threading.Thread(target=serve, daemon=True).start()
for address in ["127.0.0.1", "::1"]:
    s = socket.create_connection((address, 8765), timeout=10)
    print("loopback", address, s.recv(10).decode())
EOF
)SH";
    auto r = run("loopback", allowPolicy(), script);
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "loopback 127.0.0.1 inside")) << dump(r);
    EXPECT_TRUE(contains(r.out, "loopback ::1 inside")) << dump(r);
    EXPECT_TRUE(networkDecisions("loopback").empty());
}

// Names: the sandbox's resolver answers what the rules could allow (resolved on the host, whose
// /etc/hosts knows the test names), refuses the rest with NXDOMAIN, records each lookup, and a
// connection to an address it answered is decided by the name (a rule names only the name).
TEST_F(Transparent, NamesAreLookedUpOnTheHostAndConnectionsDecidedByThem)
{
    const std::string p = std::to_string(port);
    auto policy =
        sb.writePolicy(R"({"version": 1, "network": {"mode": "filtered", "default": "deny",
        "rules": [{"action": "allow", "host": "api.test.example", "ports": [)" +
                       p + R"(]}]}})");
    const std::string script = R"SH(
getent hosts api.test.example
getent hosts other.test.example || echo "other: not found"
python3 - <<'EOF'
import socket
print("getaddrinfo:", sorted({a[4][0] for a in socket.getaddrinfo("api.test.example", PORT, type=socket.SOCK_STREAM)}))
for family in (socket.AF_INET, socket.AF_INET6):
    s = socket.create_connection((socket.getaddrinfo("api.test.example", PORT, family)[0][4][0], PORT), timeout=10)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    print("by name:", s.makefile("rb").read().split(b"\r\n\r\n", 1)[-1].decode().strip())
EOF
curl -s "http://api.test.example:PORT/" | sed 's/^/through the proxy: /'
)SH";
    auto r = run("names", policy, script);
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "     api.test.example\n")) << "getent\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "other: not found")) << dump(r);
    EXPECT_TRUE(contains(r.out, "getaddrinfo: ['198.18.0.1', '2001:db8::1']")) << dump(r);
    EXPECT_TRUE(contains(r.out, "by name: hello from 198.18.0.1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "by name: hello from 2001:db8::1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "through the proxy: hello from ")) << dump(r);

    auto exported = sb.cli({"export", "names", "--format", "jsonl"});
    std::istringstream lines(exported.out);
    bool answered = false, refused = false;
    for (std::string line; std::getline(lines, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || j.value("type", "") != "network_request") continue;
        const auto& e = j["payload"];
        if (e.value("type", "") != "lookup") continue;
        if (e.value("host", "") == "api.test.example" && e.value("rcode", "") == "NOERROR" &&
            !e["addresses"].empty())
            answered = true;
        if (e.value("host", "") == "other.test.example" && e.value("rcode", "") == "NXDOMAIN") {
            refused = true;
            EXPECT_TRUE(e.contains("process") &&
                        contains(e["process"][0].value("program", ""), "getent"))
                << e.dump();
        }
    }
    EXPECT_TRUE(answered) << exported.out;
    EXPECT_TRUE(refused) << exported.out;
    // Who asked: the process found behind the socket, and its parents up to the session's
    // command (bash -c SCRIPT).
    for (const auto& d : networkDecisions("names")) {
        EXPECT_EQ(d.value("host", ""), "api.test.example") << d.dump();
        EXPECT_EQ(d.value("decision", ""), "allow") << d.dump();
        ASSERT_TRUE(d.contains("process") && d["process"].size() >= 2) << d.dump();
        const std::string program = d["process"][0].value("program", "");
        EXPECT_TRUE(contains(program, d.value("protocol", "") == "http" ? "curl" : "python3"))
            << d.dump();
        EXPECT_GT(d["process"][0].value("pid", 0), 1) << d.dump();
        EXPECT_EQ(d["process"].back()["argv"][0], "bash") << d.dump();
    }
    EXPECT_EQ(networkDecisions("names").size(), 3u);
    auto show = sb.cli({"show", "names"});
    EXPECT_TRUE(contains(show.out, "api.test.example:" + p + " by python3")) << dump(show);
    EXPECT_TRUE(contains(show.out, "api.test.example:" + p + " by curl")) << dump(show);
}

// A rule that names a program lets that program through and nobody else: python3 reaches the
// host, curl (through the proxy) and a python3 run by a shell script named otherwise do not
// matter; curl falls to the default.
TEST_F(Transparent, ARuleNamingAProgramHoldsForItAlone)
{
    const std::string p = std::to_string(port);
    auto policy =
        sb.writePolicy(R"({"version": 1, "network": {"mode": "filtered", "default": "deny",
        "rules": [{"action": "allow", "host": "api.test.example", "ports": [)" +
                       p + R"(], "program": "python3*"}]}})");
    const std::string script = R"SH(
python3 - <<'EOF'
import socket
s = socket.create_connection(("api.test.example", PORT), timeout=10)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
print("python3:", s.makefile("rb").read().split(b"\r\n\r\n", 1)[-1].decode().strip())
EOF
curl -s -o /dev/null -w 'curl: %{http_code}\n' "http://api.test.example:PORT/"
)SH";
    auto r = run("program", policy, script);
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "python3: hello from ")) << dump(r);
    EXPECT_TRUE(contains(r.out, "curl: 403")) << dump(r);
    bool curlDenied = false;
    for (const auto& d : networkDecisions("program")) {
        const std::string program = d["process"][0].value("program", "");
        if (contains(program, "curl")) {
            curlDenied = d.value("decision", "") == "deny";
            EXPECT_EQ(d.value("rule", ""), "default (deny)") << d.dump();
        } else {
            EXPECT_EQ(d.value("decision", ""), "allow") << d.dump();
            EXPECT_TRUE(contains(d.value("rule", ""), "python3")) << d.dump();
        }
    }
    EXPECT_TRUE(curlDenied);
}

// A connection the policy asks about waits in connect() for the answer, which a second client
// gives (sandbench-cli approve); the request names the program. Many connections at once are
// each decided and relayed; one denied when asked fails with ECONNREFUSED.
TEST_F(Transparent, AnAskedConnectionWaitsForASecondClientsAnswer)
{
    const std::string p = std::to_string(port);
    auto policy = sb.writePolicy(R"({"version": 1, "network": {"mode": "filtered", "default": "ask",
        "rules": [{"action": "allow", "host": "2001:db8::1", "ports": [)" +
                                 p + R"(]}]},
        "approvals": {"timeout_seconds": 60, "on_timeout": "deny"}})");
    const std::string cli = sbtest::cliPath();
    const std::string script = cli + " run --workspace " + sbit::quote(sb.workspace().string()) +
                               " --session-id asked --policy " + sbit::quote(policy.string()) +
                               R"( -- python3 -c '
import socket
s = socket.create_connection(("198.18.0.1", PORT), timeout=60)
print("connected after the answer", flush=True)
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
print("asked:", s.makefile("rb").read().split(b"\r\n\r\n", 1)[-1].decode().strip())
many = [socket.create_connection(("2001:db8::1", PORT), timeout=30) for _ in range(200)]
for c in many:
    c.sendall(b"GET / HTTP/1.0\r\n\r\n")
print("many:", sum(1 for c in many if b"hello from 2001:db8::1" in c.makefile("rb").read()))
try:
    socket.create_connection(("198.18.0.1", OTHER), timeout=60)
    print("SECOND CONNECTED")
except OSError as e:
    print("second refused", e.errno)
' &
run=$!
waitFor() {
  for i in $(seq 300); do
    pending=$()" + cli + R"( pending asked --json 2>/dev/null)
    case "$pending" in *"$1"*) break;; esac
    sleep 0.1
  done
}
waitFor PORT
echo "approving, pending: $pending"
)" + cli + R"( approve asked 1 allow --scope hostport
waitFor OTHER
)" + cli + R"( approve asked 2 deny
wait $run
)";
    std::string expanded = script;
    for (auto [word, value] : {std::pair{std::string("PORT"), port}, {"OTHER", port + 1}})
        for (auto at = expanded.find(word); at != std::string::npos; at = expanded.find(word))
            expanded.replace(at, word.size(), std::to_string(value));
    auto r = net.run(sb, {"bash", "-c", expanded});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "\"program\"")) << "the request names the program\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "python3")) << dump(r);
    EXPECT_TRUE(contains(r.out, "asked: hello from 198.18.0.1")) << dump(r);
    // connect() itself waited for the answer.
    EXPECT_LT(r.out.find("approving"), r.out.find("connected after the answer")) << dump(r);
    EXPECT_TRUE(contains(r.out, "many: 200")) << dump(r);
    EXPECT_TRUE(contains(r.out, "second refused 111")) << "ECONNREFUSED\n" << dump(r);
    auto decisions = networkDecisions("asked");
    ASSERT_EQ(decisions.size(), 202u);
    EXPECT_EQ(decisions.front().value("decision", ""), "allow") << decisions.front().dump();
    EXPECT_TRUE(decisions.front().value("asked", false)) << decisions.front().dump();
    EXPECT_EQ(decisions.back().value("decision", ""), "deny") << decisions.back().dump();
    EXPECT_TRUE(decisions.back().value("asked", false)) << decisions.back().dump();
    EXPECT_EQ(decisions.back().value("port", 0), port + 1) << decisions.back().dump();
}

// doctor says whether connections are redirected; on a machine whose kernel has nftables NAT
// (CI's), they must be, as root and as a user.
TEST_F(Transparent, DoctorReportsTheTransparentNetwork)
{
    auto doctor = sb.cli({"doctor"});
    ASSERT_TRUE(contains(doctor.out, "transparent network")) << dump(doctor);
    if (!contains(doctor.out, "ok      transparent network"))
        SB_SKIP("this kernel cannot redirect a sandbox's connections: " + doctor.out);
}

} // namespace
