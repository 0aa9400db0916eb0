// libpsl (the public suffix list), opened by `policy suggest` when it generalises hosts
// (LazyLibrary.h): no other command needs it.
#pragma once

#include "base/Error.h"

#include <libpsl.h>

namespace sb {

// The libpsl functions Sandbench calls, all in learning/RegistrableDomain.cpp.
#define SB_PSL_FUNCTIONS(X)                                                                        \
    X(psl_latest)                                                                                  \
    X(psl_builtin)                                                                                 \
    X(psl_registrable_domain)                                                                      \
    X(psl_is_public_suffix2)

struct PslLibrary {
#define SB_PSL_POINTER(name) decltype(&::name) name = nullptr;
    SB_PSL_FUNCTIONS(SB_PSL_POINTER)
#undef SB_PSL_POINTER
};

// Opens libpsl (once, thread-safe) and returns its functions, or why it could not.
Result<const PslLibrary*> loadPsl();

} // namespace sb
