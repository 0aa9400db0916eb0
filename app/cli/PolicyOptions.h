// --policy / --preset and the overrides (--network, --root, --timeout, --memory, --pids, --cpu,
// --approval-timeout, --expose): the options that choose a run's policy.
#pragma once

#include "policy/Policy.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sb {
struct RunOptions;
}

namespace sbcli {

struct PolicyChoice {
    std::string policyFile;
    std::string preset;
    std::string network;
    std::string root; // filesystem.root: "image:NAME" or a folder
    std::optional<unsigned> timeoutSeconds;
    std::optional<std::uint64_t> memoryMb;
    std::optional<unsigned> pids;
    std::optional<unsigned> cpuPercent;
    std::optional<unsigned> approvalTimeoutSeconds;
    // --expose PATH[:ro|:rw], added to filesystem.expose (read-only unless :rw); a path the
    // policy exposes already keeps the policy's entry.
    std::vector<std::string> expose;
    // --observe: what the policy would ask is allowed and recorded as such (learning a policy).
    bool observe = false;
    // --shadow FILE: a candidate policy evaluated beside the enforced one (`policy compare`).
    std::string shadowFile;

    void addTo(CLI::App& command);
    // The chosen document (the generic preset when none is named) with the overrides applied;
    // runSession merges its learned rules (learnedRulesFile()).
    sb::Result<sb::Policy> resolve() const;
    // Where the learned rules for this policy are, and "always" answers are saved.
    std::filesystem::path learnedRulesFile() const;
    // The document (or preset) and its learned rules, for the session's clients; observe mode
    // and the shadow policy (an error names a --shadow file that is no policy).
    sb::Status describeSource(sb::RunOptions& options) const;

  private:
    std::string presetName() const;
};

} // namespace sbcli
