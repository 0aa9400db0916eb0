#include "network/SecretScan.h"

#include "base/Bytes.h"

#include <algorithm>
#include <strings.h>

namespace sb {

namespace {

// Replaces every `from` in `bytes` by `to` (same length); true when there was one.
bool replaceAll(std::string& bytes, const std::string& from, const std::string& to)
{
    bool any = false;
    for (std::size_t at = bytes.find(from); at != std::string::npos;
         at = bytes.find(from, at + from.size())) {
        bytes.replace(at, from.size(), to);
        any = true;
    }
    return any;
}

void addOnce(std::vector<std::string>& names, const std::string& name)
{
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// The credentials of each "Authorization: Basic …" line of a head, decoded (git and others put
// a token there as user:token in base64): `edit` may change them, length for length, and says
// whether it did; the line then carries them encoded again.
template <class Edit> void eachBasicCredential(std::string& head, Edit edit)
{
    constexpr std::string_view kName = "authorization:", kScheme = "basic ";
    for (std::size_t start = 0; start < head.size();) {
        std::size_t end = head.find("\r\n", start);
        if (end == std::string::npos) end = head.size();
        std::size_t at = start + kName.size();
        if (end - start > kName.size() &&
            strncasecmp(head.data() + start, kName.data(), kName.size()) == 0) {
            while (at < end && head[at] == ' ')
                ++at;
            if (end - at > kScheme.size() &&
                strncasecmp(head.data() + at, kScheme.data(), kScheme.size()) == 0) {
                at += kScheme.size();
                std::size_t tokenEnd = at;
                while (tokenEnd < end && head[tokenEnd] != ' ' && head[tokenEnd] != '\t')
                    ++tokenEnd;
                const std::string_view token(head.data() + at, tokenEnd - at);
                if (auto decoded = fromBase64(token); decoded && edit(*decoded)) {
                    const std::string encoded = base64(*decoded);
                    if (encoded.size() == token.size()) head.replace(at, token.size(), encoded);
                }
            }
        }
        start = end + 2;
    }
}

} // namespace

SecretScan::SecretScan(std::vector<ResolvedSecret> secrets) : m_secrets(std::move(secrets))
{
    for (const ResolvedSecret& s : m_secrets)
        m_longest = std::max(m_longest, s.placeholder.size());
}

bool SecretScan::namesHost(const std::string& host, std::uint16_t port) const
{
    return std::any_of(m_secrets.begin(), m_secrets.end(),
                       [&](const ResolvedSecret& s) { return secretAllows(s.spec, host, port); });
}

const ResolvedSecret* SecretScan::leakIn(std::string_view bytes, const std::string& host,
                                         std::uint16_t port, bool inBody) const
{
    for (const ResolvedSecret& s : m_secrets)
        if (bytes.find(s.placeholder) != std::string_view::npos &&
            !secretAllows(s.spec, host, port))
            return &s;
    if (inBody) return nullptr;
    // In a head's Basic credentials too.
    const ResolvedSecret* found = nullptr;
    std::string head(bytes.substr(0, bytes.find("\r\n\r\n")));
    eachBasicCredential(head, [&](const std::string& credentials) {
        for (const ResolvedSecret& s : m_secrets)
            if (found == nullptr && credentials.find(s.placeholder) != std::string::npos &&
                !secretAllows(s.spec, host, port))
                found = &s;
        return false;
    });
    return found;
}

SecretScan::Outcome SecretScan::substitute(std::string& bytes, const std::string& host,
                                           std::uint16_t port, bool inBody) const
{
    Outcome out;
    out.leak = leakIn(bytes, host, port, inBody);
    if (out.leak != nullptr) return out;
    for (const ResolvedSecret& s : m_secrets)
        if ((!inBody || s.spec.body) && replaceAll(bytes, s.placeholder, s.value))
            addOnce(out.used, s.spec.name);
    if (!inBody)
        eachBasicCredential(bytes, [&](std::string& credentials) {
            bool any = false;
            for (const ResolvedSecret& s : m_secrets)
                if (replaceAll(credentials, s.placeholder, s.value)) {
                    addOnce(out.used, s.spec.name);
                    any = true;
                }
            return any;
        });
    return out;
}

bool SecretScan::hideValues(std::string& bytes) const
{
    bool any = false;
    for (const ResolvedSecret& s : m_secrets)
        any = replaceAll(bytes, s.value, s.placeholder) || any;
    return any;
}

std::size_t SecretScan::pendingTail(std::string_view bytes, bool values) const
{
    const std::size_t most = std::min(bytes.size(), m_longest == 0 ? 0 : m_longest - 1);
    for (std::size_t k = most; k > 0; --k) {
        const std::string_view tail = bytes.substr(bytes.size() - k);
        for (const ResolvedSecret& s : m_secrets)
            if (std::string_view(values ? s.value : s.placeholder).starts_with(tail)) return k;
    }
    return 0;
}

SecretStream::SecretStream(const SecretScan& scan, Direction direction, std::string host,
                           std::uint16_t port, bool inBody)
    : m_scan(scan), m_direction(direction), m_host(std::move(host)), m_port(port), m_inBody(inBody)
{
}

bool SecretStream::feed(std::string_view in, std::string& out)
{
    if (m_leak != nullptr) return false;
    m_held.append(in);
    const bool toSandbox = m_direction == Direction::ToSandbox;
    if (toSandbox) {
        m_scan.hideValues(m_held);
    } else {
        SecretScan::Outcome o = m_scan.substitute(m_held, m_host, m_port, m_inBody);
        if (o.leak != nullptr) {
            m_leak = o.leak;
            m_held.clear();
            return false;
        }
        for (const std::string& name : o.used)
            addOnce(m_used, name);
    }
    const std::size_t keep = m_scan.pendingTail(m_held, toSandbox);
    out.append(m_held, 0, m_held.size() - keep);
    m_held.erase(0, m_held.size() - keep);
    return true;
}

void SecretStream::finish(std::string& out)
{
    out += m_held;
    m_held.clear();
}

} // namespace sb
