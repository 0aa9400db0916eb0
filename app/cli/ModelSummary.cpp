#include "ModelSummary.h"

#include "network/ModelPrices.h"

#include <cstdio>
#include <optional>
#include <string>

using nlohmann::json;

namespace sbcli {
namespace {

using Totals = sb::RecordedSessionSummary::ModelTotals;

struct Priced {
    std::optional<sb::ModelPrices> prices;
    std::string file, problem; // the table read, or why there is none
};

Priced priceTable()
{
    Priced out;
    const auto file = sb::ModelPrices::standardFile();
    out.file = file.string();
    auto prices = sb::ModelPrices::load(file);
    if (prices) {
        out.prices = std::move(*prices);
    } else {
        out.problem = prices.error().describe();
    }
    return out;
}

std::optional<double> estimate(const Priced& priced, const Totals& t)
{
    if (!priced.prices) return std::nullopt;
    return priced.prices->estimateUsd(t.model, t.inputTokens, t.outputTokens, t.cacheReadTokens,
                                      t.cacheWriteTokens);
}

Totals sum(const sb::RecordedSessionSummary& s)
{
    Totals all;
    for (const Totals& t : s.models) {
        all.requests += t.requests;
        all.inputTokens += t.inputTokens;
        all.outputTokens += t.outputTokens;
        all.cacheReadTokens += t.cacheReadTokens;
        all.cacheWriteTokens += t.cacheWriteTokens;
    }
    return all;
}

std::string dollars(double usd)
{
    char text[32];
    std::snprintf(text, sizeof text, usd > 0 && usd < 0.01 ? "$%.4f" : "$%.2f", usd);
    return text;
}

std::string tokens(const Totals& t)
{
    return std::to_string(t.inputTokens) + " in, " + std::to_string(t.outputTokens) + " out, " +
           std::to_string(t.cacheReadTokens) + " read from cache, " +
           std::to_string(t.cacheWriteTokens) + " written to cache";
}

} // namespace

void printLeaks(const sb::RecordedSessionSummary& s)
{
    if (s.leaks.empty()) return;
    std::printf("!! ATTEMPTED SECRET LEAKS: %zu, refused (a secret's placeholder on its way to a "
                "host not allowed for it)\n",
                s.leaks.size());
    for (const std::string& leak : s.leaks)
        std::printf("!!   %s\n", leak.c_str());
}

void printModelRequests(const sb::RecordedSessionSummary& s)
{
    if (s.models.empty()) return;
    const Priced priced = priceTable();
    const Totals all = sum(s);
    double cost = 0;
    std::uint64_t unpriced = 0;
    for (const Totals& t : s.models) {
        if (auto usd = estimate(priced, t)) {
            cost += *usd;
        } else {
            unpriced += t.requests;
        }
    }
    std::printf("model requests %llu; tokens %s\n", static_cast<unsigned long long>(all.requests),
                tokens(all).c_str());
    if (!priced.prices) {
        std::printf("  no cost estimate: %s\n", priced.problem.c_str());
    } else if (unpriced == all.requests) {
        std::printf("  no cost estimate: %s prices none of these models\n", priced.file.c_str());
    } else {
        std::printf("  cost %s (estimate, from the prices of %s in %s%s)\n", dollars(cost).c_str(),
                    priced.prices->date().c_str(), priced.file.c_str(),
                    unpriced > 0 ? "; not counting the requests to models it does not price" : "");
    }
    for (const Totals& t : s.models) {
        auto usd = estimate(priced, t);
        std::printf("  %s: %llu request(s), %s; %s\n",
                    t.model.empty() ? "(model not named)" : t.model.c_str(),
                    static_cast<unsigned long long>(t.requests), tokens(t).c_str(),
                    usd ? ("estimate " + dollars(*usd)).c_str() : "no price");
    }
}

json modelRequestsJson(const sb::RecordedSessionSummary& s)
{
    const Priced priced = priceTable();
    auto fields = [](const Totals& t) {
        return json{{"requests", t.requests},
                    {"input_tokens", t.inputTokens},
                    {"output_tokens", t.outputTokens},
                    {"cache_read_tokens", t.cacheReadTokens},
                    {"cache_write_tokens", t.cacheWriteTokens}};
    };
    json out = fields(sum(s));
    out["models"] = json::array();
    std::optional<double> cost;
    for (const Totals& t : s.models) {
        json m = fields(t);
        m["model"] = t.model;
        auto usd = estimate(priced, t);
        m["estimated_cost_usd"] = usd ? json(*usd) : json(nullptr);
        if (usd) cost = cost.value_or(0) + *usd;
        out["models"].push_back(std::move(m));
    }
    // An estimate: only of the models the table prices; null when it prices none of them.
    out["estimated_cost_usd"] = cost ? json(*cost) : json(nullptr);
    out["prices"] = priced.prices ? json{{"file", priced.file}, {"date", priced.prices->date()}}
                                  : json{{"file", priced.file}, {"error", priced.problem}};
    return out;
}

} // namespace sbcli
