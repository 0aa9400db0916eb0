// A policy as a document in the policy format (docs/policy.md), with every section written out:
// what the GUI shows as "the effective policy", and what parsePolicy() reads back to the same
// Policy.
#pragma once

#include "policy/Policy.h"

#include <nlohmann/json.hpp>

namespace sb {

nlohmann::ordered_json policyToJson(const Policy& policy);

} // namespace sb
