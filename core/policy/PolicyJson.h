// A policy as a document in the policy format (docs/policy.md), with every section written out:
// what the GUI shows as "the effective policy", and what parsePolicy() reads back to the same
// Policy.
#pragma once

#include "policy/Policy.h"

#include <nlohmann/json.hpp>

namespace sb {

nlohmann::ordered_json policyToJson(const Policy& policy);
// The `secrets` section (PolicySecrets.cpp): how each value is found, never a value.
nlohmann::ordered_json secretsJson(const std::vector<SecretSpec>& secrets);

} // namespace sb
