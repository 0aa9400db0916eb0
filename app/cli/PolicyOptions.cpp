#include "PolicyOptions.h"

#include "policy/LearnedRules.h"
#include "supervision/Supervisor.h"

#include <charconv>

namespace sbcli {
namespace {

// The policy schema's range for approvals.timeout_seconds (core/policy/Policy.cpp), with a message
// that says what is expected rather than CLI11's "could not be converted".
constexpr unsigned kMaxApprovalTimeout = 86400;

std::string checkApprovalTimeout(std::string& text)
{
    unsigned seconds = 0;
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, seconds);
    if (error != std::errc() || stop != end || seconds < 1 || seconds > kMaxApprovalTimeout)
        return "'" + text + "' is not a number of seconds from 1 to " +
               std::to_string(kMaxApprovalTimeout) + " (a day)";
    return {};
}

} // namespace

void PolicyChoice::addTo(CLI::App& command)
{
    auto* file = command.add_option("--policy", policyFile, "Policy file (JSON with comments)")
                     ->check(CLI::ExistingFile);
    command
        .add_option("--preset", preset, "Shipped policy preset (listed below); default: generic")
        ->excludes(file);
    // Read from the presets folder when the help is shown, not at every start.
    command.footer([] {
        std::string names;
        for (const auto& n : sb::presetNames())
            names += (names.empty() ? "" : ", ") + n;
        return "Presets: " + names;
    });
    command.add_option("--network", network, "Override the policy's network mode")
        ->check(CLI::IsMember({"none", "filtered", "host"}));
    command.add_option("--timeout", timeoutSeconds, "Wall-clock limit in seconds (0 = none)");
    command.add_option("--memory", memoryMb, "Memory limit in MB (0 = none)")
        ->check(CLI::Range(0, 1048576));
    command.add_option("--pids", pids, "Process limit (0 = none)")->check(CLI::Range(0, 4194304));
    command.add_option("--cpu", cpuPercent, "CPU limit in percent of one core (0 = none)")
        ->check(CLI::Range(0, 102400));
    command
        .add_option("--approval-timeout", approvalTimeoutSeconds,
                    "Seconds an approval waits for an answer before the policy's on_timeout "
                    "applies (1-86400; default: the policy's approvals.timeout_seconds)")
        ->type_name("SECONDS")
        ->check(CLI::Validator(checkApprovalTimeout, ""));
}

std::string PolicyChoice::presetName() const
{
    return preset.empty() ? "generic" : preset;
}

std::filesystem::path PolicyChoice::learnedRulesFile() const
{
    return !policyFile.empty() ? sb::learnedRulesPath(policyFile)
                               : sb::learnedRulesPathForPreset(presetName());
}

void PolicyChoice::describeSource(sb::RunOptions& options) const
{
    options.policyFile = policyFile;
    options.policyPreset = policyFile.empty() ? presetName() : std::string();
    options.learnedRulesFile = learnedRulesFile();
}

sb::Result<sb::Policy> PolicyChoice::resolve() const
{
    auto policy =
        !policyFile.empty() ? sb::loadPolicyFile(policyFile) : sb::loadPreset(presetName());
    if (!policy) return policy;
    sb::applyOverrides(*policy, {sb::networkModeFromName(network), timeoutSeconds, pids, cpuPercent,
                                 memoryMb, approvalTimeoutSeconds});
    return policy;
}

} // namespace sbcli
