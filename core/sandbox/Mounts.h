// The sandbox's file system: a fresh tmpfs root holding read-only system folders, the project
// as an overlay at its real path, an empty home, /tmp, a fresh /proc and a minimal /dev.
#pragma once

#include "base/Error.h"
#include "sandbox/Identity.h"
#include "sandbox/Sandbox.h"

namespace sb {

// Files of /etc the sandbox gets instead of those of its system folders (path → text): its own
// resolver's resolv.conf and hosts (NetworkRedirect.h).
using EtcFiles = std::vector<std::pair<std::filesystem::path, std::string>>;

// Runs in init, in the new mount namespace, with privileges over it. Ends with the process
// inside the new root, its cwd at "/".
Status buildRootFilesystem(const SandboxConfig& config, const SandboxIdentity& id,
                           const EtcFiles& etcFiles = {});

// Folders the sandbox may write (for Landlock): the project, /tmp, the home, /dev, rw exposures.
std::vector<std::filesystem::path> writableFolders(const SandboxConfig& config);

} // namespace sb
