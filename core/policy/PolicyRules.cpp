#include "policy/PolicyRules.h"

#include "base/JsonLocator.h"
#include "policy/ClientPattern.h"
#include "policy/CommandRules.h"

#include <algorithm>
#include <arpa/inet.h>
#include <array>

namespace sb {
namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 3> kActions = {"allow", "ask", "deny"};
constexpr std::string_view kHostExpected =
    "a host name, \"*.domain\", an IP address, a CIDR range such as 10.0.0.0/8, or \"*\"";

std::string q(std::string_view s)
{
    return "'" + std::string(s) + "'";
}

bool isDigits(std::string_view s)
{
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isLabelChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

// Letters, digits, '-' and '_' (which real service names use), 1–63 a label, 253 in all.
Status checkHostName(std::string_view name, std::string_view written)
{
    if (name.ends_with('.'))
        return inputError(q(written) + " ends with '.' (expected the name without it)");
    const Error invalid = inputError(
        q(written) + " is not a valid host name (expected labels of letters, digits, '-' and '_', "
                     "1 to 63 characters each, separated by '.')");
    if (name.empty() || name.size() > 253) return invalid;
    std::string_view last;
    for (std::size_t start = 0; start <= name.size();) {
        std::size_t dot = name.find('.', start);
        if (dot == std::string_view::npos) dot = name.size();
        last = name.substr(start, dot - start);
        if (last.empty() || last.size() > 63 || last.front() == '-' || last.back() == '-' ||
            !std::all_of(last.begin(), last.end(), isLabelChar))
            return invalid;
        start = dot + 1;
    }
    // No top-level domain is numeric: "127.1" is an address in a spelling we do not accept.
    if (isDigits(last))
        return inputError(q(written) + " is not a valid IPv4 address (expected four numbers from "
                                       "0 to 255, such as 127.0.0.1)");
    return std::nullopt;
}

Result<HostPatternKind> checkCidr(std::string_view host)
{
    const std::size_t slash = host.find('/');
    const std::string address(host.substr(0, slash));
    const std::string_view prefix = host.substr(slash + 1);
    std::array<unsigned char, 16> bytes{};
    const bool v4 = ::inet_pton(AF_INET, address.c_str(), bytes.data()) == 1;
    const bool v6 = !v4 && ::inet_pton(AF_INET6, address.c_str(), bytes.data()) == 1;
    if ((!v4 && !v6) || !isDigits(prefix) || prefix.size() > 3)
        return inputError(q(host) + " is not a CIDR range (expected an address and a prefix "
                                    "length, such as 10.0.0.0/8 or fd00::/8)");
    const unsigned bits = v4 ? 32 : 128;
    const unsigned length = static_cast<unsigned>(std::stoul(std::string(prefix)));
    if (length > bits)
        return inputError(q(host) + ": the prefix length is " + std::to_string(length) +
                          " (expected 0 to " + std::to_string(bits) + " for " +
                          (v4 ? "IPv4" : "IPv6") + ")");
    // "10.0.0.1/8" is most likely a typo for a single address or for 10.0.0.0/8: ask which.
    std::array<unsigned char, 16> network = bytes;
    for (unsigned bit = length; bit < bits; ++bit)
        network[bit / 8] &= static_cast<unsigned char>(~(0x80u >> (bit % 8)));
    if (network != bytes) {
        char text[INET6_ADDRSTRLEN] = {};
        ::inet_ntop(v4 ? AF_INET : AF_INET6, network.data(), text, sizeof text);
        return inputError(q(host) + " has address bits set beyond the prefix (expected " + text +
                          '/' + std::string(prefix) + ")");
    }
    return v4 ? HostPatternKind::Cidr4 : HostPatternKind::Cidr6;
}

} // namespace

Result<HostPatternKind> checkHostPattern(std::string_view host)
{
    if (host.empty()) return inputError("empty host (expected " + std::string(kHostExpected) + ")");
    if (host == "*") return HostPatternKind::Any;
    if (host.find('/') != std::string_view::npos) return checkCidr(host);
    const std::string text(host);
    std::array<unsigned char, 16> bytes{};
    if (::inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) return HostPatternKind::IPv4;
    if (::inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1) return HostPatternKind::IPv6;
    if (host.front() == '[')
        return inputError(q(host) + ": write IPv6 addresses without brackets (expected " +
                          std::string(host.substr(1, host.find(']') - 1)) + ")");
    if (const std::size_t colon = host.find(':'); colon != std::string_view::npos) {
        if (host.find(':', colon + 1) == std::string_view::npos && isDigits(host.substr(colon + 1)))
            return inputError(q(host) +
                              ": a port belongs in \"ports\" (expected the host alone, "
                              "such as " +
                              q(host.substr(0, colon)) + ")");
        return inputError(q(host) +
                          " is not a valid IPv6 address (expected an address such as fd00::1, "
                          "without brackets or a zone)");
    }
    const bool suffix = host.starts_with("*.");
    const std::string_view name = suffix ? host.substr(2) : host;
    if (name.find('*') != std::string_view::npos)
        return inputError(q(host) + ": '*' may only be the whole first label (expected a pattern "
                                    "such as \"*.example.com\")");
    if (auto e = checkHostName(name, host)) return *e;
    return suffix ? HostPatternKind::Suffix : HostPatternKind::Name;
}

std::optional<RuleAction> readRuleAction(SchemaChecker& c, const json& v, const std::string& p)
{
    if (auto i = c.choice(v, p, kActions)) return static_cast<RuleAction>(*i);
    return std::nullopt;
}

void readNetworkRule(SchemaChecker& c, const json& v, const std::string& p, NetworkRule& out)
{
    auto readPorts = [&](const json& x, const std::string& at) {
        if (!c.array(x, at, "an array of port numbers from 1 to 65535")) return;
        if (x.empty())
            c.failAtValue(at, "an empty list matches no port (expected port numbers from 1 to "
                              "65535, or no \"ports\" for any port)");
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (auto n = c.integer(x[i], appendPointer(at, std::to_string(i)), 1, 65535))
                out.ports.push_back(static_cast<std::uint16_t>(*n));
        }
    };
    c.object(v, p,
             {{"action",
               [&](const json& x, const std::string& at) {
                   if (auto a = readRuleAction(c, x, at)) out.action = *a;
               },
               "\"action\": \"allow\", \"ask\" or \"deny\""},
              {"host",
               [&](const json& x, const std::string& at) {
                   auto s = c.string(x, at, kHostExpected);
                   if (!s) return;
                   if (auto kind = checkHostPattern(*s); !kind)
                       c.failAtValue(at, kind.error().message);
                   out.host = *s;
               },
               "\"host\": a host name, \"*.domain\", an IP address, a CIDR range or \"*\""},
              {"ports", readPorts},
              {"program",
               [&](const json& x, const std::string& at) {
                   auto s = c.string(x, at, "a program's path such as \"/usr/bin/ssh\"");
                   if (!s) return;
                   if (auto e = checkProgramPattern(*s)) c.failAtValue(at, e->message);
                   out.program = *s;
               }},
              {"command",
               [&](const json& x, const std::string& at) {
                   auto s = c.string(x, at, "a command pattern such as \"git *\"");
                   if (!s) return;
                   if (auto pattern = parseCommandPattern(*s); !pattern)
                       c.failAtValue(at, pattern.error().message);
                   out.command = *s;
               }},
              {"comment", [&](const json& x, const std::string& at) {
                   if (auto s = c.string(x, at, "a string")) out.comment = *s;
               }}});
}

void readCommandRule(SchemaChecker& c, const json& v, const std::string& p, CommandRule& out)
{
    c.object(v, p,
             {{"action",
               [&](const json& x, const std::string& at) {
                   if (auto a = readRuleAction(c, x, at)) out.action = *a;
               },
               "\"action\": \"allow\", \"ask\" or \"deny\""},
              {"match",
               [&](const json& x, const std::string& at) {
                   auto s = c.string(x, at, "a command pattern such as \"git push *\"");
                   if (!s) return;
                   if (auto pattern = parseCommandPattern(*s); !pattern)
                       c.failAtValue(at, pattern.error().message);
                   out.match = *s;
               },
               "\"match\": a command pattern such as \"git push *\""},
              {"comment", [&](const json& x, const std::string& at) {
                   if (auto s = c.string(x, at, "a string")) out.comment = *s;
               }}});
}

} // namespace sb
