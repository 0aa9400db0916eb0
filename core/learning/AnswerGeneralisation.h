// The rule an "always" answer could save instead of the exact one: the generalisation `policy
// suggest` would write for the request (`git push *` for `git push origin main`, the host's
// registrable domain on the same port for the same program), with a preview of what it would
// also allow. Where generalising is risky (an interpreter, a destructive command, a transfer
// tool, a shared platform's domain, an address) the exact rule stays the answer and the risk is
// said. The window's approval card and `approve --scope suggested` offer it.
#pragma once

#include "base/Error.h"
#include "policy/Approval.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sb {

// One thing the generalised rule allows that the exact one does not; described in English by
// describe(), and by a window in its own language.
struct Allowance {
    enum class Kind {
        OtherArguments,    // `what` ("git push") with any other arguments
        DestructiveForm,   // its destructive forms too, such as `what` ("git push --force")
        SameNameElsewhere, // a program named `what` wherever it is, not only `exact`
        NamesUnderDomain,  // every name under `what` (a domain) on `port`, not only `exact`
        AnyProgram,        // any program: the one that connected is unknown
    } kind = Kind::OtherArguments;
    std::string what;
    std::string exact;
    std::uint16_t port = 0;
};

struct GeneralisedAnswer {
    // The answer's scope and flags that save the generalised rule (through ruleFromAnswer), or
    // the exact rule's (ExactCommand, HostPort) when generalising is risky.
    ApprovalScope scope = ApprovalScope::ExactCommand;
    bool programOnly = false;
    bool samePort = false;
    std::string rule; // the rule it saves: "git push *", "*.forge.example port 443 by /usr/bin/git"
    std::string exact; // the exact rule, in the same words
    // What the saved rule allows that the exact one does not (empty for the exact rule).
    std::vector<Allowance> alsoAllows;
    // Why the exact rule stays the answer; `riskSubject` names the program or domain.
    enum class Risk {
        None,
        Interpreter,  // "python3 *" would run any program
        Destructive,  // rm -rf, git push --force…
        TransferTool, // curl, wget…: any file out, any script in
        Address,      // an address has no domain
        NotPlaced,    // the public suffix list cannot place the host
        PastOwner,    // the domain rule would reach past the owner's domain (a shared platform)
    } risk = Risk::None;
    std::string riskSubject;
    bool generalises() const { return rule != exact; }
};

// In English, for the CLI.
std::string describe(const Allowance& allowance);
std::string describeRisk(const GeneralisedAnswer& generalised); // empty for Risk::None

// The request's generalised answer. An error only for a request no rule can be made from.
Result<GeneralisedAnswer> generaliseAnswer(const ApprovalRequest& request);

// `answer` with the generalised answer's scope and flags (its allow and duration kept).
ApprovalAnswer withGeneralisation(ApprovalAnswer answer, const GeneralisedAnswer& generalised);

} // namespace sb
