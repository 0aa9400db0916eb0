// Reading a recorded event's JSON payload (docs/recording.md) without ever throwing: a field of
// another type than expected reads as absent. Shared by what learns from recordings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace sb::recorded {

// The string field `key`, or "" when it is missing or not a string.
inline std::string text(const nlohmann::json& j, const char* key)
{
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace sb::recorded
