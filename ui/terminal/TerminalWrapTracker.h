// Which rows continue the row above them is inferred by the core's tracker
// (recording/ScreenWrapTracker.h), shared with the recordings' screen model.
#pragma once

#include "recording/ScreenWrapTracker.h"

namespace sbui {

using TerminalWrapTracker = sb::ScreenWrapTracker;

} // namespace sbui
