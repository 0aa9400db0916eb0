// Landlock as defence in depth: beneath the mount layout, the kernel itself refuses writes
// outside the directories the sandbox means to be writable.
#pragma once

#include "base/Error.h"

#include <filesystem>
#include <vector>

namespace sb {

// The kernel's Landlock ABI version; 0 when it has none (not built in, or disabled at boot).
int landlockAbi();

// Restricts the calling thread and its future children so that writes are allowed only beneath
// `writableDirs`; reading and executing stay allowed everywhere. "Writes" are the write-type
// rights the running ABI knows: write_file, truncate (ABI 3), remove_*, make_*, refer (ABI 2,
// moving and linking across directories) and ioctl_dev (ABI 5, device ioctls can change state).
//
// Called in the sandbox child after pivot_root (paths as seen inside), after
// PR_SET_NO_NEW_PRIVS, before execve. Device files are files too: pass "/dev" so that
// /dev/null, /dev/tty and /dev/pts/* stay writable. Entries that do not exist are skipped; an
// entry that is a file, not a directory, makes only that file writable.
//
// Returns the kernel's ABI version the rights were chosen for, or 0 (and restricts nothing)
// when the kernel has no Landlock.
Result<int> restrictWritesTo(const std::vector<std::filesystem::path>& writableDirs);

} // namespace sb
