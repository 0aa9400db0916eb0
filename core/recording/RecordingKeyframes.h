// Screen keyframes: the writer keeps a headless screen (ScreenModel) in step with the output
// and stores a snapshot every 256 KiB of output or 10 s, so rebuilding the screen at any time
// costs one snapshot plus at most ~256 KiB of output fed to libvterm.
#pragma once

#include "base/Error.h"
#include "recording/RecordingSqlite.h"
#include "recording/ScreenModel.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace sb {

constexpr std::uint64_t kKeyframeEveryBytes = 256 * 1024;
constexpr std::int64_t kKeyframeEveryNs = 10'000'000'000;

struct Keyframe {
    std::int64_t tNs = 0, seq = 0; // the screen after event `seq`, at its time
    unsigned rows = 0, cols = 0;
    std::string snapshot;
};

class KeyframeBuilder {
  public:
    KeyframeBuilder(unsigned rows, unsigned cols) : m_screen(rows, cols) {}
    void resize(unsigned rows, unsigned cols) { m_screen.resize(rows, cols); }
    // Feeds one output chunk; true when a keyframe is due after it.
    bool output(std::int64_t tNs, std::string_view bytes);
    // The keyframe after event `seq` (at `tNs`); restarts the interval.
    Keyframe take(std::int64_t tNs, std::int64_t seq);
    static Result<SqliteStatement> prepareInsert(SqliteDb& db);
    static Status store(SqliteStatement& insert, std::int64_t sid, const Keyframe& keyframe);

  private:
    ScreenModel m_screen;
    std::uint64_t m_bytesSince = 0;
    std::int64_t m_lastNs = 0;
};

// Builds the keyframes of a recorded session from its events (used by the migration that
// introduced keyframes).
Status buildKeyframes(SqliteDb& db, std::int64_t sid);

// Puts `screen` in the state it had at `tNs` (since the session's start): the newest keyframe
// at or before it, then the output and resizes that follow. Returns the seq of the last event
// applied (-1 if none).
Result<std::int64_t> rebuildScreen(SqliteDb& db, std::int64_t sid, std::int64_t tNs,
                                   ScreenModel& screen);

} // namespace sb
