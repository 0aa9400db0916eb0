// Terminal output as searchable text: a stateful stripper that removes escape sequences and
// control characters (so a sequence split across two chunks is still removed), and the
// translation of a user's search text into an FTS5 query plus the exact check behind it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sb {

class TerminalTextStripper {
  public:
    // Appends the printable text of `bytes` to `out`. CR and LF become '\n' (CR LF one '\n'),
    // TAB stays, other controls, CSI/OSC/DCS/APC/PM/SOS strings and ESC sequences vanish.
    void feed(std::string_view bytes, std::string& out);
    std::string strip(std::string_view bytes)
    {
        std::string out;
        feed(bytes, out);
        return out;
    }

  private:
    enum class State { Ground, Escape, EscIntermediate, Csi, String, StringEscape };
    State m_state = State::Ground;
    bool m_lastWasCr = false;
};

// How the full-text index cuts terminal text into words (an FTS5 tokenize option): runs of
// ASCII letters and digits, or of other characters but spaces and controls, so that letters of
// other scripts, symbols and emoji ("✓", "✗", "🎉", "—") are words too. unicode61 with every
// category but spaces and controls as word characters, and ASCII punctuation as separators.
extern const char* const kTerminalTextTokenizer;

// Words of a search text as the index tokenizes them (kTerminalTextTokenizer).
std::vector<std::string> searchTokens(std::string_view text);

// An FTS5 MATCH expression requiring every word ("a" AND "b" AND "c"*): the last word may be a
// prefix. Empty when the text has no word.
std::string ftsQuery(std::string_view text);

// Where `needle` occurs in `haystack`, ignoring ASCII case and treating any run of whitespace
// as one space; npos if nowhere. Sets `length` to the matched span.
size_t findLoosely(std::string_view haystack, std::string_view needle, size_t& length);

// `around` characters either side of [pos, pos+len), on one line (newlines become spaces),
// never cutting a UTF-8 character.
std::string snippet(std::string_view text, size_t pos, size_t len, size_t around = 40);

} // namespace sb
