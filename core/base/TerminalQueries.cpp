#include "base/TerminalQueries.h"

#include <algorithm>
#include <array>

namespace sb {
namespace {

constexpr char kEsc = 0x1b, kBel = 0x07, kEnq = 0x05, kCan = 0x18, kSub = 0x1a;

// An OSC or DCS string longer than this is no query (a title, a clipboard write, an image): it
// passes through as it comes instead of being held.
constexpr std::size_t kMaxHeld = 4096;

// The first number of a CSI's parameters (after its private prefix), or -1.
int firstParameter(std::string_view params)
{
    int value = -1;
    for (char c : params) {
        if (c < '0' || c > '9') break;
        value = (value < 0 ? 0 : value * 10) + (c - '0');
        if (value > 100000) break;
    }
    return value;
}

} // namespace

bool TerminalQueryFilter::csiIsQuery() const
{
    // m_pending: ESC [ prefix? params intermediates final
    std::string_view body(m_pending);
    body.remove_prefix(2);
    const char final = body.back();
    body.remove_suffix(1);
    char prefix = 0;
    if (!body.empty() && (body[0] == '<' || body[0] == '=' || body[0] == '>' || body[0] == '?')) {
        prefix = body[0];
        body.remove_prefix(1);
    }
    std::string_view intermediates = body;
    const auto firstIntermediate =
        std::find_if(body.begin(), body.end(), [](char c) { return c >= 0x20 && c <= 0x2f; });
    intermediates.remove_prefix(static_cast<std::size_t>(firstIntermediate - body.begin()));
    const std::string_view params = body.substr(0, body.size() - intermediates.size());
    switch (final) {
    case 'n': // DSR: status, cursor position, and the private reports
    case 'c': // DA1, DA2, DA3
        return intermediates.empty();
    case 'x': // DECREQTPARM
        return intermediates.empty() && prefix == 0;
    case 'p': // DECRQM (ANSI and private modes)
    case 'w': // DECRQPSR
        return intermediates == "$";
    case 'u': // kitty keyboard flags (CSI ? u), DECRQTSR (CSI Ps $ u)
        return (prefix == '?' && intermediates.empty()) || intermediates == "$";
    case 'y': // DECRQCRA
        return intermediates == "*";
    case 'q': // XTVERSION
        return prefix == '>' && intermediates.empty();
    case 'm': // XTQMODKEYS
    case 'S': // XTSMGRAPHICS
        return prefix == '?' && intermediates.empty();
    case 't': { // window reports
        if (prefix != 0 || !intermediates.empty()) return false;
        constexpr std::array<int, 9> kReports = {11, 13, 14, 15, 16, 18, 19, 20, 21};
        const int p = firstParameter(params);
        return std::find(kReports.begin(), kReports.end(), p) != kReports.end();
    }
    default:
        return false;
    }
}

bool TerminalQueryFilter::oscIsQuery() const
{
    // m_pending: ESC ] Ps ; Pt … (the terminator not included). A field after the first that is
    // "?" asks for a value: OSC 4;N;? 10;? 11;? 12;? 52;c;? …
    std::string_view body(m_pending);
    body.remove_prefix(2);
    std::size_t start = body.find(';');
    while (start != std::string_view::npos) {
        const std::size_t end = body.find(';', start + 1);
        const std::string_view field =
            body.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
        if (field == "?") return true;
        start = end;
    }
    return false;
}

void TerminalQueryFilter::complete(std::string& out, bool query)
{
    if (!query) out += m_pending;
    m_pending.clear();
    m_state = State::Ground;
}

std::string TerminalQueryFilter::feed(std::string_view chunk)
{
    std::string out;
    out.reserve(chunk.size());
    for (char c : chunk) {
        switch (m_state) {
        case State::Ground:
            if (c == kEsc) {
                m_pending.assign(1, c);
                m_state = State::Escape;
            } else if (c != kEnq) { // ENQ asks for the answerback message
                out += c;
            }
            break;
        case State::Escape:
            m_pending += c;
            if (c == '[') {
                m_state = State::Csi;
            } else if (c == ']') {
                m_state = State::Osc;
            } else if (c == 'P') {
                m_state = State::Dcs;
            } else if (c == kEsc) {
                m_pending.pop_back();
                complete(out, false); // the first ESC was alone; the second starts anew
                m_pending.assign(1, c);
                m_state = State::Escape;
            } else if (c >= 0x20 && c <= 0x2f) {
                // ESC with intermediates (charsets…): no query has them; pass it on.
                complete(out, false);
            } else {
                complete(out, c == 'Z'); // DECID
            }
            break;
        case State::Csi:
            m_pending += c;
            if (c == kCan || c == kSub) {
                complete(out, false);
            } else if (c >= 0x40 && c <= 0x7e) {
                complete(out, csiIsQuery());
            } else if (m_pending.size() > kMaxHeld) {
                complete(out, false);
            }
            break;
        case State::Osc:
        case State::Dcs:
            if (c == kBel && m_state == State::Osc) {
                const bool query = oscIsQuery();
                m_pending += c;
                complete(out, query);
            } else if (c == kEsc) {
                m_state = m_state == State::Osc ? State::OscEscape : State::DcsEscape;
                m_pending += c;
            } else if (c == kCan || c == kSub) {
                m_pending += c;
                complete(out, false);
            } else {
                m_pending += c;
                const bool dcs = m_state == State::Dcs;
                // DECRQSS and XTGETTCAP say what they are in their first two bytes.
                if (dcs && m_pending.size() == 4 && m_pending.substr(2) != "$q" &&
                    m_pending.substr(2) != "+q") {
                    m_passingFrom = State::Dcs;
                    out += m_pending;
                    m_pending.clear();
                    m_state = State::Passing;
                } else if (m_pending.size() > kMaxHeld) {
                    m_passingFrom = m_state;
                    out += m_pending;
                    m_pending.clear();
                    m_state = State::Passing;
                }
            }
            break;
        case State::OscEscape:
        case State::DcsEscape: {
            const bool osc = m_state == State::OscEscape;
            if (c == '\\') { // ST
                const bool query =
                    osc ? (m_pending.pop_back(), oscIsQuery()) : true; // DCS held: a request
                if (osc) m_pending += kEsc;
                m_pending += c;
                complete(out, query);
            } else {
                // The string ended without ST; the ESC starts a new sequence.
                m_pending.pop_back();
                const bool query = osc ? oscIsQuery() : true;
                complete(out, query);
                m_pending.assign(1, kEsc);
                m_state = State::Escape;
                out += feed(std::string_view(&c, 1));
            }
            break;
        }
        case State::Passing:
            if (c == kEsc) { // ST, or a new sequence: the next byte tells
                m_state = State::PassEscape;
                break;
            }
            out += c;
            if ((c == kBel && m_passingFrom == State::Osc) || c == kCan || c == kSub)
                m_state = State::Ground;
            break;
        case State::PassEscape:
            m_state = State::Ground;
            if (c == '\\') {
                out += kEsc;
                out += c;
            } else { // the ESC starts a new sequence
                out += feed(std::string_view(&kEsc, 1));
                out += feed(std::string_view(&c, 1));
            }
            break;
        }
    }
    return out;
}

std::string TerminalQueryFilter::finish()
{
    std::string out = std::move(m_pending);
    m_pending.clear();
    m_state = State::Ground;
    return out;
}

} // namespace sb
