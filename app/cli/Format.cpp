#include "Format.h"

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

sb::Result<std::pair<unsigned short, unsigned short>> parseTerminalSize(const std::string& text)
{
    unsigned rows = 0, cols = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%u%c%u%c", &rows, &x, &cols, &extra) != 3 || x != 'x' ||
        rows == 0 || cols == 0 || rows > 65535 || cols > 65535)
        return sb::inputError("--size '" + text + "': expected ROWSxCOLS, such as 24x80");
    return std::pair{static_cast<unsigned short>(rows), static_cast<unsigned short>(cols)};
}

} // namespace sbcli
