// Helpers shared by the policy parser's tests.
#pragma once

#include "policy/Policy.h"

#include <gtest/gtest.h>
#include <string>
#include <string_view>

namespace sbtest {

// The whole message of a refused document, or a note that it was accepted.
inline std::string refusal(std::string_view text)
{
    auto policy = sb::parsePolicy(text, "test.json");
    if (policy) return "(accepted)";
    EXPECT_EQ(policy.error().code, sb::ErrorCode::InvalidInput);
    return policy.error().message;
}

inline sb::Policy accepted(std::string_view text)
{
    auto policy = sb::parsePolicy(text, "test.json");
    EXPECT_TRUE(policy) << policy.error().message;
    return policy ? *policy : sb::Policy{};
}

// A document and the exact message it must be refused with.
struct Malformed {
    const char* text;
    const char* message;
};

} // namespace sbtest
