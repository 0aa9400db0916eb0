#include "network/ListeningPorts.h"

#include <algorithm>
#include <arpa/inet.h>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace sb {
namespace {

constexpr std::string_view kListen = "0A"; // TCP_LISTEN in the "st" column

// The kernel writes an address as the hex of its 32-bit words in host order.
bool parseAddress(std::string_view hex, bool v6, std::string& out)
{
    const std::size_t words = v6 ? 4 : 1;
    if (hex.size() != words * 8) return false;
    std::uint32_t raw[4] = {};
    for (std::size_t i = 0; i < words; ++i) {
        const char* begin = hex.data() + i * 8;
        auto [end, ec] = std::from_chars(begin, begin + 8, raw[i], 16);
        if (ec != std::errc() || end != begin + 8) return false;
    }
    char text[INET6_ADDRSTRLEN] = {};
    if (!::inet_ntop(v6 ? AF_INET6 : AF_INET, raw, text, sizeof text)) return false;
    out = text;
    return true;
}

} // namespace

std::vector<ListeningPort> parseListeningPorts(std::string_view text, bool v6)
{
    std::vector<ListeningPort> ports;
    std::size_t lineStart = 0;
    while (lineStart < text.size()) {
        std::size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string_view::npos) lineEnd = text.size();
        std::istringstream line{std::string(text.substr(lineStart, lineEnd - lineStart))};
        lineStart = lineEnd + 1;
        std::string slot, local, remote, state;
        if (!(line >> slot >> local >> remote >> state) || state != kListen) continue;
        const std::size_t colon = local.find(':');
        if (colon == std::string::npos || local.size() - colon - 1 != 4) continue;
        ListeningPort p;
        unsigned port = 0;
        auto [end, ec] =
            std::from_chars(local.data() + colon + 1, local.data() + local.size(), port, 16);
        if (ec != std::errc() || end != local.data() + local.size() || port == 0) continue;
        if (!parseAddress(std::string_view(local).substr(0, colon), v6, p.address)) continue;
        p.port = static_cast<std::uint16_t>(port);
        ports.push_back(std::move(p));
    }
    return ports;
}

Result<std::vector<ListeningPort>> listeningPorts(pid_t pid)
{
    std::vector<ListeningPort> all;
    for (const bool v6 : {false, true}) {
        const std::string path = "/proc/" + std::to_string(pid) + "/net/" + (v6 ? "tcp6" : "tcp");
        std::ifstream in(path);
        if (!in) {
            if (v6 && errno == ENOENT) continue; // IPv6 is off in this kernel
            return sysError("read " + path);
        }
        std::ostringstream text;
        text << in.rdbuf();
        auto found = parseListeningPorts(text.str(), v6);
        all.insert(all.end(), found.begin(), found.end());
    }
    std::sort(all.begin(), all.end(), [](const ListeningPort& a, const ListeningPort& b) {
        return a.port != b.port ? a.port < b.port : a.address < b.address;
    });
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

} // namespace sb
