// libnftables, opened by a filtered sandbox's init when it sets up its network (LazyLibrary.h):
// no other command needs it.
#pragma once

#include "base/Error.h"

#include <nftables/libnftables.h>

namespace sb {

// The libnftables functions Sandbench calls, all in sandbox/NetworkRedirect.cpp.
#define SB_NFTABLES_FUNCTIONS(X)                                                                   \
    X(nft_ctx_new)                                                                                 \
    X(nft_ctx_free)                                                                                \
    X(nft_ctx_buffer_output)                                                                       \
    X(nft_ctx_buffer_error)                                                                        \
    X(nft_ctx_get_error_buffer)                                                                    \
    X(nft_run_cmd_from_buffer)

struct NftablesLibrary {
#define SB_NFTABLES_POINTER(name) decltype(&::name) name = nullptr;
    SB_NFTABLES_FUNCTIONS(SB_NFTABLES_POINTER)
#undef SB_NFTABLES_POINTER
};

// Opens libnftables (once, thread-safe) and returns its functions, or why it could not.
Result<const NftablesLibrary*> loadNftables();

} // namespace sb
