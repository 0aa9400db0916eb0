// glibc's own stub resolver accepts DnsResponder's answers: a UDP server on 127.0.0.1 (a free
// port) answers with it, and getaddrinfo and res_query ask it, pointed there through the
// thread's resolver state (_res) as a program's /etc/resolv.conf would point them at
// 127.0.0.53 in the sandbox. Only loopback; no privileges.
#include "TestSupport.h"
#include "base/UniqueFd.h"
#include "network/DnsResponder.h"

#include <algorithm>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <atomic>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <resolv.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <variant>

using namespace sb;

namespace {

// The host side as the proxy would give it: names mapped to addresses; others do not exist.
Result<std::vector<IpAddress>> fakeResolve(const std::string& host)
{
    static const std::map<std::string, std::vector<const char*>> table = {
        {"www.sandbench-test.example", {"203.0.113.7", "2001:db8::7"}},
        {"v4only.sandbench-test.example", {"203.0.113.8"}},
        {"private.sandbench-test.example", {"10.0.0.1"}},
        {"denied.example", {"203.0.113.9"}},
    };
    auto found = table.find(host);
    if (found == table.end()) return Error{ErrorCode::NotFound, 0, "Name or service not known"};
    std::vector<IpAddress> out;
    for (const char* text : found->second)
        out.push_back(*IpAddress::parse(text));
    return out;
}

class DnsServer {
  public:
    DnsServer()
    {
        NetworkPolicy policy;
        policy.mode = NetworkMode::Filtered;
        policy.defaultAction = RuleAction::Deny;
        policy.rules = {{RuleAction::Allow, "*.sandbench-test.example", {443}, {}}};
        m_rules = std::move(NetworkRules::compile(policy)).value();
        m_fd = UniqueFd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(m_fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::getsockname(m_fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
            return;
        m_address = address;
        m_thread = std::thread([this] { serve(); });
    }
    ~DnsServer() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable()) m_thread.join();
    }
    bool ok() const { return m_thread.joinable(); }
    sockaddr_in address() const { return m_address; }
    int queries() const { return m_queries; }
    // After stop(): the responder belongs to the server's thread while it runs.
    std::optional<std::string> nameFor(const char* address)
    {
        return m_responder.nameFor(*IpAddress::parse(address));
    }

  private:
    void serve()
    {
        while (!m_stop) {
            pollfd p{m_fd.get(), POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            std::uint8_t buffer[4096];
            sockaddr_storage from{};
            socklen_t fromLength = sizeof from;
            ssize_t n = ::recvfrom(m_fd.get(), buffer, sizeof buffer, 0,
                                   reinterpret_cast<sockaddr*>(&from), &fromLength);
            if (n <= 0) continue;
            ++m_queries;
            auto step = m_responder.onQuery({buffer, static_cast<std::size_t>(n)}, m_rules);
            DnsResponder::Reply reply;
            if (auto* resolve = std::get_if<DnsResponder::Resolve>(&step))
                reply = m_responder.onResolved(*resolve, fakeResolve(resolve->host), m_rules);
            else
                reply = std::get<DnsResponder::Reply>(std::move(step));
            if (!reply.message.empty())
                ::sendto(m_fd.get(), reply.message.data(), reply.message.size(), 0,
                         reinterpret_cast<sockaddr*>(&from), fromLength);
        }
    }

    NetworkRules m_rules;
    DnsResponder m_responder;
    UniqueFd m_fd;
    sockaddr_in m_address{};
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_queries{0};
    std::thread m_thread;
};

// Runs `body` on a thread of its own whose resolver state (_res, per thread) asks only `server`:
// other tests' lookups keep the system's configuration.
template <typename Body>
void withResolverAt(const DnsServer& server, unsigned long extraOptions, Body body)
{
    std::thread([&] {
        ASSERT_EQ(res_init(), 0);
        _res.nsaddr_list[0] = server.address();
        _res.nscount = 1;
        _res.retrans = 2;
        _res.retry = 1;
        _res.options |= extraOptions;
        _res.options &= ~static_cast<unsigned long>(RES_DNSRCH); // no search domains
        body();
    }).join();
}

std::vector<std::string> getaddrinfoAll(const char* name, int& status)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    status = ::getaddrinfo(name, nullptr, &hints, &list);
    std::vector<std::string> out;
    for (auto* i = list; status == 0 && i; i = i->ai_next) {
        sockaddr_storage storage{};
        std::memcpy(&storage, i->ai_addr, i->ai_addrlen);
        out.push_back(IpAddress::fromSockaddr(storage)->toString());
    }
    if (list) ::freeaddrinfo(list);
    std::sort(out.begin(), out.end());
    return out;
}

// Why getaddrinfo would not reach the thread's resolver state here, or "" when it does: it asks
// the stub resolver only through nsswitch's "dns" source, and not at all while nscd answers, and
// systemd-resolved's "resolve" source before "dns" answers on its own.
std::string whyGetaddrinfoSkipsDns()
{
    if (::access("/var/run/nscd/socket", F_OK) == 0) return "nscd answers host lookups";
    std::ifstream in("/etc/nsswitch.conf");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("hosts:", 0) != 0) continue;
        std::istringstream sources(line.substr(6));
        for (std::string source; sources >> source;) {
            if (source == "dns") return {};
            if (source == "resolve") return "nsswitch.conf asks systemd-resolved first";
        }
        return "nsswitch.conf sends no host lookup to dns";
    }
    return {}; // without the file, glibc's default for hosts is "dns files"
}

} // namespace

TEST(DnsGlibc, GetaddrinfoTakesTheAnswers)
{
    if (auto why = whyGetaddrinfoSkipsDns(); !why.empty()) SB_SKIP(why);
    DnsServer server;
    ASSERT_TRUE(server.ok());
    for (unsigned long options : {0UL, static_cast<unsigned long>(RES_USE_EDNS0)}) {
        withResolverAt(server, options, [&] {
            int status = 0;
            // Mixed case, as a program may write it; glibc matches the echoed question.
            EXPECT_EQ(getaddrinfoAll("WwW.Sandbench-Test.example", status),
                      (std::vector<std::string>{"2001:db8::7", "203.0.113.7"}));
            EXPECT_EQ(status, 0) << gai_strerror(status);
            // AAAA gets NODATA: the IPv4 address alone comes back.
            EXPECT_EQ(getaddrinfoAll("v4only.sandbench-test.example", status),
                      (std::vector<std::string>{"203.0.113.8"}));
            // No rule allows it: NXDOMAIN, which glibc reports as a name that does not exist.
            getaddrinfoAll("denied.example", status);
            EXPECT_EQ(status, EAI_NONAME) << gai_strerror(status);
            // Allowed by name, but its only address is private: NXDOMAIN as well.
            getaddrinfoAll("private.sandbench-test.example", status);
            EXPECT_EQ(status, EAI_NONAME) << gai_strerror(status);
            getaddrinfoAll("missing.sandbench-test.example", status);
            EXPECT_EQ(status, EAI_NONAME) << gai_strerror(status);
        });
    }
    EXPECT_GT(server.queries(), 0) << "the lookups went to the test's server";
    server.stop();
    EXPECT_EQ(server.nameFor("203.0.113.7"), "www.sandbench-test.example");
    EXPECT_EQ(server.nameFor("10.0.0.1"), std::nullopt);
}

TEST(DnsGlibc, ResQueryReadsAnswersNodataAndNxdomain)
{
    DnsServer server;
    ASSERT_TRUE(server.ok());
    withResolverAt(server, 0, [&] {
        unsigned char answer[NS_PACKETSZ];
        int n = res_query("www.sandbench-test.example", ns_c_in, ns_t_a, answer, sizeof answer);
        ASSERT_GT(n, 0) << hstrerror(h_errno);
        // glibc's own reading of the message: one answer, an A record of 203.0.113.7.
        ns_msg message;
        ASSERT_EQ(ns_initparse(answer, n, &message), 0);
        ASSERT_EQ(ns_msg_count(message, ns_s_an), 1);
        ns_rr record;
        ASSERT_EQ(ns_parserr(&message, ns_s_an, 0, &record), 0);
        EXPECT_EQ(ns_rr_type(record), ns_t_a);
        EXPECT_EQ(ns_rr_ttl(record), 60u);
        EXPECT_STREQ(ns_rr_name(record), "www.sandbench-test.example");
        ASSERT_EQ(ns_rr_rdlen(record), 4);
        EXPECT_EQ(std::memcmp(ns_rr_rdata(record), "\xcb\x00\x71\x07", 4), 0);

        EXPECT_EQ(res_query("www.sandbench-test.example", ns_c_in, ns_t_mx, answer, sizeof answer),
                  -1);
        EXPECT_EQ(h_errno, NO_DATA);
        EXPECT_EQ(res_query("denied.example", ns_c_in, ns_t_a, answer, sizeof answer), -1);
        EXPECT_EQ(h_errno, HOST_NOT_FOUND);
    });
}
