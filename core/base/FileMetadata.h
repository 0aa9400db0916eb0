// A file's metadata: short key/value texts a client keeps on a file (E2B's envd 0.6.2 file
// metadata), stored as the file's extended attributes "user.e2b.KEY", so they go where the
// file goes (a rename keeps them, a write that replaces the file starts without them) and a
// process of the sandbox reads and sets the same ones (os.setxattr, setfattr). The exec helper
// writes and reads them; the supervisor and the E2B API check them with this one rule.
#pragma once

#include "base/Error.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace sb {

constexpr std::string_view kFileMetadataXattrPrefix = "user.e2b.";
// The kernel's bound of an attribute's name (255 bytes) less the prefix.
constexpr std::size_t kMaxFileMetadataKey = 255 - kFileMetadataXattrPrefix.size();
// All of a file's metadata (prefixed names and values): what one ext4 block holds, with room.
constexpr std::size_t kMaxFileMetadataBytes = 4096;

// Whether `metadata` is a JSON object of texts that can be kept: keys of 1 to
// kMaxFileMetadataKey printable ASCII bytes, values of printable ASCII, all within
// kMaxFileMetadataBytes. The error names the key at fault.
Status checkFileMetadata(const nlohmann::json& metadata);

} // namespace sb
