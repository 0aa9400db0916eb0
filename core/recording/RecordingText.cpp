#include "recording/RecordingText.h"

#include <cctype>

namespace sb {
namespace {

bool isWordByte(unsigned char c)
{
    return std::isalnum(c) != 0 || c >= 0x80;
}

bool isSpace(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

} // namespace

void TerminalTextStripper::feed(std::string_view bytes, std::string& out)
{
    out.reserve(out.size() + bytes.size());
    for (char ch : bytes) {
        auto c = static_cast<unsigned char>(ch);
        switch (m_state) {
        case State::Ground:
            if (c == 0x1b) {
                m_state = State::Escape;
            } else if (c == '\r') {
                out.push_back('\n');
                m_lastWasCr = true;
                continue;
            } else if (c == '\n') {
                if (!m_lastWasCr) out.push_back('\n');
            } else if (c == '\t' || c >= 0x20) {
                if (c != 0x7f) out.push_back(ch);
            }
            break;
        case State::Escape:
            if (c == '[')
                m_state = State::Csi;
            else if (c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X')
                m_state = State::String; // OSC, DCS, APC, PM, SOS: until BEL or ST
            else if (c >= 0x20 && c <= 0x2f)
                m_state = State::EscIntermediate; // e.g. ESC ( B
            else if (c == 0x1b)
                m_state = State::Escape;
            else
                m_state = State::Ground; // a two-byte sequence (ESC 7, ESC M, …) or junk
            break;
        case State::EscIntermediate:
            if (c < 0x20 || c > 0x2f) m_state = c == 0x1b ? State::Escape : State::Ground;
            break;
        case State::Csi:
            // Parameters and intermediates (0x20–0x3f) until a final byte (0x40–0x7e).
            if (c == 0x1b)
                m_state = State::Escape;
            else if (c >= 0x40 && c <= 0x7e)
                m_state = State::Ground;
            else if (c == 0x18 || c == 0x1a)
                m_state = State::Ground; // CAN/SUB abort a sequence
            break;
        case State::String:
            if (c == 0x07 || c == 0x18 || c == 0x1a)
                m_state = State::Ground;
            else if (c == 0x1b)
                m_state = State::StringEscape;
            break;
        case State::StringEscape:
            m_state = c == '\\' ? State::Ground : State::String;
            break;
        }
        m_lastWasCr = false;
    }
}

std::vector<std::string> searchTokens(std::string_view text)
{
    std::vector<std::string> tokens;
    std::string current;
    for (char ch : text) {
        if (isWordByte(static_cast<unsigned char>(ch))) {
            current.push_back(ch);
        } else if (!current.empty()) {
            tokens.push_back(std::move(current));
            current.clear();
        }
    }
    if (!current.empty()) tokens.push_back(std::move(current));
    return tokens;
}

std::string ftsQuery(std::string_view text)
{
    std::vector<std::string> tokens = searchTokens(text);
    std::string query;
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (i > 0) query += " AND ";
        // Tokens hold no quotes (only word bytes), so quoting is safe.
        query += '"' + tokens[i] + '"';
        if (i + 1 == tokens.size()) query += '*';
    }
    return query;
}

size_t findLoosely(std::string_view haystack, std::string_view needle, size_t& length)
{
    // Normalise the needle: trimmed, whitespace runs as one space, lower case.
    std::string pattern;
    for (char ch : needle) {
        auto c = static_cast<unsigned char>(ch);
        if (isSpace(c)) {
            if (!pattern.empty() && pattern.back() != ' ') pattern.push_back(' ');
        } else {
            pattern.push_back(static_cast<char>(std::tolower(c)));
        }
    }
    while (!pattern.empty() && pattern.back() == ' ')
        pattern.pop_back();
    if (pattern.empty()) return std::string_view::npos;
    for (size_t start = 0; start < haystack.size(); ++start) {
        size_t h = start, p = 0;
        while (p < pattern.size() && h < haystack.size()) {
            auto c = static_cast<unsigned char>(haystack[h]);
            if (pattern[p] == ' ') {
                if (!isSpace(c)) break;
                while (h < haystack.size() && isSpace(static_cast<unsigned char>(haystack[h])))
                    ++h;
                ++p;
                continue;
            }
            if (static_cast<char>(std::tolower(c)) != pattern[p]) break;
            ++h, ++p;
        }
        if (p == pattern.size()) {
            length = h - start;
            return start;
        }
    }
    return std::string_view::npos;
}

std::string snippet(std::string_view text, size_t pos, size_t len, size_t around)
{
    auto isContinuation = [&](size_t i) {
        return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80;
    };
    size_t begin = pos > around ? pos - around : 0;
    while (begin > 0 && isContinuation(begin))
        --begin;
    size_t end = std::min(text.size(), pos + len + around);
    while (end < text.size() && isContinuation(end))
        ++end;
    std::string out;
    if (begin > 0) out += "…";
    for (size_t i = begin; i < end; ++i) {
        char c = text[i];
        bool space = isSpace(static_cast<unsigned char>(c));
        if (space && (out.empty() || out.back() == ' ')) continue;
        out.push_back(space ? ' ' : c);
    }
    if (end < text.size()) out += "…";
    return out;
}

} // namespace sb
