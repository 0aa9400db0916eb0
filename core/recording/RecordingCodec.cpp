#include "recording/RecordingCodec.h"

#include "base/LazyLibrary.h"
#include "base/ZstdLibrary.h"

#include <memory>

namespace sb {
namespace {

// Below this, zstd's frame header eats most of the gain and the row overhead dominates anyway.
constexpr size_t kMinCompressBytes = 128;
// Level 3 is zstd's default: ~4x on terminal text, hundreds of MB/s on one core.
constexpr int kLevel = 3;
// The largest chunk a reader decompresses: far above what the writer stores (terminal chunks of
// at most a few hundred KiB, keyframes of a 1000×1000 screen), far below what a damaged frame
// header may claim.
constexpr unsigned long long kMaxDecodedBytes = 64ull << 20;

// zstd's functions, or null when it cannot be opened (then nothing is compressed).
const ZstdLibrary* zstd()
{
    static const ZstdLibrary* const lib = loadedOrNull(loadZstd);
    return lib;
}

struct CCtxFree {
    void operator()(ZSTD_CCtx* c) const { zstd()->ZSTD_freeCCtx(c); }
};
struct DCtxFree {
    void operator()(ZSTD_DCtx* c) const { zstd()->ZSTD_freeDCtx(c); }
};

} // namespace

EncodedBlob encodeBlob(std::string_view data)
{
    EncodedBlob out;
    if (const ZstdLibrary* z = zstd(); z != nullptr && data.size() >= kMinCompressBytes) {
        // One context per thread: creating one per chunk would cost more than compressing.
        thread_local std::unique_ptr<ZSTD_CCtx, CCtxFree> owned(z->ZSTD_createCCtx());
        ZSTD_CCtx* ctx = owned.get();
        std::string buffer(z->ZSTD_compressBound(data.size()), '\0');
        size_t n = ctx != nullptr ? z->ZSTD_compressCCtx(ctx, buffer.data(), buffer.size(),
                                                         data.data(), data.size(), kLevel)
                                  : 0;
        if (ctx != nullptr && !z->ZSTD_isError(n) && n + 8 < data.size()) {
            buffer.resize(n);
            out.encoding = Encoding::Zstd;
            out.bytes = std::move(buffer);
            return out;
        }
    }
    out.bytes.assign(data);
    return out;
}

Result<std::string> decodeBlob(std::string_view stored, int encoding)
{
    if (encoding == static_cast<int>(Encoding::Raw)) return std::string(stored);
    if (encoding != static_cast<int>(Encoding::Zstd))
        return Error{ErrorCode::Unsupported, 0,
                     "recording: unknown encoding " + std::to_string(encoding) +
                         " (written by a newer Sandbench?)"};
    const ZstdLibrary* z = zstd();
    if (z == nullptr) {
        Error e = loadZstd().error();
        return Error{e.code, 0, "recording: cannot read a compressed chunk: " + e.message};
    }
    unsigned long long size = z->ZSTD_getFrameContentSize(stored.data(), stored.size());
    // A zstd block holds at most 128 KiB and takes at least 4 bytes (a run of one byte): a
    // frame claiming more than that ratio allows is damaged, whatever its header says.
    const unsigned long long possible = (stored.size() / 4 + 1) * (128ull << 10);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
        size > kMaxDecodedBytes || size > possible)
        return inputError("recording: damaged compressed chunk");
    std::string out(static_cast<size_t>(size), '\0');
    thread_local std::unique_ptr<ZSTD_DCtx, DCtxFree> owned(z->ZSTD_createDCtx());
    ZSTD_DCtx* ctx = owned.get();
    if (ctx == nullptr) return Error{ErrorCode::Internal, 0, "recording: out of memory for zstd"};
    size_t n = z->ZSTD_decompressDCtx(ctx, out.data(), out.size(), stored.data(), stored.size());
    if (z->ZSTD_isError(n) || n != out.size())
        return inputError("recording: damaged compressed chunk");
    return out;
}

} // namespace sb
