#include "PolicyOptions.h"

#include "Format.h"
#include "policy/LearnedRules.h"
#include "supervision/Supervisor.h"

#include <algorithm>

namespace sbcli {

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
    command.add_option("--root", root,
                       "The sandbox's system folders from an image (image:NAME, see `image ls`) "
                       "or a root file system folder, instead of this machine's");
    // The policy's own ranges, with an error that says what is expected.
    namespace most = sb::maximum;
    command.add_option("--timeout", timeoutSeconds, "Wall-clock limit in seconds (0 = none)")
        ->check(wholeNumber(0, most::limitSeconds, "seconds", "30 days"));
    command.add_option("--memory", memoryMb, "Memory limit in MB (0 = none)")
        ->check(wholeNumber(0, most::memoryMb, "MB", "1 TiB"));
    command.add_option("--pids", pids, "Process limit (0 = none)")
        ->check(wholeNumber(0, most::pids));
    command.add_option("--cpu", cpuPercent, "CPU limit in percent of one core (0 = none)")
        ->check(wholeNumber(0, most::cpuPercent, "percent", "1024 cores"));
    command
        .add_option("--approval-timeout", approvalTimeoutSeconds,
                    "Seconds an approval waits for an answer before the policy's on_timeout "
                    "applies (1-86400; default: the policy's approvals.timeout_seconds)")
        ->type_name("SECONDS")
        ->check(wholeNumber(1, most::approvalSeconds, "seconds", "a day"));
    command
        .add_option("--expose", expose,
                    "Also show this host path to the sandbox, read-only unless it ends in :rw "
                    "(as the policy's filesystem.expose, whose checks apply; a path the policy "
                    "exposes already keeps the policy's mode)")
        ->type_name("PATH[:ro|:rw]");
    command.add_flag("--observe", observe,
                     "Observe: what the policy would ask is allowed and recorded as \"would have "
                     "asked\" (for `policy suggest`); its deny rules still deny and the sandbox "
                     "is the same");
    command
        .add_option("--shadow", shadowFile,
                    "A candidate policy evaluated beside the enforced one, never enforced: each "
                    "decision records what it would have decided (see `policy compare`)")
        ->check(CLI::ExistingFile);
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

sb::Status PolicyChoice::describeSource(sb::RunOptions& options) const
{
    options.policyFile = policyFile;
    options.policyPreset = policyFile.empty() ? presetName() : std::string();
    options.learnedRulesFile = learnedRulesFile();
    options.observe = observe;
    if (!shadowFile.empty()) {
        auto shadow = sb::loadPolicyFile(shadowFile);
        if (!shadow) return shadow.error().within("--shadow");
        options.shadow = std::move(shadow.value());
    }
    return std::nullopt;
}

sb::Result<sb::Policy> PolicyChoice::resolve() const
{
    auto policy =
        !policyFile.empty() ? sb::loadPolicyFile(policyFile) : sb::loadPreset(presetName());
    if (!policy) return policy;
    if (!root.empty()) policy->filesystem.root = root;
    for (std::string path : expose) {
        auto mode = sb::AccessMode::ReadOnly;
        if (path.ends_with(":rw")) mode = sb::AccessMode::ReadWrite;
        if (path.ends_with(":rw") || path.ends_with(":ro")) path.resize(path.size() - 3);
        auto& listed = policy->filesystem.expose;
        // Added, never widened: the policy's own entry for the path stays as it is.
        if (std::none_of(listed.begin(), listed.end(),
                         [&](const auto& e) { return e.path == path; }))
            listed.push_back({path, mode, false});
    }
    sb::applyOverrides(*policy, {sb::networkModeFromName(network), timeoutSeconds, pids, cpuPercent,
                                 memoryMb, approvalTimeoutSeconds});
    return policy;
}

} // namespace sbcli
