// Picks a few values out of a JSON text fed in pieces, with bounded memory whatever the text's
// size: the model gateway (ModelUsage.h) reads a request's "model" after a prompt of megabytes,
// and a response's "usage" after its output, without holding either. The picker tracks only
// where it is (the object keys above the current value, at most kMaxDepth levels, each key cut
// at kMaxKey bytes) and copies the raw text of a value at one of the wanted key paths, up to a
// cap; nlohmann's parser then reads that small copy. It is no validator: a text it cannot follow
// (a stray byte where structure is due, nesting too deep) stops it, keeping what it picked.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

class JsonPicker {
  public:
    static constexpr std::size_t kMaxDepth = 128;
    static constexpr std::size_t kMaxKey = 64;
    static constexpr std::size_t kDefaultValueCap = 64 * 1024;

    // paths: each a list of object keys from the top ({"usage"}, {"message", "usage"}); a value
    // inside an array is at no path. A value larger than valueCap bytes is not picked.
    explicit JsonPicker(std::vector<std::vector<std::string>> paths,
                        std::size_t valueCap = kDefaultValueCap);

    void feed(std::string_view bytes);
    // Forgets the text fed so far and what was picked: ready for the next document.
    void reset();

    // The last value seen complete at paths[index], parsed; nullopt when there was none (or its
    // text does not parse).
    std::optional<nlohmann::json> value(std::size_t index) const;
    // The same, when it is a string.
    std::optional<std::string> string(std::size_t index) const;
    // The text stopped being followable (it is not JSON, or nests deeper than kMaxDepth).
    bool stopped() const { return m_state == State::Stopped; }

  private:
    enum class State { Value, AfterValue, Key, Colon, String, Scalar, End, Stopped };
    struct Frame {
        bool object = false;
        bool keyTooLong = false;
        std::string key;
    };

    void step(char c);
    void startValue(char c);
    void endValue(); // a value ended: its container's next is due
    void close(char c);
    std::optional<std::size_t> wantedHere() const;
    void finishCapture();

    std::vector<std::vector<std::string>> m_paths;
    std::size_t m_cap;
    State m_state = State::Value;
    bool m_stringIsKey = false, m_escape = false;
    std::vector<Frame> m_stack;
    // The value being copied: its path's index, and the depth of the stack where it began.
    std::optional<std::size_t> m_capturing;
    std::size_t m_captureDepth = 0;
    std::string m_capture;
    std::vector<std::optional<std::string>> m_found;
};

} // namespace sb
