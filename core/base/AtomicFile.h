// Small files whole. Replacing one so that a reader sees the old content or the new, never a mix,
// and a crash leaves one of the two: a temporary file in the same folder, fsync, rename over the
// old name, fsync of the folder. Used for policy documents, learned-rules files, the retention
// settings and (without the fsyncs) each session's session.json.
#pragma once

#include "base/Error.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace sb {

struct AtomicWriteOptions {
    // The folder of the file, already open (and perhaps locked) by the caller; -1: opened here.
    int dirFd = -1;
    // The mode of a file that does not exist yet, before the umask. A file that exists keeps its
    // mode (and, when root writes it, its owner).
    mode_t newFileMode = 0666;
    // fsync of the file before the rename and of the folder after it. Without: a reader still
    // sees old or new, never a mix; after a machine crash ext4 (auto_da_alloc, the default) and
    // btrfs still hold one of the two, as they write a file's data before a rename over another.
    bool durable = true;
};

// Writes `text` to `file` as above. `file` itself is replaced: a symlink becomes a regular file,
// so callers that want to follow links resolve the path first. On failure the old file is left
// as it was and the temporary file is removed.
Status writeFileAtomically(const std::filesystem::path& file, std::string_view text,
                           const AtomicWriteOptions& options = {});

// A file's bytes, all of them; empty when it cannot be read (for callers to which a missing file
// and an empty one say the same: /proc entries of a process gone, a system file not there).
std::string readWholeFile(const std::filesystem::path& file);

} // namespace sb
