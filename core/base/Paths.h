// Where Sandbench keeps things: XDG locations and the shipped data directory.
#pragma once

#include "base/Error.h"

#include <filesystem>
#include <string>
#include <vector>

namespace sb {

std::filesystem::path homeDirectory();    // $HOME, else the passwd entry
std::filesystem::path stateDirectory();   // $XDG_STATE_HOME/sandbench (~/.local/state/sandbench)
std::filesystem::path dataDirectory();    // $XDG_DATA_HOME/sandbench (~/.local/share/sandbench)
std::filesystem::path runtimeDirectory(); // $XDG_RUNTIME_DIR/sandbench, else /tmp/sandbench-UID
std::filesystem::path configDirectory();  // $XDG_CONFIG_HOME/sandbench (~/.config/sandbench)

// Sandbench's own folders (config, state, data, runtime): sessions, their layers of changes,
// the recordings, the control sockets, learned rules and keys. No sandbox may see or change
// them, whatever its policy exposes (Exposure.h masks them).
std::vector<std::filesystem::path> ownDirectories();
// Makes those that are missing (mode 0700, parents as needed), so that a sandbox starting now
// finds each there to mask: one made later inside a writable exposure would be the agent's.
// Stops at the first that cannot be made, and says which.
Status makeOwnDirectories();

// Shipped read-only data (presets, demo): $SANDBENCH_DATA_DIR, the installed share directory
// beside the executable, or the source tree's resources/ for a build-tree run.
std::filesystem::path shippedDataDirectory();

// The running executable's directory (/proc/self/exe).
std::filesystem::path executableDirectory();

} // namespace sb
