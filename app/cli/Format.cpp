#include "Format.h"

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

} // namespace sbcli
