// How terminal bytes and keyframes are stored: zstd when it saves space, raw otherwise. The
// `enc` column says which, so old rows stay readable whatever later versions choose.
#pragma once

#include "base/Error.h"

#include <string>
#include <string_view>

namespace sb {

enum class Encoding : int { Raw = 0, Zstd = 1 };

struct EncodedBlob {
    Encoding encoding = Encoding::Raw;
    std::string bytes;
};

// Compresses `data` (zstd, fast level) unless it is small or does not shrink.
EncodedBlob encodeBlob(std::string_view data);
Result<std::string> decodeBlob(std::string_view stored, int encoding);

} // namespace sb
