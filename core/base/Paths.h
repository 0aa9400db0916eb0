// Where Sandbench keeps things: XDG locations and the shipped data directory.
#pragma once

#include <filesystem>
#include <string>

namespace sb {

std::filesystem::path homeDirectory();    // $HOME, else the passwd entry
std::filesystem::path stateDirectory();   // $XDG_STATE_HOME/sandbench (~/.local/state/sandbench)
std::filesystem::path dataDirectory();    // $XDG_DATA_HOME/sandbench (~/.local/share/sandbench)
std::filesystem::path runtimeDirectory(); // $XDG_RUNTIME_DIR/sandbench, else /tmp/sandbench-UID

// Shipped read-only data (presets, demo): $SANDBENCH_DATA_DIR, the installed share directory
// beside the executable, or the source tree's resources/ for a build-tree run.
std::filesystem::path shippedDataDirectory();

// The running executable's directory (/proc/self/exe).
std::filesystem::path executableDirectory();

} // namespace sb
