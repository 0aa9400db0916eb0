#include "base/JsonLocator.h"

#include <nlohmann/json.hpp>

namespace sb {

TextPosition positionAt(std::string_view text, std::size_t offset)
{
    TextPosition pos;
    const std::size_t end = std::min(offset, text.size());
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++pos.line;
            pos.column = 1;
        } else {
            ++pos.column;
        }
    }
    return pos;
}

std::string appendPointer(const std::string& parent, std::string_view token)
{
    std::string out = parent + '/';
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

JsonLocator::JsonLocator(std::string_view text) : m_text(text)
{
    scan();
}

std::size_t JsonLocator::skipSpace(std::size_t pos) const
{
    while (pos < m_text.size()) {
        const char c = m_text[pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++pos;
        } else if (m_text.compare(pos, 2, "//") == 0) {
            pos = m_text.find('\n', pos);
        } else if (m_text.compare(pos, 2, "/*") == 0) {
            pos = m_text.find("*/", pos + 2);
            pos = pos == std::string_view::npos ? pos : pos + 2;
        } else {
            break;
        }
    }
    return std::min(pos, m_text.size());
}

// Past a string, number or literal starting at `pos`.
std::size_t JsonLocator::skipScalar(std::size_t pos) const
{
    if (pos < m_text.size() && m_text[pos] == '"') {
        for (++pos; pos < m_text.size() && m_text[pos] != '"'; ++pos) {
            if (m_text[pos] == '\\') ++pos;
        }
        return std::min(pos + 1, m_text.size());
    }
    // Numbers and literals hold none of these, and a comment may follow them directly.
    while (pos < m_text.size() &&
           std::string_view(",]} \t\r\n/").find(m_text[pos]) == std::string_view::npos)
        ++pos;
    return pos;
}

std::string JsonLocator::decodeKey(std::size_t begin, std::size_t end) const
{
    std::string_view raw = m_text.substr(begin, end - begin);
    // In a document the parser refuses, a "key" may be anything: its text is all it has.
    const bool quoted = raw.size() >= 2 && raw.front() == '"' && raw.back() == '"';
    if (!quoted) return std::string(raw);
    if (raw.find('\\') == std::string_view::npos) return std::string(raw.substr(1, raw.size() - 2));
    // Escapes (\u00e9, surrogate pairs…) decode exactly as the parser decoded them.
    const auto decoded = nlohmann::json::parse(raw, nullptr, false);
    return decoded.is_string() ? decoded.get<std::string>() : std::string(raw);
}

// Iterative, so a deeply nested document cannot exhaust the stack.
void JsonLocator::scan()
{
    struct Frame {
        std::string pointer;
        bool object = false;
        std::size_t count = 0;
        std::unordered_map<std::string, std::size_t> keys; // key → offset of its first occurrence
    };
    std::vector<Frame> stack;
    std::size_t pos = skipSpace(0);
    if (m_text.compare(pos, 3, "\xEF\xBB\xBF") ==
        0) // a UTF-8 byte order mark, which the parser skips
        pos = skipSpace(pos + 3);
    std::string pointer;
    std::size_t keyAt = pos;

    for (;;) {
        // A value starts at `pos`.
        m_spots[pointer] = Spot{keyAt, pos};
        if (pos < m_text.size() && (m_text[pos] == '{' || m_text[pos] == '[')) {
            if (stack.size() == kMaxDepth) {
                m_tooDeep = pos;
                return;
            }
            stack.push_back(Frame{pointer, m_text[pos] == '{', 0, {}});
            ++pos;
        } else {
            pos = skipScalar(pos);
            m_spots[pointer].end = pos;
        }
        // Close finished containers, then find where the next value starts.
        for (;;) {
            pos = skipSpace(pos);
            if (stack.empty() || pos >= m_text.size()) return;
            const char c = m_text[pos];
            if (c == '}' || c == ']') {
                m_spots[stack.back().pointer].end = pos + 1;
                stack.pop_back();
                ++pos;
                continue;
            }
            if (c == ',') pos = skipSpace(pos + 1);
            break;
        }
        Frame& frame = stack.back();
        if (frame.object) {
            keyAt = pos;
            const std::size_t keyEnd = skipScalar(pos);
            const std::string key = decodeKey(pos, keyEnd);
            pointer = appendPointer(frame.pointer, key);
            if (auto [it, fresh] = frame.keys.emplace(key, keyAt); !fresh && !m_duplicate)
                m_duplicate = DuplicateKey{pointer, key, keyAt, it->second};
            pos = skipSpace(skipSpace(keyEnd) + 1); // past the ':'
        } else {
            pointer = appendPointer(frame.pointer, std::to_string(frame.count));
            keyAt = pos;
        }
        ++frame.count;
    }
}

const JsonLocator::Spot* JsonLocator::nearest(const std::string& pointer) const
{
    std::string p = pointer;
    for (;;) {
        if (auto it = m_spots.find(p); it != m_spots.end()) return &it->second;
        if (p.empty()) return nullptr;
        p.erase(p.rfind('/'));
    }
}

std::size_t JsonLocator::valueOffset(const std::string& pointer) const
{
    const Spot* spot = nearest(pointer);
    return spot ? spot->value : 0;
}

std::optional<JsonLocator::Span> JsonLocator::span(const std::string& pointer) const
{
    auto it = m_spots.find(pointer);
    if (it == m_spots.end() || it->second.end == 0) return std::nullopt;
    return Span{it->second.key, it->second.value, it->second.end};
}

std::size_t JsonLocator::keyOffset(const std::string& pointer) const
{
    const Spot* spot = nearest(pointer);
    return spot ? spot->key : 0;
}

} // namespace sb
