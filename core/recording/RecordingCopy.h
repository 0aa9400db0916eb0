// One session's recording as a database of its own: the same tables and schema as the
// recordings database, holding that session only, so every reader of recordings (replay, search,
// export) works on it unchanged. The window fetches a remote session's recording this way over
// the host's connection (`sandbench-cli export SESSION --format sqlite`, issue 40).
#pragma once

#include "base/Error.h"
#include "recording/RecordingStore.h"

#include <filesystem>
#include <string>

namespace sb {

// Writes session `id` of `store` into `file`, a new database (an existing file is replaced);
// nothing else of `store` goes with it. The file needs no WAL beside it.
Status copySessionRecording(RecordingStore& store, const std::string& id,
                            const std::filesystem::path& file);

} // namespace sb
