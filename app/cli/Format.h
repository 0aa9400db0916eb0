// Small text formatting and parsing shared by the CLI's commands.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sbcli {

// "2026-11-30 02:51:24" in local time, from milliseconds since the epoch.
std::string localTime(std::int64_t unixMs);

// The words separated by single spaces (a command line for display, not for a shell).
std::string joined(const std::vector<std::string>& words);

// "ROWSxCOLS" (--size), each 1–65535.
sb::Result<std::pair<unsigned short, unsigned short>> parseTerminalSize(const std::string& text);

} // namespace sbcli
