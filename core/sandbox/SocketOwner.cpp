#include "sandbox/SocketOwner.h"

#include "base/AtomicFile.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

// An address as 16 bytes, IPv4 as IPv4-mapped, and its port: how the two tables' entries and
// the caller's sockaddr compare.
struct Endpoint {
    std::array<unsigned char, 16> address{};
    unsigned port = 0;
    bool any() const
    {
        static constexpr std::array<unsigned char, 16> zero{};
        static const std::array<unsigned char, 16> mappedZero = [] {
            std::array<unsigned char, 16> a{};
            a[10] = a[11] = 0xff;
            return a;
        }();
        return (address == zero || address == mappedZero) && port == 0;
    }
    bool operator==(const Endpoint&) const = default;
};

Endpoint endpointOf(const sockaddr_storage& s)
{
    Endpoint e;
    if (s.ss_family == AF_INET) {
        const auto& in = reinterpret_cast<const sockaddr_in&>(s);
        e.address[10] = e.address[11] = 0xff;
        std::memcpy(e.address.data() + 12, &in.sin_addr, 4);
        e.port = ntohs(in.sin_port);
    } else if (s.ss_family == AF_INET6) {
        const auto& in6 = reinterpret_cast<const sockaddr_in6&>(s);
        std::memcpy(e.address.data(), &in6.sin6_addr, 16);
        e.port = ntohs(in6.sin6_port);
    }
    return e;
}

// "0100007F:1F90" (IPv4) or 32 hex digits and a port (IPv6), as /proc/net/tcp prints them: each
// 32-bit word in this machine's byte order.
std::optional<Endpoint> parseProcEndpoint(const std::string& text)
{
    const auto colon = text.find(':');
    if (colon == std::string::npos || (colon != 8 && colon != 32)) return std::nullopt;
    Endpoint e;
    unsigned char* out = e.address.data();
    if (colon == 8) {
        e.address[10] = e.address[11] = 0xff;
        out += 12;
    }
    for (std::size_t word = 0; word < colon / 8; ++word) {
        const std::uint32_t value =
            static_cast<std::uint32_t>(std::stoul(text.substr(word * 8, 8), nullptr, 16));
        std::memcpy(out + word * 4, &value, 4);
    }
    e.port = static_cast<unsigned>(std::stoul(text.substr(colon + 1), nullptr, 16));
    return e;
}

std::vector<pid_t> childrenOf(pid_t pid)
{
    std::vector<pid_t> out;
    std::error_code ec;
    for (fs::directory_iterator task("/proc/" + std::to_string(pid) + "/task", ec), end;
         !ec && task != end; task.increment(ec)) {
        std::istringstream kids(readWholeFile(task->path() / "children"));
        for (pid_t child = 0; kids >> child;)
            out.push_back(child);
    }
    return out;
}

// Whether process `pid` holds socket `inode` among its descriptors.
// Calls visit(inode) for each socket among `pid`'s descriptors until it returns false.
template <class Visit> void forEachSocket(pid_t pid, Visit visit)
{
    const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
    DIR* dir = ::opendir(fds.c_str());
    if (dir == nullptr) return;
    while (const dirent* entry = ::readdir(dir)) {
        char target[64];
        const std::string link = fds + "/" + entry->d_name;
        const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
        if (n <= 8 || std::strncmp(target, "socket:[", 8) != 0) continue;
        target[n] = '\0';
        if (!visit(std::strtoul(target + 8, nullptr, 10))) break;
    }
    ::closedir(dir);
}

// Whether process `pid` holds socket `inode` among its descriptors.
bool holds(pid_t pid, unsigned long inode)
{
    bool found = false;
    forEachSocket(pid, [&](unsigned long socket) { return !(found = socket == inode); });
    return found;
}

} // namespace

SocketOwners::SocketOwners(pid_t initPid, int diagSocket) : m_initPid(initPid), m_diag(diagSocket)
{
}

SocketOwners::~SocketOwners()
{
    if (m_diag >= 0) ::close(m_diag);
}

// One socket by its addresses (SOCK_DIAG_BY_FAMILY without NLM_F_DUMP): the kernel looks it up
// in its hash instead of printing every connection it has.
std::optional<unsigned long> SocketOwners::askKernel(const sockaddr_storage& local,
                                                     const sockaddr_storage& remote, bool udp) const
{
    const Endpoint l = endpointOf(local), r = endpointOf(remote);
    const bool mapped = l.address[10] == 0xff && l.address[11] == 0xff &&
                        std::all_of(l.address.begin(), l.address.begin() + 10,
                                    [](unsigned char b) { return b == 0; });
    // An IPv4 socket, or an IPv6 one speaking IPv4 through mapped addresses.
    for (int family : mapped ? std::array{AF_INET, AF_INET6} : std::array{AF_INET6, 0}) {
        if (family == 0) break;
        struct {
            nlmsghdr header;
            inet_diag_req_v2 request;
        } message{};
        message.header.nlmsg_len = sizeof message;
        message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
        message.header.nlmsg_flags = NLM_F_REQUEST;
        message.request.sdiag_family = static_cast<std::uint8_t>(family);
        message.request.sdiag_protocol = udp ? IPPROTO_UDP : IPPROTO_TCP;
        message.request.idiag_states = ~0U;
        // TCP's lookup takes the socket's own address as the source; UDP's looks for the socket
        // a datagram from the source to the destination would reach, so there the socket's own
        // address is the destination.
        const Endpoint& source = udp ? r : l;
        const Endpoint& destination = udp ? l : r;
        inet_diag_sockid& id = message.request.id;
        id.idiag_sport = htons(static_cast<std::uint16_t>(source.port));
        id.idiag_dport = htons(static_cast<std::uint16_t>(destination.port));
        const std::size_t offset = family == AF_INET ? 12 : 0, size = family == AF_INET ? 4 : 16;
        std::memcpy(id.idiag_src, source.address.data() + offset, size);
        std::memcpy(id.idiag_dst, destination.address.data() + offset, size);
        id.idiag_cookie[0] = id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
        if (::send(m_diag, &message, sizeof message, 0) < 0) return std::nullopt;
        alignas(nlmsghdr) char reply[1024];
        const ssize_t n = ::recv(m_diag, reply, sizeof reply, 0);
        const auto* header = reinterpret_cast<const nlmsghdr*>(reply);
        if (n >= static_cast<ssize_t>(NLMSG_HDRLEN + sizeof(inet_diag_msg)) &&
            header->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            const auto* found = reinterpret_cast<const inet_diag_msg*>(reply + NLMSG_HDRLEN);
            if (found->idiag_inode != 0) return found->idiag_inode;
        }
    }
    return std::nullopt;
}

std::optional<unsigned long> SocketOwners::inodeOf(const sockaddr_storage& local,
                                                   const sockaddr_storage& remote, bool udp) const
{
    if (m_diag >= 0)
        if (auto inode = askKernel(local, remote, udp)) return inode;
    const Endpoint want = endpointOf(local), peer = endpointOf(remote);
    const std::string base = "/proc/" + std::to_string(m_initPid) + "/net/";
    for (const char* table : udp ? std::array{"udp", "udp6"} : std::array{"tcp", "tcp6"}) {
        std::ifstream in(base + table);
        std::string line;
        std::getline(in, line); // the header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string slot, localText, remoteText, state, queues, timer, retransmits, uid,
                timeout;
            unsigned long inode = 0;
            if (!(fields >> slot >> localText >> remoteText >> state >> queues >> timer >>
                  retransmits >> uid >> timeout >> inode))
                continue;
            try {
                auto l = parseProcEndpoint(localText), r = parseProcEndpoint(remoteText);
                // An unconnected UDP socket (sendto) has no peer in the table.
                if (l && r && *l == want && (*r == peer || (udp && r->any())) && inode != 0)
                    return inode;
            } catch (const std::exception&) { // a line of another format: not ours to read
            }
        }
    }
    return std::nullopt;
}

void SocketOwners::rescan()
{
    m_holders.clear();
    std::vector<pid_t> pending = childrenOf(m_initPid);
    for (std::size_t i = 0; i < pending.size() && i < 65536; ++i) {
        const pid_t pid = pending[i];
        forEachSocket(pid, [&](unsigned long inode) {
            m_holders.emplace(inode, pid);
            return true;
        });
        for (pid_t child : childrenOf(pid))
            pending.push_back(child);
    }
}

ProcessChain readProcessChain(pid_t hostPid, pid_t initPid)
{
    ProcessChain chain;
    for (pid_t pid = hostPid; pid > 0 && pid != initPid && chain.size() < 256;) {
        const std::string dir = "/proc/" + std::to_string(pid);
        ProcessInfo info;
        std::istringstream status(readWholeFile(dir + "/status"));
        for (std::string line; std::getline(status, line);)
            if (line.starts_with("NSpid:")) {
                std::istringstream pids(line.substr(6));
                for (std::int64_t p = 0; pids >> p;)
                    info.pid = p; // the innermost: the sandbox's number
            }
        std::error_code ec;
        info.program = fs::read_symlink(dir + "/exe", ec).string();
        const std::string cmdline = readWholeFile(dir + "/cmdline");
        for (std::size_t at = 0; at < cmdline.size();) {
            const std::size_t end = cmdline.find('\0', at);
            info.argv.push_back(cmdline.substr(at, end - at));
            if (end == std::string::npos) break;
            at = end + 1;
        }
        chain.push_back(std::move(info));
        // The parent: the fourth field of stat, after the command name in parentheses.
        const std::string stat = readWholeFile(dir + "/stat");
        const auto close = stat.rfind(')');
        std::istringstream rest(close == std::string::npos ? "" : stat.substr(close + 1));
        std::string state;
        pid_t parent = 0;
        if (!(rest >> state >> parent)) break;
        pid = parent;
        // Only a process of this sandbox leads to its init; anything else (a pid of a process
        // that ended, reused outside) is no answer.
        if (pid == initPid) return chain;
    }
    return {};
}

ProcessChain SocketOwners::chainOf(pid_t hostPid) const
{
    return readProcessChain(hostPid, m_initPid);
}

std::optional<pid_t> SocketOwners::holderOf(unsigned long inode)
{
    if (auto known = m_holders.find(inode); known != m_holders.end()) return known->second;
    // A new socket is most often another of a process that connected before.
    for (pid_t pid : m_recent)
        if (holds(pid, inode)) return m_holders[inode] = pid;
    rescan();
    if (auto found = m_holders.find(inode); found != m_holders.end()) return found->second;
    return std::nullopt;
}

ProcessChain SocketOwners::owner(const sockaddr_storage& local, const sockaddr_storage& remote,
                                 bool udp)
{
    auto inode = inodeOf(local, remote, udp);
    if (!inode) return {};
    auto holder = holderOf(*inode);
    ProcessChain chain = holder ? chainOf(*holder) : ProcessChain{};
    if (holder && chain.empty()) { // that process has gone: whoever holds the socket now
        m_holders.erase(*inode);
        rescan();
        if (auto again = m_holders.find(*inode); again != m_holders.end()) {
            holder = again->second;
            chain = chainOf(*holder);
        }
    }
    if (!chain.empty()) {
        const pid_t found = *holder;
        std::erase(m_recent, found);
        m_recent.push_front(found);
        if (m_recent.size() > 8) m_recent.pop_back();
    }
    return chain;
}

} // namespace sb
