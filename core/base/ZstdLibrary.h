// zstd, opened when the first terminal output is compressed or read back (LazyLibrary.h): a
// `run` whose command prints nothing never needs it.
#pragma once

#include "base/Error.h"

#include <zstd.h>

namespace sb {

// The zstd functions Sandbench calls, all in RecordingCodec.cpp.
#define SB_ZSTD_FUNCTIONS(X)                                                                       \
    X(ZSTD_compressBound)                                                                          \
    X(ZSTD_compressCCtx)                                                                           \
    X(ZSTD_createCCtx)                                                                             \
    X(ZSTD_createDCtx)                                                                             \
    X(ZSTD_decompressDCtx)                                                                         \
    X(ZSTD_freeCCtx)                                                                               \
    X(ZSTD_freeDCtx)                                                                               \
    X(ZSTD_getFrameContentSize)                                                                    \
    X(ZSTD_isError)

struct ZstdLibrary {
#define SB_ZSTD_POINTER(name) decltype(&::name) name = nullptr;
    SB_ZSTD_FUNCTIONS(SB_ZSTD_POINTER)
#undef SB_ZSTD_POINTER
};

// Opens libzstd (once, thread-safe) and returns its functions, or why it could not.
Result<const ZstdLibrary*> loadZstd();

} // namespace sb
