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
        ->check(CLI::IsMember({"none", "host"}));
    command.add_option("--timeout", timeoutSeconds, "Wall-clock limit in seconds (0 = none)");
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
    if (network == "none")
        policy->network.mode = sb::NetworkMode::None;
    else if (network == "host")
        policy->network.mode = sb::NetworkMode::Host;
    if (timeoutSeconds) policy->limits.wallSeconds = *timeoutSeconds;
    return policy;
}

} // namespace sbcli
