#include "policy/NetworkRules.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cstring>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

namespace sb {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isHex(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::vector<std::string_view> splitDots(std::string_view s)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        auto dot = s.find('.', start);
        parts.push_back(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start));
        if (dot == std::string_view::npos) return parts;
        start = dot + 1;
    }
}

// A label that inet_aton would read as a number: decimal, 0-prefixed octal, or 0x hex.
bool looksNumeric(std::string_view label)
{
    if (label.empty()) return false;
    if (label.size() >= 2 && label[0] == '0' && (label[1] == 'x' || label[1] == 'X'))
        return std::all_of(label.begin() + 2, label.end(), isHex);
    return std::all_of(label.begin(), label.end(), isDigit);
}

std::optional<std::uint64_t> parseNumber(std::string_view label)
{
    int base = 10;
    if (label.size() >= 2 && label[0] == '0' && (label[1] == 'x' || label[1] == 'X')) {
        base = 16;
        label.remove_prefix(2);
    } else if (label.size() > 1 && label[0] == '0') {
        base = 8;
        label.remove_prefix(1);
    }
    std::uint64_t value = 0;
    for (char c : label) {
        int digit = isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
        if (digit >= base) return std::nullopt;
        value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
        if (value > 0xffffffffULL)
            return std::nullopt; // no valid part exceeds 32 bits; also stops overflow
    }
    return value;
}

// inet_aton's grammar (which getaddrinfo also accepts): 1 to 4 parts, the last filling the
// remaining bytes. Browsers (WHATWG URL) read hosts the same way.
std::optional<IpAddress> parseLenientIpv4(const std::vector<std::string_view>& parts)
{
    if (parts.empty() || parts.size() > 4) return std::nullopt;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!looksNumeric(parts[i])) return std::nullopt;
        auto n = parseNumber(parts[i]);
        if (!n) return std::nullopt;
        bool last = i + 1 == parts.size();
        std::uint64_t limit = last ? (1ULL << (8 * (5 - parts.size()))) - 1 : 255;
        if (*n > limit) return std::nullopt;
        value = last ? (value << (8 * (5 - parts.size()))) | *n : (value << 8) | *n;
    }
    IpAddress a;
    a.family = AF_INET;
    for (int i = 0; i < 4; ++i)
        a.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (24 - 8 * i));
    return a;
}

bool isV4Mapped(const IpAddress& a)
{
    static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return a.family == AF_INET6 && std::memcmp(a.bytes.data(), prefix, 12) == 0;
}

IpAddress unmapV4(IpAddress a)
{
    if (!isV4Mapped(a)) return a;
    IpAddress v4;
    v4.family = AF_INET;
    std::memcpy(v4.bytes.data(), a.bytes.data() + 12, 4);
    return v4;
}

bool inNetwork(const IpAddress& a, const IpAddress& network, int prefix)
{
    if (a.family != network.family) return false;
    int full = prefix / 8, rest = prefix % 8;
    if (std::memcmp(a.bytes.data(), network.bytes.data(), static_cast<std::size_t>(full)) != 0)
        return false;
    if (rest == 0) return true;
    auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
    return (a.bytes[static_cast<std::size_t>(full)] & mask) ==
           (network.bytes[static_cast<std::size_t>(full)] & mask);
}

IpAddress masked(IpAddress a, int prefix)
{
    for (int i = 0; i < 16; ++i) {
        int keep = std::clamp(prefix - 8 * i, 0, 8);
        a.bytes[static_cast<std::size_t>(i)] &= static_cast<std::uint8_t>(0xff << (8 - keep));
    }
    return a;
}

// Destinations denied before any rule unless a rule names them (see docs/network.md).
struct Block {
    IpAddress network;
    int prefix;
    std::string label; // "loopback 127.0.0.0/8"
};

const std::vector<Block>& builtInBlocks()
{
    static const std::vector<Block> blocks = [] {
        const std::pair<const char*, const char*> table[] = {
            {"0.0.0.0/8", "private"},
            {"10.0.0.0/8", "private"},
            {"100.64.0.0/10", "private"},
            {"100.100.100.200/32", "cloud metadata"},
            {"127.0.0.0/8", "loopback"},
            {"169.254.0.0/16", "link-local"},
            {"169.254.169.254/32", "cloud metadata"},
            {"169.254.170.2/32", "cloud metadata"},
            {"172.16.0.0/12", "private"},
            {"192.168.0.0/16", "private"},
            {"224.0.0.0/4", "multicast"},
            {"240.0.0.0/4", "reserved"},
            {"::/128", "unspecified"},
            {"::1/128", "loopback"},
            {"::/96", "reserved (IPv4-compatible)"},
            {"fc00::/7", "private"},
            {"fd00:ec2::254/128", "cloud metadata"},
            {"fe80::/10", "link-local"},
            {"fec0::/10", "private (site-local)"},
            {"ff00::/8", "multicast"},
        };
        std::vector<Block> out;
        for (auto [cidr, kind] : table) {
            std::string_view text(cidr);
            auto slash = text.find('/');
            auto network = IpAddress::parse(text.substr(0, slash));
            int prefix = std::stoi(std::string(text.substr(slash + 1)));
            out.push_back({*network, prefix, std::string(kind) + " " + std::string(text)});
        }
        return out;
    }();
    return blocks;
}

// NAT64 (64:ff9b::/96) reaches the embedded IPv4 address through a translator.
std::optional<IpAddress> nat64Embedded(const IpAddress& a)
{
    static const IpAddress nat64 = *IpAddress::parse("64:ff9b::");
    if (!inNetwork(a, nat64, 96)) return std::nullopt;
    IpAddress v4;
    v4.family = AF_INET;
    std::memcpy(v4.bytes.data(), a.bytes.data() + 12, 4);
    return v4;
}

// A special name (localhost) opens only to a rule naming it; no CIDR is narrow enough.
constexpr int kOnlyByName = 129;

struct Special {
    std::string label;
    int prefix = 0; // a CIDR rule must be at least this narrow to count as naming it
};

std::optional<Special> classifyAddress(const IpAddress& address, std::span<const IpAddress> own)
{
    IpAddress a = address;
    int extra = 0;
    if (auto v4 = nat64Embedded(address)) {
        a = *v4;
        extra = 96;
    }
    const Block* best = nullptr;
    for (const auto& block : builtInBlocks())
        if (inNetwork(a, block.network, block.prefix) && (!best || block.prefix > best->prefix))
            best = &block;
    if (best) return Special{best->label, best->prefix + extra};
    if (std::find(own.begin(), own.end(), address) != own.end())
        return Special{"the host's own address " + address.toString(), address.bits()};
    return std::nullopt;
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<Special> classifyName(std::string_view host)
{
    if (host == "localhost" || endsWith(host, ".localhost"))
        return Special{"loopback name " + std::string(host), kOnlyByName};
    if (host == "metadata.google.internal" || host == "metadata" || host == "instance-data")
        return Special{"cloud metadata name " + std::string(host), kOnlyByName};
    return std::nullopt;
}

int strictness(RuleAction a)
{
    return a == RuleAction::Deny ? 2 : a == RuleAction::Ask ? 1 : 0;
}

std::string describeRule(std::size_t index, const NetworkRule& rule)
{
    std::string text = "rule " + std::to_string(index + 1) + " (" +
                       std::string(toString(rule.action)) + " " + rule.host;
    if (!rule.ports.empty()) {
        text += rule.ports.size() == 1 ? " port " : " ports ";
        for (std::size_t i = 0; i < rule.ports.size(); ++i)
            text += (i ? "," : "") + std::to_string(rule.ports[i]);
    }
    if (!rule.program.empty()) text += " program " + rule.program;
    if (!rule.command.empty()) text += " command \"" + rule.command + "\"";
    if (!rule.comment.empty()) text += ": " + rule.comment; // why the rule is there
    return text + ")";
}

} // namespace

int decidingRuleNumber(std::string_view ruleText)
{
    constexpr std::string_view prefix = "rule ";
    if (!ruleText.starts_with(prefix)) return 0;
    int number = 0;
    std::size_t i = prefix.size();
    for (; i < ruleText.size() && ruleText[i] >= '0' && ruleText[i] <= '9' && number < 1'000'000;
         ++i)
        number = number * 10 + (ruleText[i] - '0');
    return i > prefix.size() && ruleText.substr(i).starts_with(" (") ? number : 0;
}

namespace {

Result<NetworkRules::Rule> compileRule(std::size_t index, const NetworkRule& in)
{
    using Kind = NetworkRules::Rule::Kind;
    NetworkRules::Rule rule;
    rule.action = in.action;
    rule.ports = in.ports;
    rule.text = describeRule(index, in);
    auto fail = [&](const std::string& why) {
        return inputError("network rule " + std::to_string(index + 1) + " (host \"" + in.host +
                          "\"): " + why);
    };
    auto client = ClientPattern::compile(in.program, in.command);
    if (!client) return fail(client.error().message);
    rule.client = std::move(*client);
    std::string_view host = in.host;
    if (host == "*") {
        rule.kind = Kind::Any;
        return rule;
    }
    if (host.starts_with("*.")) {
        auto suffix = normaliseHost(host.substr(2));
        if (!suffix) return fail(suffix.error().message);
        if (ipLiteral(*suffix))
            return fail("a *.suffix pattern needs a domain name, not an address");
        rule.kind = Kind::Suffix;
        rule.name = std::move(*suffix);
        return rule;
    }
    if (host.find('*') != std::string_view::npos)
        return fail("'*' is allowed only alone or as a leading \"*.\"");
    if (auto slash = host.find('/'); slash != std::string_view::npos) {
        auto address = normaliseHost(host.substr(0, slash));
        auto ip = address ? ipLiteral(*address) : std::nullopt;
        if (!ip) return fail("a CIDR range needs an IP address before the '/'");
        auto bitsText = host.substr(slash + 1);
        int bits = 0;
        if (bitsText.empty() || bitsText.size() > 3 ||
            !std::all_of(bitsText.begin(), bitsText.end(), isDigit) ||
            (bits = std::stoi(std::string(bitsText))) > ip->bits())
            return fail("prefix length must be 0 to " + std::to_string(ip->bits()));
        rule.kind = Kind::Cidr;
        rule.prefix = bits;
        rule.network = masked(*ip, bits);
        return rule;
    }
    auto name = normaliseHost(host);
    if (!name) return fail(name.error().message);
    if (auto ip = ipLiteral(*name)) {
        rule.kind = Kind::Cidr;
        rule.network = *ip;
        rule.prefix = ip->bits();
        return rule;
    }
    rule.kind = Kind::Name;
    rule.name = std::move(*name);
    return rule;
}

} // namespace

std::optional<IpAddress> IpAddress::parse(std::string_view text)
{
    if (text.find('\0') != std::string_view::npos) return std::nullopt; // inet_pton stops there
    std::string s(text);
    IpAddress a;
    if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) {
        a.family = AF_INET;
        return a;
    }
    if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
        a.family = AF_INET6;
        return unmapV4(a);
    }
    return std::nullopt;
}

std::optional<IpAddress> IpAddress::fromSockaddr(const sockaddr_storage& address)
{
    IpAddress a;
    if (address.ss_family == AF_INET) {
        sockaddr_in in{};
        std::memcpy(&in, &address, sizeof in);
        a.family = AF_INET;
        std::memcpy(a.bytes.data(), &in.sin_addr, 4);
        return a;
    }
    if (address.ss_family == AF_INET6) {
        sockaddr_in6 in6{};
        std::memcpy(&in6, &address, sizeof in6);
        a.family = AF_INET6;
        std::memcpy(a.bytes.data(), &in6.sin6_addr, 16);
        return unmapV4(a);
    }
    return std::nullopt;
}

std::string IpAddress::toString() const
{
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(family, bytes.data(), text, sizeof text);
    return text;
}

sockaddr_storage IpAddress::toSockaddr(std::uint16_t port, socklen_t& length) const
{
    sockaddr_storage storage{};
    if (family == AF_INET) {
        sockaddr_in in{};
        in.sin_family = AF_INET;
        in.sin_port = htons(port);
        std::memcpy(&in.sin_addr, bytes.data(), 4);
        std::memcpy(&storage, &in, sizeof in);
        length = sizeof in;
    } else {
        sockaddr_in6 in6{};
        in6.sin6_family = AF_INET6;
        in6.sin6_port = htons(port);
        std::memcpy(&in6.sin6_addr, bytes.data(), 16);
        std::memcpy(&storage, &in6, sizeof in6);
        length = sizeof in6;
    }
    return storage;
}

Result<std::string> normaliseHost(std::string_view raw)
{
    if (raw.empty()) return inputError("empty host name");
    if (raw.size() > 255) return inputError("host name longer than 255 characters");
    for (char c : raw) {
        if (static_cast<unsigned char>(c) >= 0x80)
            return inputError("host name \"" + std::string(raw) +
                              "\" is not ASCII; use its IDNA (xn--) form");
        // A NUL would end the text inet_pton reads ("[::1\0…]" read as "::1"), and no name
        // holds control characters.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return inputError("host name contains the control character " +
                              std::to_string(static_cast<unsigned char>(c)));
    }
    bool bracketed = raw.front() == '[';
    if (bracketed) {
        if (raw.back() != ']')
            return inputError("unterminated '[' in host \"" + std::string(raw) + "\"");
        raw = raw.substr(1, raw.size() - 2);
    }
    if (raw.find(':') != std::string_view::npos || bracketed) {
        if (raw.find('%') != std::string_view::npos)
            return inputError("IPv6 zone ids are not accepted (\"" + std::string(raw) + "\")");
        IpAddress a;
        if (inet_pton(AF_INET6, std::string(raw).c_str(), a.bytes.data()) != 1)
            return inputError("\"" + std::string(raw) + "\" is not a valid IPv6 address");
        a.family = AF_INET6;
        return unmapV4(a).toString();
    }
    std::string host(raw);
    std::transform(host.begin(), host.end(), host.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c; });
    if (host.ends_with('.')) host.pop_back(); // "example.com." is the same absolute name
    if (host.empty()) return inputError("empty host name");
    auto labels = splitDots(host);
    // As in the WHATWG URL parser: a numeric last label makes the host an IPv4 address or
    // nothing, so no resolver can read it as an address we did not check.
    if (looksNumeric(labels.back())) {
        if (auto v4 = parseLenientIpv4(labels)) return v4->toString();
        return inputError("\"" + std::string(raw) + "\" is not a valid IPv4 address");
    }
    if (host.size() > 253) return inputError("host name longer than 253 characters");
    for (auto label : labels) {
        if (label.empty() || label.size() > 63)
            return inputError("host name \"" + std::string(raw) +
                              "\" has an empty or over-long label");
        for (char c : label)
            if (!(isDigit(c) || (c >= 'a' && c <= 'z') || c == '-' || c == '_'))
                return inputError("host name \"" + std::string(raw) + "\" contains '" +
                                  std::string(1, c) + "'");
    }
    return host;
}

std::optional<IpAddress> ipLiteral(std::string_view normalisedHost)
{
    if (normalisedHost.empty() ||
        (!isDigit(normalisedHost.back()) && normalisedHost.find(':') == std::string_view::npos))
        return std::nullopt; // names end in a non-numeric label (normaliseHost enforces it)
    return IpAddress::parse(normalisedHost);
}

Result<NetworkRules> NetworkRules::compile(const NetworkPolicy& policy)
{
    NetworkRules rules;
    rules.m_mode = policy.mode;
    rules.m_default = policy.defaultAction;
    for (std::size_t i = 0; i < policy.rules.size(); ++i) {
        auto rule = compileRule(i, policy.rules[i]);
        if (!rule) return rule.error();
        if (rule->kind == Rule::Kind::Cidr && rule->action != RuleAction::Deny)
            rules.m_addressRuleMayAllow = true;
        rules.m_rules.push_back(std::move(*rule));
    }
    return rules;
}

NetworkDecision NetworkRules::decideHost(std::string_view host, std::uint16_t port,
                                         std::span<const IpAddress> own,
                                         const ProcessChain& process) const
{
    return decideHostFor(host, port, own, process, Clients::Given);
}

bool NetworkRules::clientMatches(const Rule& rule, const ProcessChain& process,
                                 Clients clients) const
{
    if (!rule.client.limited()) return true;
    if (clients == Clients::AnyThatMay) return rule.action != RuleAction::Deny;
    return rule.client.matches(process);
}

NetworkDecision NetworkRules::decideHostFor(std::string_view host, std::uint16_t port,
                                            std::span<const IpAddress> own,
                                            const ProcessChain& process, Clients clients) const
{
    if (auto ip = ipLiteral(host)) return decide(host, &*ip, port, own, process, clients);
    auto decision = decide(host, nullptr, port, own, process, clients);
    // Only an address rule that allows or asks at this port could turn a denial around after
    // resolution: otherwise the name is not looked up at all.
    auto mayAllow = [&](const Rule& rule) {
        return rule.kind == Rule::Kind::Cidr && rule.action != RuleAction::Deny &&
               (rule.ports.empty() ||
                std::find(rule.ports.begin(), rule.ports.end(), port) != rule.ports.end()) &&
               clientMatches(rule, process, clients);
    };
    decision.final =
        decision.action == RuleAction::Deny &&
        !(m_addressRuleMayAllow && std::any_of(m_rules.begin(), m_rules.end(), mayAllow));
    return decision;
}

NetworkDecision NetworkRules::decideAddress(std::string_view host, const IpAddress& address,
                                            std::uint16_t port, std::span<const IpAddress> own,
                                            const ProcessChain& process) const
{
    return decide(host, &address, port, own, process, Clients::Given);
}

std::vector<std::uint16_t> NetworkRules::distinctPorts() const
{
    std::vector<std::uint16_t> ports;
    for (const auto& rule : m_rules)
        ports.insert(ports.end(), rule.ports.begin(), rule.ports.end());
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    // The smallest port no rule lists stands for all of them: rules treat them alike.
    std::uint16_t unlisted = 1;
    for (auto port : ports)
        if (port == unlisted) ++unlisted;
    if (unlisted != 0) ports.push_back(unlisted); // 0 only if every port from 1 is listed
    return ports;
}

bool NetworkRules::couldAllowHost(std::string_view host, std::span<const IpAddress> own) const
{
    for (auto port : distinctPorts()) {
        auto d = decideHostFor(host, port, own, {}, Clients::AnyThatMay);
        if (d.action != RuleAction::Deny || !d.final) return true;
    }
    return false;
}

bool NetworkRules::couldAllowAddress(std::string_view host, const IpAddress& address,
                                     std::span<const IpAddress> own) const
{
    for (auto port : distinctPorts())
        if (decide(host, &address, port, own, {}, Clients::AnyThatMay).action != RuleAction::Deny)
            return true;
    return false;
}

NetworkDecision NetworkRules::decide(std::string_view host, const IpAddress* address,
                                     std::uint16_t port, std::span<const IpAddress> own,
                                     const ProcessChain& process, Clients clients) const
{
    if (m_mode == NetworkMode::None) return {RuleAction::Deny, "network mode none", true};
    const bool isName = !ipLiteral(host);
    std::optional<IpAddress> unmapped;
    if (address) unmapped = unmapV4(*address);

    std::optional<Special> special = isName ? classifyName(host) : std::nullopt;
    if (unmapped)
        if (auto s = classifyAddress(*unmapped, own)) special = s;

    std::vector<const Rule*> matches;
    for (const auto& rule : m_rules) {
        if (!rule.ports.empty() &&
            std::find(rule.ports.begin(), rule.ports.end(), port) == rule.ports.end())
            continue;
        if (!clientMatches(rule, process, clients)) continue;
        bool hit = false;
        bool explicitName = false;
        switch (rule.kind) {
        case Rule::Kind::Any:
            hit = true;
            break;
        case Rule::Kind::Suffix:
            hit = isName && (host == rule.name || endsWith(host, "." + rule.name));
            break;
        case Rule::Kind::Name:
            hit = explicitName = isName && host == rule.name;
            break;
        case Rule::Kind::Cidr:
            hit = unmapped && inNetwork(*unmapped, rule.network, rule.prefix);
            explicitName = hit && special && rule.prefix >= special->prefix;
            break;
        }
        // Loopback, private, link-local and the host's own addresses open only to a rule that
        // names them: an exact name, an address, or a range no wider than the built-in block.
        if (hit && (!special || explicitName)) matches.push_back(&rule);
    }
    if (matches.empty()) {
        if (special) return {RuleAction::Deny, "built-in: " + special->label, true};
        return {m_default, "default (" + std::string(toString(m_default)) + ")", true};
    }
    // First match wins, except that a later rule of equal specificity (the same pattern, with or
    // without a port list alike, naming a program or not alike) and a stricter action overrides
    // it: "allow github.com for ssh" before "deny github.com" still lets ssh through.
    const Rule* winner = matches.front();
    auto sameSpecificity = [](const Rule& a, const Rule& b) {
        return a.kind == b.kind && a.name.size() == b.name.size() && a.prefix == b.prefix &&
               a.ports.empty() == b.ports.empty() && a.client.limited() == b.client.limited();
    };
    for (const Rule* m : matches)
        if (sameSpecificity(*m, *winner) && strictness(m->action) > strictness(winner->action))
            winner = m;
    return {winner->action, winner->text, true};
}

NetworkDecision decideHost(const NetworkPolicy& policy, const std::string& normalisedHost,
                           std::uint16_t port)
{
    auto rules = NetworkRules::compile(policy);
    if (!rules) return {RuleAction::Deny, "invalid policy: " + rules.error().message, true};
    return rules->decideHost(normalisedHost, port);
}

NetworkDecision decideAddress(const NetworkPolicy& policy, const std::string& normalisedHost,
                              const sockaddr_storage& resolved, std::uint16_t port)
{
    auto rules = NetworkRules::compile(policy);
    if (!rules) return {RuleAction::Deny, "invalid policy: " + rules.error().message, true};
    auto address = IpAddress::fromSockaddr(resolved);
    if (!address) return {RuleAction::Deny, "not an IP address", true};
    return rules->decideAddress(normalisedHost, *address, port);
}

std::vector<IpAddress> hostAddresses()
{
    std::vector<IpAddress> out;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return out;
    for (auto* i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK)) continue;
        sockaddr_storage storage{};
        if (i->ifa_addr->sa_family == AF_INET)
            std::memcpy(&storage, i->ifa_addr, sizeof(sockaddr_in));
        else if (i->ifa_addr->sa_family == AF_INET6)
            std::memcpy(&storage, i->ifa_addr, sizeof(sockaddr_in6));
        else
            continue;
        if (auto a = IpAddress::fromSockaddr(storage);
            a && std::find(out.begin(), out.end(), *a) == out.end())
            out.push_back(*a);
    }
    freeifaddrs(list);
    return out;
}

} // namespace sb
