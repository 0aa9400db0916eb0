// Sessions inside test-network (tests/probe): a network namespace of the test's own where
// 198.18.0.1 and 2001:db8::1 are local addresses with a tiny HTTP server on them, so a session's
// connections leave the sandbox and still stay on this machine, as root and as an unprivileged
// user alike. Shared by the tests of the transparent network, git over ssh and learned policies.
#pragma once

#include "IntegrationSupport.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sbit {

// A port for test-network's own server, with the next few free for servers of the test's own.
int testNetworkPort();

struct TestNetwork {
    int port = testNetworkPort();
    // More names for 198.18.0.1 in the namespace's /etc/hosts (test-network's
    // TEST_NETWORK_NAMES), for a test that plays several hosts.
    std::vector<std::string> names{};
    int timeoutSeconds = 90;

    // ARGV… inside the test network, with `sb`'s environment.
    sbtest::RunResult run(const Sandbench& sb, std::vector<std::string> argv) const;
    // `sandbench-cli run --workspace W --session-id ID --policy POLICY OPTIONS… -- bash -c
    // SCRIPT` inside the test network (without --policy when `policy` is empty: a --preset in
    // `options`, or the default).
    sbtest::RunResult session(const Sandbench& sb, const std::string& id, const fs::path& policy,
                              const std::string& script,
                              const std::vector<std::string>& options = {}) const;
};

// The session's network decisions as recorded (`export --format jsonl`), in order.
std::vector<nlohmann::json> networkDecisions(const Sandbench& sb, const std::string& id);
// The payloads of the session's recorded events whose payload `kind` is `kind` ("model",
// "leak"…), in order.
std::vector<nlohmann::json> recordedPayloads(const Sandbench& sb, const std::string& id,
                                             const std::string& kind);

// `text` with every WORD of `words` replaced by its value (a script's @PLACES@ filled in).
std::string filledIn(std::string text, const std::map<std::string, std::string>& words);

} // namespace sbit
