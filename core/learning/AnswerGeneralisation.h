// The rule an "always" answer could save instead of the exact one: the generalisation `policy
// suggest` would write for the request (`git push *` for `git push origin main`, the host's
// registrable domain on the same port for the same program), with a preview of what it would
// also allow. Where generalising is risky (an interpreter, a destructive command, a transfer
// tool, a shared platform's domain, an address) the exact rule stays the answer and the risk is
// said. The window's approval card and `approve --scope suggested` offer it.
#pragma once

#include "base/Error.h"
#include "policy/Approval.h"

#include <string>
#include <vector>

namespace sb {

struct GeneralisedAnswer {
    // The answer's scope and flags that save the generalised rule (through ruleFromAnswer), or
    // the exact rule's (ExactCommand, HostPort) when generalising is risky.
    ApprovalScope scope = ApprovalScope::ExactCommand;
    bool programOnly = false;
    bool samePort = false;
    std::string rule;  // the rule it saves, in words: "git push *", "*.forge.example port 443 by /usr/bin/git"
    std::string exact; // the exact rule, in words
    // What the saved rule allows that the exact one does not, one item a line (empty when it is
    // the exact rule).
    std::vector<std::string> alsoAllows;
    // Not empty: why the exact rule stays the answer ("python3 * would run any program").
    std::string risk;
    bool generalises() const { return rule != exact; }
};

// The request's generalised answer. An error only for a request no rule can be made from.
Result<GeneralisedAnswer> generaliseAnswer(const ApprovalRequest& request);

// `answer` with the generalised answer's scope and flags (its allow and duration kept).
ApprovalAnswer withGeneralisation(ApprovalAnswer answer, const GeneralisedAnswer& generalised);

} // namespace sb
