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
    std::vector<std::string> argv = {sbtest::cliPath(),       "run",          "--workspace",
                                     sb.workspace().string(), "--session-id", id};
    if (!policy.empty()) argv.insert(argv.end(), {"--policy", policy.string()});
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", "bash", "-c", script});
    return run(sb, std::move(argv));
}

namespace {

// Every event the session recorded (`export --format jsonl`), in order.
std::vector<nlohmann::json> exportedEvents(const Sandbench& sb, const std::string& id)
{
    auto exported = sb.cli({"export", id, "--format", "jsonl"});
    std::vector<nlohmann::json> out;
    std::istringstream lines(exported.out);
    for (std::string line; std::getline(lines, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.is_object()) out.push_back(std::move(j));
    }
    return out;
}

} // namespace

std::vector<nlohmann::json> networkDecisions(const Sandbench& sb, const std::string& id)
{
    std::vector<nlohmann::json> out;
    for (const auto& j : exportedEvents(sb, id))
        if (j.value("type", "") == "network_decision")
            out.push_back(j.value("payload", nlohmann::json()));
    return out;
}

std::vector<nlohmann::json> recordedPayloads(const Sandbench& sb, const std::string& id,
                                             const std::string& kind)
{
    std::vector<nlohmann::json> out;
    for (const auto& j : exportedEvents(sb, id))
        if (j.contains("payload") && j["payload"].is_object() &&
            j["payload"].value("kind", "") == kind)
            out.push_back(j["payload"]);
    return out;
}

std::string filledIn(std::string text, const std::map<std::string, std::string>& words)
{
    for (const auto& [word, value] : words)
        for (auto at = text.find(word); at != std::string::npos;
             at = text.find(word, at + value.size()))
            text.replace(at, word.size(), value);
    return text;
}

} // namespace sbit
