// --policy / --preset / --network / --timeout: the options that choose a run's policy.
#pragma once

#include "Policy.h"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace sbcli {

struct PolicyChoice {
    std::string policyFile;
    std::string preset;
    std::string network;
    std::optional<unsigned> timeoutSeconds;

    void addTo(CLI::App& command);
    // The chosen document (the generic preset when none is named) with overrides applied.
    sb::Result<sb::Policy> resolve() const;
};

} // namespace sbcli
