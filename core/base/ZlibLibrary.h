// zlib, opened when the first gzip-encoded upload reaches `serve`'s E2B API (LazyLibrary.h):
// nothing else of Sandbench needs it.
#pragma once

#include "base/Error.h"

#include <zlib.h>

namespace sb {

// The zlib functions Sandbench calls (inflateInit2 is a macro over inflateInit2_).
#define SB_ZLIB_FUNCTIONS(X)                                                                       \
    X(inflateInit2_)                                                                               \
    X(inflate)                                                                                     \
    X(inflateEnd)

struct ZlibLibrary {
#define SB_ZLIB_POINTER(name) decltype(&::name) name = nullptr;
    SB_ZLIB_FUNCTIONS(SB_ZLIB_POINTER)
#undef SB_ZLIB_POINTER
};

// Opens libz (once, thread-safe) and returns its functions, or why it could not.
Result<const ZlibLibrary*> loadZlib();

} // namespace sb
