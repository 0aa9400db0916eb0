// The layout of a JSON text with comments (// and /* */), for editing a document in place
// without disturbing it: where whitespace and comments end, where lines start and how they are
// indented, and new values written in the document's own style.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sb::jsonlayout {

constexpr std::size_t npos = std::string_view::npos;

// "text" as a JSON string, escapes included.
std::string jsonString(std::string_view s);
// Only whitespace.
bool blank(std::string_view s);
// Past the whitespace and comments that start at `pos`.
std::size_t skipTrivia(std::string_view t, std::size_t pos);
// The first line break among the whitespace and comments from `pos` (a // comment ends at one),
// or npos when a token comes first.
std::size_t lineBreakIn(std::string_view t, std::size_t pos);
std::size_t lineStart(std::string_view t, std::size_t pos);
// The spaces and tabs that start the line holding `pos`.
std::string indentOf(std::string_view t, std::size_t pos);
// Only spaces and tabs before `pos` on its line.
bool startsLine(std::string_view t, std::size_t pos);

// How a document is written, so that what is added looks like what is there.
struct Style {
    std::string nl = "\n";
    std::string unit = "  ";  // one level of indentation
    bool spaced = true;       // { "a": 1 } rather than {"a": 1}
    bool prettyRules = false; // rules written over several lines each
    bool multiLine = true;    // the document is not all on one line
};

// Keys and their values as written: {"action", "\"deny\""}.
using Members = std::vector<std::pair<std::string, std::string>>;

// An object on one line, or over several with `indent` before its closing brace and one more
// level before each member.
std::string objectText(const Members& members, bool multiLine, const std::string& indent,
                       const Style& s);
// An array of values already written, likewise.
std::string arrayText(const std::vector<std::string>& items, bool multiLine,
                      const std::string& indent, const Style& s);

} // namespace sb::jsonlayout
