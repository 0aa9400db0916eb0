// `sandbench-cli run`'s policy overrides: --approval-timeout reaches the policy, and a value
// outside the schema's range (1 to 86400 seconds) is refused before anything starts, naming the
// option and the range.
#include "TestSupport.h"
#include "policy/Policy.h"

using namespace sbtest;

namespace {

RunResult cli(const std::vector<std::string>& args)
{
    std::vector<std::string> argv{cliPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, {}, {}, 30);
}

} // namespace

TEST(RunOptions, OverridesSetOnlyWhatTheyName)
{
    sb::Policy policy;
    policy.approvals.timeoutSeconds = 600;
    sb::PolicyOverrides overrides;
    overrides.approvalTimeoutSeconds = 45;
    sb::applyOverrides(policy, overrides);
    EXPECT_EQ(policy.approvals.timeoutSeconds, 45u);
    EXPECT_EQ(policy.limits.memoryMb, sb::Limits{}.memoryMb);
    EXPECT_EQ(policy.network.mode, sb::NetworkMode::Filtered);

    sb::applyOverrides(policy, {});
    EXPECT_EQ(policy.approvals.timeoutSeconds, 45u);
}

TEST(RunOptions, ApprovalTimeoutOutOfRangeIsRefused)
{
    IsolatedXdg xdg;
    for (const char* bad : {"0", "86401", "-5", "abc", "1.5", "", "99999999999999999999"}) {
        RunResult r = cli({"run", "--approval-timeout", bad, "--", "true"});
        EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("--approval-timeout"), std::string::npos) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("from 1 to 86400"), std::string::npos) << bad << ": " << r.err;
        EXPECT_EQ(r.err.find("session"), std::string::npos) << "started anyway: " << r.err;
    }
}

TEST(RunOptions, ApprovalTimeoutInRangeIsAccepted)
{
    IsolatedXdg xdg;
    TempDir dir;
    const std::string missing = (dir / "no-such-folder").string();
    // Parsing passes; the run then stops at the workspace that does not exist.
    for (const char* good : {"1", "86400", "120"}) {
        RunResult r =
            cli({"run", "--approval-timeout", good, "--workspace", missing, "--", "true"});
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_EQ(r.err.find("approval-timeout"), std::string::npos) << good << ": " << r.err;
        EXPECT_NE(r.err.find("no-such-folder"), std::string::npos) << good << ": " << r.err;
    }
    RunResult help = cli({"run", "--help"});
    EXPECT_NE(help.out.find("--approval-timeout"), std::string::npos) << help.out;
}
