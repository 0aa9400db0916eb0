// Where things are in a JSON text: nlohmann::json keeps no positions and silently keeps the last
// of two equal keys, so policy messages that name a line and column come from this second pass.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sb {

struct TextPosition {
    std::size_t line = 1;   // 1-based
    std::size_t column = 1; // 1-based, in bytes
};

// Line and column of a byte offset; an offset past the end is the position after the last byte.
TextPosition positionAt(std::string_view text, std::size_t offset);

// "/a/b~1c": a JSON pointer (RFC 6901) with `token` appended to `parent`.
std::string appendPointer(const std::string& parent, std::string_view token);

class JsonLocator {
  public:
    struct DuplicateKey {
        std::string pointer; // of the repeated key
        std::string key;
        std::size_t offset = 0; // of its second occurrence
        std::size_t firstOffset = 0;
    };

    // Deeper documents are refused: no policy needs them, and pointers to them grow quadratically.
    static constexpr std::size_t kMaxDepth = 32;

    // Scans text that nlohmann::json already accepted (comments allowed): the scan trusts the
    // syntax and only records where each key and value starts.
    explicit JsonLocator(std::string_view text);

    // Byte offset of the value at `pointer`, or of the closest enclosing value that exists.
    std::size_t valueOffset(const std::string& pointer) const;
    // Byte offset of the key naming `pointer` (the opening quote); the value's for array items.
    std::size_t keyOffset(const std::string& pointer) const;

    // Exactly the value at `pointer` (no enclosing one): where its key starts (the value's start
    // for array items and the document), and the value's first byte and one past its last.
    struct Span {
        std::size_t key = 0;
        std::size_t begin = 0;
        std::size_t end = 0;
    };
    std::optional<Span> span(const std::string& pointer) const;

    TextPosition value(const std::string& pointer) const
    {
        return positionAt(m_text, valueOffset(pointer));
    }
    TextPosition key(const std::string& pointer) const
    {
        return positionAt(m_text, keyOffset(pointer));
    }
    TextPosition at(std::size_t offset) const { return positionAt(m_text, offset); }

    // The first key repeated within one object, in document order.
    const std::optional<DuplicateKey>& duplicate() const { return m_duplicate; }
    // Offset of the first array or object nested deeper than kMaxDepth; the scan stops there.
    std::optional<std::size_t> tooDeep() const { return m_tooDeep; }

  private:
    struct Spot {
        std::size_t key = 0;
        std::size_t value = 0;
        std::size_t end = 0; // past the value; 0 for a container the scan did not finish
    };
    void scan();
    std::size_t skipSpace(std::size_t pos) const;
    std::size_t skipScalar(std::size_t pos) const;
    std::string decodeKey(std::size_t begin, std::size_t end) const;
    const Spot* nearest(const std::string& pointer) const;

    std::string_view m_text;
    std::unordered_map<std::string, Spot> m_spots;
    std::optional<DuplicateKey> m_duplicate;
    std::optional<std::size_t> m_tooDeep;
};

} // namespace sb
