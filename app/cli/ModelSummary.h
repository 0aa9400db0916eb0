// What `show` says of a session's model requests and attempted leaks (issue 38): totals, per
// model, with an estimated cost from the price table (network/ModelPrices.h).
#pragma once

#include "recording/RecordingStore.h"

#include <nlohmann/json.hpp>

namespace sbcli {

// Printed near the top, where it cannot be missed; nothing when there were none.
void printLeaks(const sb::RecordedSessionSummary& summary);
// "model requests …" and a line per model; nothing when there were none.
void printModelRequests(const sb::RecordedSessionSummary& summary);
// {"requests", "input_tokens", …, "estimated_cost_usd", "prices", "models": […]}.
nlohmann::json modelRequestsJson(const sb::RecordedSessionSummary& summary);

} // namespace sbcli
