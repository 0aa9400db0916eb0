#include "recording/RecordingText.h"

#include <cctype>

namespace sb {
namespace {

bool isAsciiWordByte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The code point of the UTF-8 sequence at the start of `s` (non-empty) and its length; an
// invalid sequence is its first byte alone, as U+FFFD.
char32_t decodeUtf8(std::string_view s, std::size_t& length)
{
    const auto lead = static_cast<unsigned char>(s[0]);
    const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    length = 1;
    if (n == 1 || s.size() < n) return 0xFFFD;
    char32_t cp = lead & (0x3F >> (n - 1));
    for (std::size_t k = 1; k < n; ++k) {
        const auto b = static_cast<unsigned char>(s[k]);
        if ((b & 0xC0) != 0x80) return 0xFFFD;
        cp = (cp << 6) | (b & 0x3F);
    }
    length = n;
    return cp;
}

// Non-ASCII characters the index takes for separators: spaces (Unicode 6.1's Z*, which FTS5's
// unicode61 knows) and C1 controls.
bool isUnicodeSeparator(char32_t cp)
{
    return (cp >= 0x80 && cp <= 0xA0) || cp == 0x1680 || cp == 0x180E ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
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

// The option's quoting: FTS5 reads the value of `separators` between single quotes, doubled
// inside; SQL reads the whole between double quotes (RecordingSchema.cpp).
const char* const kTerminalTextTokenizer = "unicode61 categories 'L* N* Co Cf Cn M* P* S*' "
                                           "separators '!\"#$%&''()*+,-./:;<=>?@[\\]^_`{|}~'";

std::vector<std::string> searchTokens(std::string_view text)
{
    std::vector<std::string> tokens;
    std::string current;
    auto cut = [&] {
        if (!current.empty()) tokens.push_back(std::move(current));
        current.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (isAsciiWordByte(c))
                current.push_back(static_cast<char>(c));
            else
                cut();
            ++i;
            continue;
        }
        std::size_t length = 1;
        const char32_t cp = decodeUtf8(text.substr(i), length);
        if (isUnicodeSeparator(cp))
            cut();
        else
            current.append(text.substr(i, length));
        i += length;
    }
    cut();
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
