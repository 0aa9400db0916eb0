// Replaying a recorded session in a terminal: the output bytes written with their recorded
// timing (scaled by `speed`, pauses capped), starting from the screen rebuilt at `fromNs`.
#pragma once

#include "base/Error.h"
#include "recording/RecordingStore.h"

#include <cstdint>
#include <functional>
#include <string>

namespace sb {

struct ReplayOptions {
    double speed = 1.0;
    std::int64_t fromNs = 0;
    std::int64_t toNs = INT64_MAX;
    std::int64_t maxPauseNs = 2'000'000'000; // long idle gaps are shortened to this
    int outFd = 1;
    // Waits `ns`; tests replace it to run without sleeping.
    std::function<void(std::int64_t ns)> sleep;
};

Status replaySession(RecordingStore& store, const std::string& id, const ReplayOptions& options);

// "90", "1.5", "2m", "1m30s", "1h2m3s", "250ms" -> nanoseconds.
Result<std::int64_t> parseDuration(const std::string& text);
std::string formatDuration(std::int64_t ns); // "1h02m03.4s", "3.2s"

} // namespace sb
