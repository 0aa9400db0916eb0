#include "PolicyOptions.h"

#include "LearnedRules.h"

namespace sbcli {

void PolicyChoice::addTo(CLI::App& command)
{
    auto* file = command.add_option("--policy", policyFile, "Policy file (JSON with comments)")
                     ->check(CLI::ExistingFile);
    command
        .add_option(
            "--preset", preset,
            "Shipped policy preset (" +
                [] {
                    std::string names;
                    for (const auto& n : sb::presetNames())
                        names += (names.empty() ? "" : ", ") + n;
                    return names;
                }() +
                "); default: generic")
        ->excludes(file);
    command.add_option("--network", network, "Override the policy's network mode")
        ->check(CLI::IsMember({"none", "filtered", "host"}));
    command.add_option("--timeout", timeoutSeconds, "Wall-clock limit in seconds (0 = none)");
    command.add_option("--memory", memoryMb, "Memory limit in MB (0 = none)")
        ->check(CLI::Range(0, 1048576));
    command.add_option("--pids", pids, "Process limit (0 = none)")->check(CLI::Range(0, 4194304));
    command.add_option("--cpu", cpuPercent, "CPU limit in percent of one core (0 = none)")
        ->check(CLI::Range(0, 102400));
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

sb::Result<sb::Policy> PolicyChoice::resolve() const
{
    auto policy = !policyFile.empty() ? sb::loadPolicyWithLearned(policyFile)
                                      : sb::loadPresetWithLearned(presetName());
    if (!policy) return policy;
    sb::applyOverrides(
        *policy, {sb::networkModeFromName(network), timeoutSeconds, pids, cpuPercent, memoryMb});
    return policy;
}

} // namespace sbcli
