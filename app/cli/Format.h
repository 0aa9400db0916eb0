// Small text formatting and parsing shared by the CLI's commands.
#pragma once

#include "base/Error.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sbcli {

// "2026-11-30 02:51:24" in local time, from milliseconds since the epoch.
std::string localTime(std::int64_t unixMs);

// The words separated by single spaces (a command line for display, not for a shell).
std::string joined(const std::vector<std::string>& words);
// The same for one line of a list: control characters (a newline) as spaces, and cut with "…"
// after `maxBytes` (at a character's boundary): an agent's command line may be 100 KB long.
std::string commandSummary(const std::vector<std::string>& words, std::size_t maxBytes = 100);

// "ROWSxCOLS" (--size), each 1–65535.
sb::Result<std::pair<unsigned short, unsigned short>> parseTerminalSize(const std::string& text);

// An option's check: a whole number from `min` to `max` written in digits ("-1" is no huge
// number), with an error that says so; `unit` ("seconds") and `note` ("a day") explain `max`.
CLI::Validator wholeNumber(std::uint64_t min, std::uint64_t max, const std::string& unit = {},
                           const std::string& note = {});

} // namespace sbcli
