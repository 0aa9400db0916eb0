// What a model request cost, estimated from a price table (issue 38): resources/model-prices.json
// as shipped, or the user's own copy in $XDG_CONFIG_HOME/sandbench/model-prices.json. The table
// prices model families in US dollars per million tokens at four rates (input, output, cache
// read, cache write), matching ModelUsage's token counts, which are normalised so that each is
// priced at exactly one rate. A model the table does not name has no estimate: never a figure
// borrowed from a similar one. Read where recorded requests are shown (`show`, the window),
// beside the reader whose counts it prices.
#pragma once

#include "base/Error.h"
#include "network/ModelUsage.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

struct ModelPrice {
    std::string family;              // "Claude Sonnet 4.x"
    std::vector<std::string> models; // the names it prices, as modelPriceKey() writes them
    double input = 0, output = 0, cacheRead = 0, cacheWrite = 0; // USD per million tokens
};

// A model's name as the table lists it: lower case, without a provider's prefix
// ("anthropic/…"), a date ("-20250929", "-2024-08-06", "@20250929") or "-latest" at its end.
std::string modelPriceKey(std::string_view model);

class ModelPrices {
  public:
    // A table's text; errors name `origin`, the entry and the key.
    static Result<ModelPrices> parse(std::string_view text, const std::string& origin);
    static Result<ModelPrices> load(const std::filesystem::path& file);
    // The user's table when there is one, else the shipped one (base/Paths.h).
    static std::filesystem::path standardFile();

    const ModelPrice* find(std::string_view model) const;
    // nullopt: the table has no price for this model.
    std::optional<double> estimateUsd(std::string_view model, std::uint64_t inputTokens,
                                      std::uint64_t outputTokens, std::uint64_t cacheReadTokens,
                                      std::uint64_t cacheWriteTokens) const;
    std::optional<double> estimateUsd(const ModelUsage& usage) const;

    const std::string& date() const { return m_date; } // when the figures were written down
    const std::vector<ModelPrice>& families() const { return m_families; }

  private:
    std::string m_date;
    std::vector<ModelPrice> m_families;
};

} // namespace sb
