#include "support/TestNetwork.h"

#include <random>
#include <sstream>

namespace sbit {

int testNetworkPort()
{
    return 20000 + static_cast<int>(std::random_device{}() % 30000);
}

sbtest::RunResult TestNetwork::run(const Sandbench& sb, std::vector<std::string> argv) const
{
    argv.insert(argv.begin(), {sbtest::testNetworkPath(), std::to_string(port)});
    std::string joined;
    for (const std::string& name : names)
        joined += (joined.empty() ? "" : " ") + name;
    return sbtest::run(argv, {}, sb.env({{"TEST_NETWORK_NAMES", joined}}), timeoutSeconds);
}

sbtest::RunResult TestNetwork::session(const Sandbench& sb, const std::string& id,
                                       const fs::path& policy, const std::string& script,
                                       const std::vector<std::string>& options) const
{
    std::vector<std::string> argv = {sbtest::cliPath(), "run",         "--workspace",
                                     sb.workspace().string(), "--session-id", id};
    if (!policy.empty()) argv.insert(argv.end(), {"--policy", policy.string()});
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", "bash", "-c", script});
    return run(sb, std::move(argv));
}

std::vector<nlohmann::json> networkDecisions(const Sandbench& sb, const std::string& id)
{
    auto exported = sb.cli({"export", id, "--format", "jsonl"});
    std::vector<nlohmann::json> out;
    std::istringstream lines(exported.out);
    for (std::string line; std::getline(lines, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.value("type", "") == "network_decision")
            out.push_back(j["payload"]);
    }
    return out;
}

} // namespace sbit
