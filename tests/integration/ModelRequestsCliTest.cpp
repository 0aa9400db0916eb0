// `show` and `export` of a session's model requests and attempted leaks (issue 38): the events
// the supervisor's gateway records, written here through the recorder itself, read back by the
// CLI as a user would read them.
#include "IntegrationSupport.h"
#include "base/ActivityKinds.h"
#include "recording/RecordingWriter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using nlohmann::json;
using sbit::contains;
using sbit::dump;

namespace {

json modelRequest(const std::string& model, std::uint64_t in, std::uint64_t out, std::uint64_t read,
                  std::uint64_t write)
{
    return {{"kind", sb::activity::kModel},
            {"host", "api.anthropic.com"},
            {"port", 443},
            {"api", "anthropic-messages"},
            {"model", model},
            {"status", 200},
            {"input_tokens", in},
            {"output_tokens", out},
            {"cache_read_tokens", read},
            {"cache_write_tokens", write},
            {"streamed", true},
            {"duration_ms", 1200},
            {"connection", 3},
            {"process", json::array({{{"pid", 9}, {"program", "/usr/bin/node"}}})},
            {"command_id", 1}};
}

// A recording of session `id` with three requests to two models, one to an unpriced model and
// one attempted leak, in a database beside the test's world.
std::filesystem::path record(const sbit::Sandbench& sb, const std::string& id)
{
    const auto db = sb.workspace().parent_path() / "models.db";
    sb::SessionRecordInfo info;
    info.id = id;
    info.command = {"claude", "-p", "hello"};
    info.workspace = sb.workspace();
    auto writer = sb::RecordingWriter::start(db, info);
    EXPECT_TRUE(writer) << writer.error().describe();
    if (!writer) return db;
    auto& w = **writer;
    w.event(sb::EventKind::ModelRequest,
            modelRequest("claude-sonnet-4-5-20250929", 1000, 200, 50000, 3000));
    w.event(sb::EventKind::SecretLeak,
            {{"kind", sb::activity::kLeak},
             {"secret", "ANTHROPIC_API_KEY"},
             {"host", "gist.github.com"},
             {"port", 443},
             {"protocol", "https"},
             {"where", "body"},
             {"process", json::array({{{"pid", 12}, {"program", "/usr/bin/curl"}}})},
             {"command_id", 2},
             {"connection", 4}});
    w.event(sb::EventKind::ModelRequest,
            modelRequest("claude-sonnet-4-5-20250929", 500, 100, 60000, 0));
    w.event(sb::EventKind::ModelRequest, modelRequest("local-llama", 10, 20, 0, 0));
    EXPECT_FALSE(w.finish(0));
    return db;
}

} // namespace

TEST(ModelRequestsCli, ShowSaysTotalsAnEstimateAndTheLeakFirst)
{
    sbit::Sandbench sb;
    const auto db = record(sb, "models");
    auto show = sb.cli({"show", "models", "--db", db.string()});
    ASSERT_EQ(show.status, 0) << dump(show);
    const std::string& out = show.out;
    // The leak comes right after the session's line, before anything else.
    const auto leak = out.find("!! ATTEMPTED SECRET LEAKS: 1, refused");
    ASSERT_NE(leak, std::string::npos) << out;
    EXPECT_LT(leak, out.find("command ")) << out;
    EXPECT_TRUE(contains(out, "!!   ANTHROPIC_API_KEY to gist.github.com:443 in body by curl\n"))
        << out;

    EXPECT_TRUE(contains(out, "model requests 3; tokens 1510 in, 320 out, 110000 read from cache, "
                              "3000 written to cache\n"))
        << out;
    // Sonnet at $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
    const double sonnet = (1500 * 3 + 300 * 15 + 110000 * 0.3 + 3000 * 3.75) / 1e6;
    char cost[32];
    std::snprintf(cost, sizeof cost, "$%.2f", sonnet);
    EXPECT_TRUE(contains(out, std::string("  cost ") + cost + " (estimate, from the prices of "))
        << out;
    EXPECT_TRUE(contains(out, "not counting the requests to models it does not price")) << out;
    EXPECT_TRUE(contains(out, "  claude-sonnet-4-5-20250929: 2 request(s), 1500 in, 300 out, "
                              "110000 read from cache, 3000 written to cache; estimate " +
                                  std::string(cost) + "\n"))
        << out;
    EXPECT_TRUE(contains(out, "  local-llama: 1 request(s), 10 in, 20 out, 0 read from cache, 0 "
                              "written to cache; no price\n"))
        << out;

    auto asJson = sb.cli({"show", "models", "--db", db.string(), "--json"});
    ASSERT_EQ(asJson.status, 0) << dump(asJson);
    const json j = json::parse(asJson.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << asJson.out;
    EXPECT_EQ(j["attempted_leaks"],
              json::array({"ANTHROPIC_API_KEY to gist.github.com:443 in body by curl"}));
    const json& m = j["model_requests"];
    EXPECT_EQ(m["requests"], 3);
    EXPECT_EQ(m["input_tokens"], 1510);
    EXPECT_EQ(m["cache_read_tokens"], 110000);
    ASSERT_TRUE(m["estimated_cost_usd"].is_number()) << m.dump();
    EXPECT_NEAR(m["estimated_cost_usd"].get<double>(), sonnet, 1e-9);
    ASSERT_EQ(m["models"].size(), 2u);
    EXPECT_TRUE(m["models"][1]["estimated_cost_usd"].is_null()) << m.dump();
    EXPECT_FALSE(m["prices"]["date"].get<std::string>().empty());
}

TEST(ModelRequestsCli, TheUsersOwnPriceTableIsUsed)
{
    sbit::Sandbench sb;
    const auto db = record(sb, "own");
    const auto config = sb.home() / "config";
    std::filesystem::create_directories(config / "sandbench");
    sbtest::writeFile(config / "sandbench" / "model-prices.json",
                      R"({"date": "2030-01-01", "families": [{"models": ["local-llama"],
                          "input": 1000000, "output": 0, "cache_read": 0, "cache_write": 0}]})");
    auto show = sb.cli({"show", "own", "--db", db.string()},
                       sbit::withEnv({{"XDG_CONFIG_HOME", config.string()}}));
    ASSERT_EQ(show.status, 0) << dump(show);
    EXPECT_TRUE(contains(show.out, "  cost $10.00 (estimate, from the prices of 2030-01-01 in " +
                                       (config / "sandbench" / "model-prices.json").string()))
        << show.out;
    EXPECT_TRUE(contains(show.out, "  claude-sonnet-4-5-20250929: 2 request(s)")) << show.out;
    EXPECT_TRUE(contains(show.out, "written to cache; no price\n")) << show.out;

    // A broken table is said, and show still shows the tokens.
    sbtest::writeFile(config / "sandbench" / "model-prices.json", "{");
    show = sb.cli({"show", "own", "--db", db.string()},
                  sbit::withEnv({{"XDG_CONFIG_HOME", config.string()}}));
    ASSERT_EQ(show.status, 0) << dump(show);
    EXPECT_TRUE(contains(show.out, "  no cost estimate: ")) << show.out;
    EXPECT_TRUE(contains(show.out, "model-prices.json: not a JSON object")) << show.out;
    EXPECT_TRUE(contains(show.out, "model requests 3; ")) << show.out;
}

TEST(ModelRequestsCli, ExportCarriesTheEvents)
{
    sbit::Sandbench sb;
    const auto db = record(sb, "exported");
    auto exported = sb.cli({"export", "exported", "--db", db.string(), "--format", "jsonl"});
    ASSERT_EQ(exported.status, 0) << dump(exported);
    int models = 0, leaks = 0;
    std::istringstream lines(exported.out);
    for (std::string line; std::getline(lines, line);) {
        const json j = json::parse(line, nullptr, false);
        ASSERT_TRUE(j.is_object()) << line;
        if (j.value("type", "") == "model_request") {
            ++models;
            EXPECT_EQ(j["payload"]["kind"], "model");
            EXPECT_TRUE(j["payload"].contains("input_tokens"));
        } else if (j.value("type", "") == "secret_leak") {
            ++leaks;
            EXPECT_EQ(j["payload"]["secret"], "ANTHROPIC_API_KEY");
        }
    }
    EXPECT_EQ(models, 3);
    EXPECT_EQ(leaks, 1);
}
