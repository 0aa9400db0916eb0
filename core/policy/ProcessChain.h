// Who did something in a sandbox: the process, then its parents up to the session's command,
// as the supervisor found them in the sandbox's /proc (never as a program described itself).
// A connection, a name lookup and an approval card carry one; rules may name a program.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sb {

struct ProcessInfo {
    std::int64_t pid = 0; // as the sandbox numbers it
    std::string program;  // the executable's path inside the sandbox
    std::vector<std::string> argv;
};

// The process first, then its parent, …, the session's command last; empty: unknown.
using ProcessChain = std::vector<ProcessInfo>;

// [{"pid", "program", "argv"}, …], the process first (bytes as Bytes.h stores them).
nlohmann::json toJson(const ProcessChain& chain);
ProcessChain processChainFromJson(const nlohmann::json& j); // what it cannot read is left out
// "node build.js (pid 12)"; a chain: "node build.js (pid 12), started by npm run build (pid 9)
// < bash (pid 2)".
std::string describeProcess(const ProcessInfo& process);
std::string describeChain(const ProcessChain& chain);

} // namespace sb
