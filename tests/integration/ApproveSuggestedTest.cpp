// `approve --for always` offers the rule `policy suggest` would write (issue 39), and `--scope
// suggested` saves it: git push * for `git push other dev`, so the next push is not asked.
#include "IntegrationSupport.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;
using sbit::quote;

namespace {

TEST(ApproveSuggested, AnAlwaysAnswerOffersAndSavesTheGeneralisedRule)
{
    sbit::Sandbench sb;
    const fs::path policy = sb.writePolicy(R"({"version": 1, "network": {"mode": "none"},
        "commands": {"default": "allow", "rules": [{"action": "ask", "match": "git push *"}]},
        "approvals": {"timeout_seconds": 60, "on_timeout": "deny"}})");
    const std::string cli = quote(sbtest::cliPath());
    // The session pushes twice; the first push is answered from outside, the second is not
    // asked at all once the suggested rule is saved.
    const std::string script = cli + " run --headless --workspace " +
                               quote(sb.workspace().string()) + " --session-id pushes --policy " +
                               quote(policy.string()) + R"SH( -- bash -c \
  'git push other dev 2>/dev/null; git push origin main 2>/dev/null; echo pushed' > "$HOME/run.log" 2>&1 &
run=$!
for i in $(seq 300); do )SH" + cli +
                               R"SH( pending pushes 2>/dev/null | grep -q 'git push' && break; sleep 0.1; done
)SH" + cli + R"SH( approve pushes 1 allow --for always --scope suggested
wait $run
echo "session: $?"
)SH";
    auto r = sbtest::run({"bash", "-c", script}, {}, sb.env(), 90);
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "approval #1 allowed: git push other dev (subcommand, always)"))
        << dump(r);
    EXPECT_TRUE(contains(r.out, "saved rule: git push *\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "also allows its destructive forms too, such as git push --force"))
        << dump(r);
    EXPECT_TRUE(contains(r.out, "session: 0")) << dump(r);
    const std::string learned = sbtest::readFile(fs::path(policy).replace_extension(".learned.json"));
    EXPECT_TRUE(contains(learned, R"({"action": "allow", "match": "git push *")")) << learned;
    // The second push was not asked: one request, pending then allowed.
    auto shown = nlohmann::json::parse(sb.cli({"show", "pushes", "--json"}).out, nullptr, false);
    EXPECT_EQ(shown["decisions"].value("prompts", -1), 1) << shown.dump();
}

} // namespace
