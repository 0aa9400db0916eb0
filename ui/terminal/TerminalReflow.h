// Reflow on resize is the core's (recording/ScreenReflow.h), shared with the recordings' screen
// model so that seeking in a replay lays out lines as playing does; these are its names here.
#pragma once

#include "TerminalLine.h"
#include "recording/ScreenReflow.h"

namespace sbui {

using TerminalSpot = sb::ScreenSpot;
using TerminalReflowInput = sb::ScreenReflowInput;
using TerminalReflowResult = sb::ScreenReflowResult;
using sb::reflowLines;

} // namespace sbui
