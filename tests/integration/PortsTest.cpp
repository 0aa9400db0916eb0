// Port previews end to end: a server in a session's sandbox listens on the sandbox's own
// loopback, `ports` sees it, `expose` makes it reachable on the host's 127.0.0.1 and nowhere
// else, `unexpose` takes it away. The forwarder alone is tested against host sockets first.
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"
#include "network/PortForward.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

using sbit::contains;
using sbit::dump;
using sbproxytest::ClientSocket;
using sbproxytest::EchoServer;
using sbproxytest::waitUntil;
using std::chrono::milliseconds;

namespace {

// Whether something accepts a TCP connection on the host's 127.0.0.1:port.
bool reachable(std::uint16_t port)
{
    sb::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
}

// A port nothing on the host listens on now, for a server inside a sandbox.
std::uint16_t freePort()
{
    for (std::uint16_t port = static_cast<std::uint16_t>(20000 + ::getpid() % 20000);; ++port)
        if (!reachable(port)) return port;
}

sb::Result<sb::UniqueFd> hostSocket(int family)
{
    sb::UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) return sb::sysError("socket");
    return fd;
}

std::string httpGet(std::uint16_t port, const std::string& path)
{
    return sbproxytest::rawExchange(port, "GET " + path +
                                              " HTTP/1.1\r\nHost: preview\r\nConnection: "
                                              "close\r\n\r\n");
}

} // namespace

TEST(PortForwarder, RelaysBothWaysAndCountsWhatNobodyAnswered)
{
    EchoServer echo;
    auto forwarder = sb::PortForwarder::start(hostSocket);
    ASSERT_TRUE(forwarder) << forwarder.error().describe();
    auto forward = (*forwarder)->expose(echo.port(), 0, "test");
    ASSERT_TRUE(forward) << forward.error().describe();
    EXPECT_NE(forward->hostPort, echo.port());
    {
        ClientSocket client(forward->hostPort);
        const std::string big(3 << 20, 'x'); // more than the relay's pipes hold
        std::thread writer([&] {
            client.send(big);
            client.shutdownWrite();
        });
        EXPECT_EQ(client.readAll().size(), big.size());
        writer.join();
    }
    // Exposing it again keeps the forward; another host port for it is refused by name.
    auto again = (*forwarder)->expose(echo.port(), 0, "test");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->hostPort, forward->hostPort);
    auto moved =
        (*forwarder)
            ->expose(echo.port(), static_cast<std::uint16_t>(forward->hostPort + 1), "test");
    ASSERT_FALSE(moved);
    EXPECT_TRUE(contains(moved.error().message, "already exposed at 127.0.0.1:"));
    // A host port in use is an error naming it.
    auto taken = (*forwarder)->expose(1, echo.port(), "test");
    ASSERT_FALSE(taken);
    EXPECT_TRUE(contains(taken.error().describe(), std::to_string(echo.port())));

    // Nothing listens: the connection is closed and counted, with the reason.
    const std::uint16_t silent = freePort();
    auto nobody = (*forwarder)->expose(silent, 0, "test");
    ASSERT_TRUE(nobody);
    EXPECT_EQ(ClientSocket(nobody->hostPort).readAll(), "");
    ASSERT_TRUE(waitUntil([&] {
        for (const auto& f : (*forwarder)->forwards())
            if (f.port == silent) return f.refused == 1;
        return false;
    }));
    for (const auto& f : (*forwarder)->forwards()) {
        if (f.port == echo.port()) {
            EXPECT_EQ(f.connections, 1u);
            EXPECT_EQ(f.bytesIn, 3u << 20);
            EXPECT_EQ(f.bytesOut, 3u << 20);
            EXPECT_EQ(f.open, 0u);
        } else {
            EXPECT_TRUE(contains(f.lastError, "nothing listens on port " + std::to_string(silent)))
                << f.lastError;
        }
    }

    ASSERT_FALSE((*forwarder)->close(silent));
    EXPECT_FALSE(reachable(nobody->hostPort));
    EXPECT_TRUE((*forwarder)->close(silent)); // not exposed any more
    (*forwarder)->stop();
    EXPECT_FALSE(reachable(forward->hostPort));
}

class Ports : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
    std::vector<std::string> sessions;

    std::string start(const std::string& name, std::vector<std::string> options = {})
    {
        std::vector<std::string> args = {"start", "--workspace", sb.workspace().string(), "--name",
                                         name};
        args.insert(args.end(), options.begin(), options.end());
        auto r = sb.cli(args);
        EXPECT_EQ(r.status, 0) << dump(r);
        sessions.push_back(name);
        return name;
    }
    void TearDown() override
    {
        for (const auto& s : sessions)
            (void)sb.cli({"kill", s});
    }
    // python3's http.server on the sandbox's 127.0.0.1:port, serving the workspace.
    void serve(const std::string& session, std::uint16_t port)
    {
        auto r = sb.cli({"exec", session, "--detach", "--", "python3", "-m", "http.server",
                         std::to_string(port), "--bind", "127.0.0.1"});
        ASSERT_EQ(r.status, 0) << dump(r);
    }
    nlohmann::json list(const std::string& session)
    {
        auto r = sb.cli({"ports", session, "--json"});
        EXPECT_EQ(r.status, 0) << dump(r);
        return nlohmann::json::parse(r.out, nullptr, false);
    }
    bool listening(const std::string& session, std::uint16_t port)
    {
        const auto ports = list(session);
        for (const auto& l : ports.value("listening", nlohmann::json::array()))
            if (l.value("port", 0) == port) return true;
        return false;
    }
};

TEST_F(Ports, AServerInTheSandboxIsReachableOnlyOnceExposed)
{
    sbtest::writeFile(sb.workspace() / "hello.txt", "hello from the sandbox\n");
    const std::string session = start("web");
    const std::uint16_t port = freePort();
    serve(session, port);
    ASSERT_TRUE(waitUntil([&] { return listening(session, port); }, milliseconds(15000)))
        << list(session).dump();
    // Its own loopback: not the host's.
    EXPECT_FALSE(reachable(port));

    auto exposed = sb.cli({"expose", session, std::to_string(port), "--json"});
    ASSERT_EQ(exposed.status, 0) << dump(exposed);
    const auto forward = nlohmann::json::parse(exposed.out);
    const auto hostPort = forward.value("host_port", std::uint16_t{0});
    ASSERT_NE(hostPort, 0);
    EXPECT_EQ(forward.value("url", ""), "http://127.0.0.1:" + std::to_string(hostPort) + "/");
    const std::string page = httpGet(hostPort, "/hello.txt");
    EXPECT_TRUE(contains(page, "200 OK")) << page;
    EXPECT_TRUE(contains(page, "hello from the sandbox")) << page;

    // Another session has a loopback of its own: neither the server nor its forward is there.
    const std::string other = start("other");
    const std::string probe = "import socket,sys\n"
                              "for p in sys.argv[1:]:\n"
                              "    try:\n"
                              "        socket.create_connection(('127.0.0.1', int(p)), 2)\n"
                              "        print(p, 'reached')\n"
                              "    except OSError as e:\n"
                              "        print(p, 'refused')\n";
    auto tried = sb.cli({"exec", other, "--", "python3", "-c", probe, std::to_string(port),
                         std::to_string(hostPort)});
    ASSERT_EQ(tried.status, 0) << dump(tried);
    EXPECT_EQ(tried.out,
              std::to_string(port) + " refused\n" + std::to_string(hostPort) + " refused\n");
    // Its forward of the same port leads into its own sandbox, where nothing listens.
    auto otherForward = sb.cli({"expose", other, std::to_string(port), "--json"});
    ASSERT_EQ(otherForward.status, 0) << dump(otherForward);
    const auto otherPort = nlohmann::json::parse(otherForward.out).value("host_port", 0);
    EXPECT_EQ(httpGet(static_cast<std::uint16_t>(otherPort), "/hello.txt"), "");
    ASSERT_TRUE(waitUntil([&] {
        const auto ports = list(other);
        for (const auto& f : ports["forwards"])
            if (f.value("refused", 0) == 1)
                return contains(f.value("last_error", ""), "nothing listens on port");
        return false;
    }));

    // The list tells the forward's use; the activity recorded who exposed it.
    ASSERT_TRUE(waitUntil([&] {
        const auto ports = list(session);
        for (const auto& f : ports["forwards"])
            if (f.value("port", 0) == port) return f.value("bytes_out", 0) > 0;
        return false;
    }));
    auto text = sb.cli({"ports", session});
    EXPECT_TRUE(contains(text.out, "exposed at http://127.0.0.1:" + std::to_string(hostPort)))
        << dump(text);

    ASSERT_EQ(sb.cli({"unexpose", session, std::to_string(port)}).status, 0);
    EXPECT_FALSE(reachable(hostPort));
    auto again = sb.cli({"unexpose", session, std::to_string(port)});
    EXPECT_NE(again.status, 0);
    EXPECT_TRUE(contains(again.err, "port " + std::to_string(port) + " is not exposed"))
        << dump(again);

    // The forward ends with its session.
    auto reexposed = sb.cli({"expose", session, std::to_string(port)});
    ASSERT_EQ(reexposed.status, 0) << dump(reexposed);
    const std::string url = reexposed.out.substr(0, reexposed.out.find('\n'));
    const auto second = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
    EXPECT_TRUE(reachable(second));
    ASSERT_EQ(sb.cli({"stop", session}).status, 0);
    ASSERT_TRUE(sb.waitUntilEnded(session));
    EXPECT_FALSE(reachable(second));
    auto events = sb.cli({"export", session, "--format", "jsonl"});
    EXPECT_TRUE(contains(events.out, "\"action\":\"exposed\"")) << dump(events);
    EXPECT_TRUE(contains(events.out, "\"by\":\"sandbench-cli expose\"")) << dump(events);
}

TEST_F(Ports, BadRequestsAreRefusedByName)
{
    const std::string session = start("bad");
    auto zero = sb.cli({"expose", session, "0"});
    EXPECT_EQ(zero.status, 2) << dump(zero);
    auto proxy = sb.cli({"expose", session, "3128"}); // filtered: the session's proxy is there
    EXPECT_NE(proxy.status, 0);
    EXPECT_TRUE(contains(proxy.err, "the session's own proxy")) << dump(proxy);
    auto unknown = sb.cli({"expose", "no-such-session", "8000"});
    EXPECT_NE(unknown.status, 0);
    EXPECT_TRUE(contains(unknown.err, "no-such-session")) << dump(unknown);
    // A host port in use on this machine.
    EchoServer busy;
    auto taken = sb.cli({"expose", session, "8000", "--host-port", std::to_string(busy.port())});
    EXPECT_NE(taken.status, 0);
    EXPECT_TRUE(contains(taken.err, "127.0.0.1:" + std::to_string(busy.port()))) << dump(taken);
}

TEST_F(Ports, WithTheHostsNetworkAPortIsItsOwnPreview)
{
    const std::string session = start("shared", {"--network", "host"});
    auto exposed = sb.cli({"expose", session, "8123", "--json"});
    ASSERT_EQ(exposed.status, 0) << dump(exposed);
    const auto forward = nlohmann::json::parse(exposed.out);
    EXPECT_EQ(forward.value("host_port", 0), 8123);
    EXPECT_TRUE(forward.value("shared", false));
    auto bad = sb.cli({"expose", session, "8123", "--host-port", "8124"});
    EXPECT_NE(bad.status, 0);
    EXPECT_TRUE(contains(bad.err, "shares the host's network")) << dump(bad);
    EXPECT_EQ(list(session).value("network", ""), "host");
}
