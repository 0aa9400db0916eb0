#include "policy/PolicyJson.h"

#include "policy/PolicyTestSupport.h"

#include <gtest/gtest.h>

using sbtest::accepted;

namespace {

// Writing a policy out and parsing it back gives the same document again.
void expectRoundTrip(const sb::Policy& policy)
{
    const std::string written = sb::policyToJson(policy).dump(2);
    auto reread = sb::parsePolicy(written, "written.json");
    ASSERT_TRUE(reread) << reread.error().message << "\n" << written;
    EXPECT_EQ(sb::policyToJson(*reread).dump(2), written);
}

} // namespace

TEST(PolicyJson, EveryFieldIsWrittenAndReadBack)
{
    const sb::Policy p = accepted(R"({
      "version": 1,
      "filesystem": { "expose": [ { "path": "~/.claude", "mode": "rw", "optional": true } ] },
      "network": { "mode": "filtered", "default": "deny", "rules": [
        { "action": "allow", "host": "*.github.com", "ports": [443, 22], "comment": "code" } ] },
      "commands": { "default": "ask", "rules": [ { "action": "deny", "match": "rm -rf /*" } ] },
      "approvals": { "timeout_seconds": 30, "on_timeout": "allow" },
      "limits": { "memory_mb": 1024, "pids": 64, "cpu_percent": 150, "wall_seconds": 60,
                  "cpu_seconds": 30, "open_files": 256, "file_size_mb": 10 },
      "env": { "pass": ["MY_*"], "set": { "CI": "1" } }
    })");
    const auto j = sb::policyToJson(p);
    EXPECT_EQ(j["network"]["rules"][0]["ports"], nlohmann::ordered_json::array({443, 22}));
    EXPECT_EQ(j["network"]["rules"][0]["comment"], "code");
    EXPECT_EQ(j["commands"]["default"], "ask");
    EXPECT_EQ(j["approvals"]["on_timeout"], "allow");
    EXPECT_EQ(j["filesystem"]["expose"][0]["mode"], "rw");
    EXPECT_EQ(j["filesystem"]["expose"][0]["optional"], true);
    EXPECT_EQ(j["limits"]["cpu_percent"], 150);
    EXPECT_EQ(j["env"]["set"]["CI"], "1");
    expectRoundTrip(p);
}

TEST(PolicyJson, DefaultsAreSpelledOut)
{
    const auto j = sb::policyToJson(accepted(R"({"version": 1})"));
    EXPECT_EQ(j["network"]["mode"], "filtered");
    EXPECT_EQ(j["limits"]["memory_mb"], 4096);
    EXPECT_EQ(j["approvals"]["timeout_seconds"], 120);
    expectRoundTrip(accepted(R"({"version": 1})"));
}

TEST(PolicyJson, EveryPresetRoundTrips)
{
    for (const auto& name : sb::presetNames()) {
        SCOPED_TRACE(name);
        auto preset = sb::loadPreset(name);
        ASSERT_TRUE(preset) << preset.error().message;
        expectRoundTrip(*preset);
    }
}
