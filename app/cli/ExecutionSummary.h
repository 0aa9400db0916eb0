// What `show` says of a session's code interpreter executions (issue 36, item 5): each execution
// in order with its code, its results by MIME type and its error; with --json the recorded
// events whole (pictures as base64 with their MIME type).
#pragma once

#include "recording/RecordingStore.h"

#include <nlohmann/json.hpp>

namespace sbcli {

// The session's recorded executions (code_execution events), in order.
sb::Result<nlohmann::json> loadExecutions(sb::RecordingStore& store, const std::string& id);
// "code executions (N)" and a few lines each; nothing when there were none.
void printExecutions(const nlohmann::json& executions);

} // namespace sbcli
