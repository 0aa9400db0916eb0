// Small text formatting shared by the CLI's listings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sbcli {

// "2026-11-30 02:51:24" in local time, from milliseconds since the epoch.
std::string localTime(std::int64_t unixMs);

// The words separated by single spaces (a command line for display, not for a shell).
std::string joined(const std::vector<std::string>& words);

} // namespace sbcli
