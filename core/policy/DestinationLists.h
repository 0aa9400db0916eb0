// Lists of destinations a caller allows and denies for one session, over the rules of the
// policy it starts from: E2B's network.allowOut and denyOut (docs/e2b.md). The policy's own deny
// rules stay first (a caller cannot lift them), then each allowed destination, then each denied
// one (an allowed one wins, as on E2B), then the policy's other rules, then its default.
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"

#include <string>
#include <vector>

namespace sb {

// Each entry is an IP address, a CIDR range, a host name or "*.domain"; "0.0.0.0/0" (and
// "::/0") is every destination, IPv4 and IPv6 alike. `origin` names the lists in the rules'
// comments and in errors ("E2B network"). Refused (InvalidInput, naming the entry or the mode):
// an entry that is no destination, any list over a policy of mode host (where no rule applies),
// and allowed destinations over mode none (there is no network to allow them on); denied ones
// over mode none change nothing.
Status applyDestinationLists(NetworkPolicy& network, const std::vector<std::string>& allow,
                             const std::vector<std::string>& deny, const std::string& origin);

} // namespace sb
