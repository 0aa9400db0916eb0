#include "base/JsonLayout.h"

#include "base/Bytes.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace sb::jsonlayout {

std::string jsonString(std::string_view s)
{
    return dumpJson(nlohmann::json(std::string(s)));
}

bool blank(std::string_view s)
{
    return s.find_first_not_of(" \t\r\n") == npos;
}

std::size_t skipTrivia(std::string_view t, std::size_t pos)
{
    while (pos < t.size()) {
        if (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\r' || t[pos] == '\n') {
            ++pos;
        } else if (t.compare(pos, 2, "//") == 0) {
            pos = std::min(t.find('\n', pos), t.size());
        } else if (t.compare(pos, 2, "/*") == 0) {
            const std::size_t end = t.find("*/", pos + 2);
            pos = end == npos ? t.size() : end + 2;
        } else {
            break;
        }
    }
    return pos;
}

std::size_t lineBreakIn(std::string_view t, std::size_t pos)
{
    while (pos < t.size()) {
        if (t[pos] == '\n') return pos;
        if (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\r') {
            ++pos;
        } else if (t.compare(pos, 2, "//") == 0) {
            return t.find('\n', pos);
        } else if (t.compare(pos, 2, "/*") == 0) {
            const std::size_t end = t.find("*/", pos + 2);
            if (end == npos) return npos;
            pos = end + 2;
        } else {
            return npos;
        }
    }
    return npos;
}

std::size_t lineStart(std::string_view t, std::size_t pos)
{
    const std::size_t nl = pos == 0 ? npos : t.rfind('\n', pos - 1);
    return nl == npos ? 0 : nl + 1;
}

std::string indentOf(std::string_view t, std::size_t pos)
{
    const std::size_t start = lineStart(t, pos);
    std::size_t end = start;
    while (end < t.size() && (t[end] == ' ' || t[end] == '\t'))
        ++end;
    return std::string(t.substr(start, end - start));
}

bool startsLine(std::string_view t, std::size_t pos)
{
    return lineStart(t, pos) + indentOf(t, pos).size() == pos;
}

std::string objectText(const Members& members, bool multiLine, const std::string& indent,
                       const Style& s)
{
    if (members.empty()) return "{}";
    std::string out;
    if (!multiLine) {
        out = s.spaced ? "{ " : "{";
        for (std::size_t i = 0; i < members.size(); ++i)
            out += (i ? ", " : "") + jsonString(members[i].first) + ": " + members[i].second;
        return out + (s.spaced ? " }" : "}");
    }
    out = "{" + s.nl;
    for (std::size_t i = 0; i < members.size(); ++i)
        out += indent + s.unit + jsonString(members[i].first) + ": " + members[i].second +
               (i + 1 < members.size() ? "," : "") + s.nl;
    return out + indent + "}";
}

std::string arrayText(const std::vector<std::string>& items, bool multiLine,
                      const std::string& indent, const Style& s)
{
    if (items.empty()) return "[]";
    std::string out;
    if (!multiLine) {
        for (const std::string& item : items)
            out += (out.empty() ? "" : ", ") + item;
        return "[" + out + "]";
    }
    out = "[" + s.nl;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += indent + s.unit + items[i] + (i + 1 < items.size() ? "," : "") + s.nl;
    return out + indent + "]";
}

} // namespace sb::jsonlayout
