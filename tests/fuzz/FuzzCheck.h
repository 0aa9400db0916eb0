// What every fuzz target checks beyond "no crash": a failed check aborts, as a crash would,
// naming the target and the check.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace sbfuzz {

inline void check(bool ok, const char* what)
{
    if (ok) return;
    std::fprintf(stderr, "%s: check failed: %s\n", program_invocation_short_name, what);
    std::abort();
}

} // namespace sbfuzz
