// The supervisor's own open-file limit. A session holds a few dozen descriptors, and each
// connection the proxy relays six: the usual soft limit of 1024 would cap an agent at ~170
// connections, and a low `ulimit -n` would fail some step of a session half-way.
#pragma once

#include "base/Error.h"

namespace sb {

inline constexpr unsigned kMinimumOpenFiles = 64;

// Raises the soft limit to the hard one (the sandbox gets the policy's `open_files` anyway).
// Refuses, naming the limit, when even the hard one is below kMinimumOpenFiles.
Status raiseOpenFileLimit();

} // namespace sb
