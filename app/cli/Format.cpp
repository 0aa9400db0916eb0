#include "Format.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace sbcli {

std::string localTime(std::int64_t unixMs)
{
    std::time_t t = static_cast<std::time_t>(unixMs / 1000);
    std::tm tm{};
    ::localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

std::string joined(const std::vector<std::string>& words)
{
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string commandSummary(const std::vector<std::string>& words, std::size_t maxBytes)
{
    std::string line = joined(words);
    for (char& c : line)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    if (line.size() <= maxBytes) return line;
    std::size_t cut = maxBytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xc0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    line.resize(cut);
    return line + "…";
}

sb::Result<std::pair<unsigned short, unsigned short>> parseTerminalSize(const std::string& text)
{
    unsigned rows = 0, cols = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%u%c%u%c", &rows, &x, &cols, &extra) != 3 || x != 'x' ||
        rows == 0 || cols == 0 || rows > 65535 || cols > 65535)
        return sb::inputError("--size '" + text + "': expected ROWSxCOLS, such as 24x80");
    return std::pair{static_cast<unsigned short>(rows), static_cast<unsigned short>(cols)};
}

CLI::Validator wholeNumber(std::uint64_t min, std::uint64_t max, const std::string& unit,
                           const std::string& note)
{
    const std::string expected = "a whole number from " + std::to_string(min) + " to " +
                                 std::to_string(max) + (unit.empty() ? "" : " " + unit) +
                                 (note.empty() ? "" : " (" + note + ")");
    return CLI::Validator(
        [min, max, expected](std::string& text) -> std::string {
            std::uint64_t n = 0;
            const char* end = text.data() + text.size();
            auto [stop, error] = std::from_chars(text.data(), end, n);
            if (text.empty() || error != std::errc() || stop != end || n < min || n > max)
                return "'" + text + "' is not " + expected;
            return {};
        },
        "");
}

} // namespace sbcli
