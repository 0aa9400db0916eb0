// The supervisor's process and address-space limits, as the caller's shell set them (ulimit -u,
// ulimit -v). Below what a session needs, a thread or one of the sandbox's processes would fail
// to start half-way through the session; the start is refused before anything starts instead,
// naming the limit, as raiseOpenFileLimit() does for ulimit -n.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <string>

namespace sb {

// The supervisor's threads (about ten), the sandbox's init, exec helper and command, and room
// for the command's own processes. RLIMIT_NPROC counts every task of the user, threads too.
inline constexpr std::uint64_t kMinimumProcesses = 64;
// The supervisor's address space, mostly reserved and never touched: each thread's stack and
// the malloc arena glibc reserves for a thread (64 MiB each).
inline constexpr std::uint64_t kMinimumAddressSpaceKiB = 1024 * 1024;

// An error naming the limit when ulimit -u or ulimit -v is below what a session needs. Root
// lifts its process limit where it may: its sandbox runs as another uid, held to it.
Status checkProcessLimits();

// For an error with EFBIG: " (the file-size limit, ulimit -f N, …)", naming the limit that
// stopped the file; empty when no such limit is set.
std::string fileSizeLimitNote();

// Whether `file` has grown to within 64 KiB (the largest page a database writes at once) of
// the file-size limit: a write that failed on it is likely to have failed with EFBIG.
bool reachedFileSizeLimit(const std::string& file);

// What an error of starting a thread or process (EAGAIN, ENOMEM) is likely to come from, to add
// to its message: "the process limit (ulimit -u 80) or …", or empty when neither is set.
std::string limitsHint();
// `e` with limitsHint() when it is such an error (EAGAIN, or its text, as the sandbox's init
// reports its errors).
Error withLimitsHint(Error e);

} // namespace sb
