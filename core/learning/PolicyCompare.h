// How a candidate policy would have done in a recorded session run with it as a shadow
// (`run --shadow FILE`; `sandbench-cli policy compare`): each command and connection decision
// of the enforced policy beside the candidate's.
#pragma once

#include "base/Error.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sb {

class RecordingStore;

struct Comparison {
    unsigned decisions = 0; // command and connection decisions with a candidate's beside them
    unsigned currentAsks = 0, candidateAsks = 0;
    // What the two decided differently: "git push origin main: ask → allow (rule 2 (…))".
    std::vector<std::string> allowedWhereDenied; // the candidate allows what the current denied
    std::vector<std::string> deniedWhereAllowed; // the candidate denies what the current allowed
    std::vector<std::string> allowedWhereAsked;  // the candidate allows, the current asked
    std::vector<std::string> askedWhereAllowed;  // the candidate asks, the current allowed
    std::vector<std::string> otherDifferences;   // ask ↔ deny
};

// An error when the session cannot be read or ran without a shadow policy.
Result<Comparison> comparePolicies(RecordingStore& store, const std::string& session);

// "The candidate would have asked 2 times fewer (1 instead of 3) and allowed 1 thing the current
// policy denied."
std::string summarise(const Comparison& comparison);
nlohmann::json toJson(const Comparison& comparison);

} // namespace sb
