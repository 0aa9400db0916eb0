// Removing a folder and all it holds, as the owner of its files may: never following a link,
// and making each folder writable first (overlayfs leaves its work folder at mode 000; an image
// or an agent may leave folders without write permission).
#pragma once

#include "base/Error.h"

#include <filesystem>

namespace sb {

// `path` (a folder, a file or a link) and all it holds; nothing there is no error.
Status removeFolderTree(const std::filesystem::path& path);

// Whether folder `path` holds anything, or cannot be read (it may then hold something, which
// removing it would lose). A folder that is not there holds nothing.
bool mayHoldFiles(const std::filesystem::path& path);

} // namespace sb
