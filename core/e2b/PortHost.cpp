// getHost(port): the SDK names a sandbox's port PORT-SANDBOX.DOMAIN, and this API's domain is
// "localhost:N" (N the port it answers on), so such a name reaches this server. A request whose
// Host is one is relayed to the port's preview, which the session's supervisor forwards to the
// port inside the sandbox (`sandbench-cli expose`, docs/workspace.md "Port previews"), made at
// the first request (PortProxy.cpp relays).
#include "e2b/E2bInternal.h"

#include <charconv>

namespace sb::e2b {

using json = nlohmann::json;

Result<unsigned> Launcher::preview(const std::string&, unsigned)
{
    return unsupported("this server forwards no ports");
}

namespace {

constexpr std::string_view kLocalhost = ".localhost";

std::optional<unsigned> portNumber(std::string_view text)
{
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value == 0 ||
        value > 65535)
        return std::nullopt;
    return value;
}

} // namespace

std::optional<PortHost> parsePortHost(std::string_view host)
{
    // PORT-SANDBOX.localhost, with ":N" after it or not; the name in any case.
    if (const std::size_t colon = host.rfind(':');
        colon != std::string_view::npos && host.find(']') == std::string_view::npos) {
        if (!portNumber(host.substr(colon + 1))) return std::nullopt;
        host = host.substr(0, colon);
    }
    if (!host.empty() && host.back() == '.') host.remove_suffix(1);
    if (host.size() <= kLocalhost.size()) return std::nullopt;
    const std::string_view suffix = host.substr(host.size() - kLocalhost.size());
    for (std::size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(suffix[i])) != kLocalhost[i])
            return std::nullopt;
    const std::string_view label = host.substr(0, host.size() - kLocalhost.size());
    const std::size_t dash = label.find('-');
    if (dash == std::string_view::npos || dash + 1 >= label.size()) return std::nullopt;
    auto port = portNumber(label.substr(0, dash));
    if (!port) return std::nullopt;
    const std::string_view sandbox = label.substr(dash + 1);
    for (char c : sandbox)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return std::nullopt;
    return PortHost{*port, std::string(sandbox)};
}

std::string domainOf(const http::Exchange& ex)
{
    // The port this request came to, from its Host ("127.0.0.1:41837", "[::1]:41837").
    if (auto host = ex.header("Host")) {
        const std::size_t colon = host->rfind(':');
        if (colon != std::string_view::npos &&
            host->substr(colon).find(']') == std::string_view::npos)
            if (auto port = portNumber(host->substr(colon + 1)))
                return "localhost:" + std::to_string(*port);
    }
    return "localhost";
}

void Api::portPreview(http::Exchange& ex, const PortHost& target)
{
    auto s = find(target.sandbox);
    bool paused = false;
    if (s) {
        std::lock_guard lock(m_mutex);
        paused = s->paused;
    }
    // As E2B's edge answers for a sandbox that is not there (or, here, paused).
    if (!s || paused)
        return sendJson(ex, 502,
                        {{"sandboxId", target.sandbox},
                         {"message", paused ? "The sandbox is paused (connect resumes it)"
                                            : "The sandbox was not found"},
                         {"code", 502},
                         {"port", target.port}});
    auto body = http::readWholeBody(ex, kMaxRelayedBody);
    if (!body) return restError(ex, 413, body.error().message);
    // The preview made before, unless it cannot be reached (closed meanwhile: `unexpose`); then
    // one made anew.
    for (bool cached : {true, false}) {
        unsigned hostPort = 0;
        if (cached) {
            std::lock_guard lock(s->previews->mutex);
            auto it = s->previews->ports.find(target.port);
            if (it == s->previews->ports.end()) continue;
            hostPort = it->second;
        } else {
            std::string session;
            {
                std::lock_guard lock(m_mutex);
                session = s->session;
            }
            auto forwarded = m_launcher.preview(session, target.port);
            if (!forwarded) {
                const Error& e = forwarded.error();
                return restError(ex, e.code == ErrorCode::Unsupported ? 501 : 502,
                                 "port " + std::to_string(target.port) + " of sandbox " + s->id +
                                     " cannot be previewed: " + e.describe());
            }
            hostPort = *forwarded;
            std::lock_guard lock(s->previews->mutex);
            s->previews->ports[target.port] = hostPort;
        }
        if (relayToPort(ex, *s, target.port, hostPort, *body, !cached)) return;
        std::lock_guard lock(s->previews->mutex);
        s->previews->ports.erase(target.port);
    }
}

bool localhostNamesResolve(std::string_view nsswitch)
{
    while (!nsswitch.empty()) {
        const std::size_t end = std::min(nsswitch.find('\n'), nsswitch.size());
        std::string_view line = nsswitch.substr(0, end);
        nsswitch.remove_prefix(std::min(end + 1, nsswitch.size()));
        line = line.substr(0, line.find('#'));
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string_view::npos || !line.substr(start).starts_with("hosts:")) continue;
        line.remove_prefix(start + std::string_view("hosts:").size());
        // Sources, each perhaps with [STATUS=action] after it.
        for (std::size_t at = 0; at < line.size();) {
            at = line.find_first_not_of(" \t", at);
            if (at == std::string_view::npos) break;
            const std::size_t stop = std::min(line.find_first_of(" \t[", at), line.size());
            const std::string_view source = line.substr(at, stop - at);
            if (source == "myhostname" || source == "resolve") return true;
            at = stop < line.size() && line[stop] == '[' ? line.find(']', stop) : stop;
            if (at == std::string_view::npos) break;
            ++at;
        }
        return false; // the first hosts line is the one glibc reads
    }
    return false;
}

} // namespace sb::e2b
