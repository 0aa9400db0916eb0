// --policy / --preset and the overrides (--network, --timeout, --memory, --pids, --cpu): the
// options that choose a run's policy.
#pragma once

#include "Policy.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

namespace sbcli {

struct PolicyChoice {
    std::string policyFile;
    std::string preset;
    std::string network;
    std::optional<unsigned> timeoutSeconds;
    std::optional<std::uint64_t> memoryMb;
    std::optional<unsigned> pids;
    std::optional<unsigned> cpuPercent;

    void addTo(CLI::App& command);
    // The chosen document (the generic preset when none is named) with its learned rules and
    // the overrides applied.
    sb::Result<sb::Policy> resolve() const;
    // Where "always" answers for this policy are saved.
    std::filesystem::path learnedRulesFile() const;

  private:
    std::string presetName() const;
};

} // namespace sbcli
