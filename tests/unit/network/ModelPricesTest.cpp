// The price table of the model gateway's estimates (network/ModelPrices.h) and the shipped
// resources/model-prices.json.
#include "network/ModelPrices.h"

#include <gtest/gtest.h>

using namespace sb;

namespace {

ModelPrices shipped()
{
    auto prices = ModelPrices::load(std::filesystem::path(SANDBENCH_SOURCE_DIR) / "resources" /
                                    "model-prices.json");
    EXPECT_TRUE(prices.ok()) << (prices.ok() ? "" : prices.error().message);
    return prices.ok() ? *prices : ModelPrices();
}

} // namespace

TEST(ModelPrices, NamesAreMatchedWithoutProviderDateOrLatest)
{
    EXPECT_EQ(modelPriceKey("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
    EXPECT_EQ(modelPriceKey("claude-sonnet-4-5@20250929"), "claude-sonnet-4-5");
    EXPECT_EQ(modelPriceKey("gpt-4o-2024-08-06"), "gpt-4o");
    EXPECT_EQ(modelPriceKey("anthropic/Claude-3-5-Haiku-Latest"), "claude-3-5-haiku");
    EXPECT_EQ(modelPriceKey("gpt-4.1"), "gpt-4.1");
    EXPECT_EQ(modelPriceKey("o3"), "o3");
    EXPECT_EQ(modelPriceKey("model-1234567"), "model-1234567"); // seven digits are no date
    EXPECT_EQ(modelPriceKey(""), "");
}

TEST(ModelPrices, TheShippedTableEstimatesKnownModelsOnly)
{
    const ModelPrices prices = shipped();
    EXPECT_FALSE(prices.date().empty());
    EXPECT_GT(prices.families().size(), 10u);

    // 1M input at $3, 1M output at $15, 1M cache reads at $0.30, 1M cache writes at $3.75.
    auto sonnet =
        prices.estimateUsd("claude-sonnet-4-5-20250929", 1000000, 1000000, 1000000, 1000000);
    ASSERT_TRUE(sonnet.has_value());
    EXPECT_NEAR(*sonnet, 3 + 15 + 0.3 + 3.75, 1e-9);

    ModelUsage usage{"openai-chat", "gpt-4o-mini-2024-07-18", 2000, 500, 1000, 0, false, true};
    auto mini = prices.estimateUsd(usage);
    ASSERT_TRUE(mini.has_value());
    EXPECT_NEAR(*mini, (2000 * 0.15 + 500 * 0.6 + 1000 * 0.075) / 1e6, 1e-12);
    // The longer family name is not priced as the shorter one, nor the other way round.
    EXPECT_NE(prices.find("gpt-4o-mini"), prices.find("gpt-4o"));
    EXPECT_NE(prices.find("claude-opus-4-5"), prices.find("claude-opus-4-1"));

    for (const char* unknown :
         {"gpt-5.1", "claude-sonnet-9", "llama-3.1-70b", "", "gpt-4o-mini2", "my-gpt-4o"}) {
        EXPECT_EQ(prices.find(unknown), nullptr) << unknown;
        EXPECT_EQ(prices.estimateUsd(unknown, 1, 1, 1, 1), std::nullopt) << unknown;
    }
}

TEST(ModelPrices, ABadTableIsRefusedNamingTheEntryAndKey)
{
    auto expectError = [](std::string_view text, std::string_view says) {
        auto prices = ModelPrices::parse(text, "prices.json");
        ASSERT_FALSE(prices.ok()) << text;
        EXPECT_NE(prices.error().message.find(says), std::string::npos) << prices.error().message;
        EXPECT_NE(prices.error().message.find("prices.json"), std::string::npos);
    };
    expectError("[]", "not a JSON object");
    expectError("{", "not a JSON object");
    expectError(R"({"families": {}})", "\"families\" must be a list");
    expectError(R"({"families": [{"models": ["m"], "input": 1, "output": 1, "cache_read": 1}]})",
                "families[0]: \"cache_write\" is missing");
    expectError(R"({"families": [{"models": ["m"], "input": -1, "output": 1, "cache_read": 1,
                  "cache_write": 1}]})",
                "families[0]: \"input\" must be a number");
    expectError(R"({"families": [{"models": [], "input": 1, "output": 1, "cache_read": 1,
                  "cache_write": 1}]})",
                "\"models\" must be a list");
    expectError(R"({"families": [
                  {"models": ["m"], "input": 1, "output": 1, "cache_read": 1, "cache_write": 1},
                  {"models": ["M-latest"], "input": 2, "output": 1, "cache_read": 1,
                   "cache_write": 1}]})",
                "families[1]: \"m\" is priced by an earlier family too");

    auto missing = ModelPrices::load("/nonexistent/model-prices.json");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/model-prices.json"), std::string::npos);
}
