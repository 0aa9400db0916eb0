// Export of a recorded session: asciicast v2 (plays in asciinema) and JSON Lines (every event;
// schema in docs/recording.md). A file is written atomically (temporary + rename).
#pragma once

#include "base/Bytes.h"
#include "base/Error.h"
#include "recording/RecordingStore.h"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace sb {

enum class ExportFormat { Asciicast, JsonLines };

// Receives the export in pieces; a returned error stops it.
using ExportSink = std::function<Status(std::string_view)>;

Status exportSession(RecordingStore& store, const std::string& id, ExportFormat format,
                     const ExportSink& sink);
// `file` empty: standard output.
Status exportSessionToFile(RecordingStore& store, const std::string& id, ExportFormat format,
                           const std::filesystem::path& file);

} // namespace sb
