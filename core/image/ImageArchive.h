// Unpacking a root file system, safely, whatever the archive holds: every entry lands beneath
// the destination or nowhere. Paths that are absolute or climb out (..), device nodes, FIFOs and
// sockets are skipped; setuid and setgid bits are cleared; hard links must point inside; nothing
// is written through a symbolic link; each of these is a line of the report. Symbolic links
// themselves are kept as they are: absolute ones are how a root file system links, and once the
// image is the sandbox's root they resolve inside it. Files belong to the importing user.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sb {

struct ImportReport {
    std::uint64_t files = 0;        // entries written: files, folders, links
    std::uint64_t bytes = 0;        // file content written
    std::vector<std::string> notes; // what was skipped or changed, and why (the first kMaxNotes)
    std::uint64_t moreNotes = 0;    // past those
    static constexpr std::size_t kMaxNotes = 200;
    void note(std::string line);
};

// Where entries come from: a tar archive (any compression libarchive reads) or a folder copied
// as it is (without following its symbolic links).
struct ArchiveSource {
    enum class Kind { File, Folder };
    Kind kind = Kind::File;
    std::filesystem::path path;
    std::uint64_t maxBytes = UINT64_MAX; // content past this much is an error (fuzzing: bombs)
};

// Unpacks `source` into the folder `root` (which exists). As a `layer` of an OCI or `docker save`
// image, its whiteouts apply first: ".wh.NAME" removes NAME of the layers below, and
// ".wh..wh..opq" empties its folder of them. An error names the source and the entry; what was
// unpacked before it stays (the caller unpacks into a folder it removes on failure).
Status unpackInto(const ArchiveSource& source, const std::filesystem::path& root, bool layer,
                  ImportReport& report);

} // namespace sb
