// The policy language (core/policy): a policy document as a user writes it (JSON with
// comments). Checked beyond "no crash": a refusal names where, and a policy that parses is
// written back (policyToJson, what the window and `policy show` print) as a document that
// parses again to the same.
#include "FuzzCheck.h"
#include "policy/Policy.h"
#include "policy/PolicyJson.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

using sbfuzz::check;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto policy = sb::parsePolicy(text, "fuzz.json");
    if (!policy) {
        check(!policy.error().message.empty(), "a refusal says why");
        return 0;
    }
    std::string written = sb::policyToJson(*policy).dump(2);
    auto again = sb::parsePolicy(written, "written.json");
    check(static_cast<bool>(again), "a written policy parses again");
    check(sb::policyToJson(*again).dump(2) == written, "and reads back to the same");
    return 0;
}
