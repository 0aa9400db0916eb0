// A session's model requests and attempted leaks as the window shows them (issue 38): totals per
// model, the tokens over time, and the leaks, folded from the activity events "model" and "leak"
// (docs/recording.md) whether they come live or from the recording. Costs are estimates from
// the price table (network/ModelPrices.h).
#pragma once

#include <QString>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace sb {
class ModelPrices;
}

namespace sbui {

class ModelUsageTotals {
  public:
    struct Tokens {
        QString model; // "" in the sum of all
        std::uint64_t requests = 0, input = 0, output = 0, cacheRead = 0, cacheWrite = 0;
    };
    // After each request: the session's tokens so far (input counts cache reads and writes).
    struct Point {
        qint64 timeUnixMs = 0;
        std::uint64_t input = 0, output = 0;
    };
    struct Leak {
        qint64 timeUnixMs = 0;
        QString secret, host, where, program;
        qint64 port = 0;
    };
    static constexpr std::size_t kMaxPoints = 4096; // beyond, every other point goes

    // Folds one activity event in; false when it is neither a model request nor a leak.
    bool add(const nlohmann::json& event);
    void clear();

    const std::vector<Tokens>& models() const { return m_models; } // by first request
    const Tokens& total() const { return m_total; }
    const std::vector<Point>& points() const { return m_points; }
    const std::vector<Leak>& leaks() const { return m_leaks; }

    // The price table (read once); null when it cannot be read, with pricesProblem() saying why.
    static const sb::ModelPrices* prices();
    static QString pricesFile();
    static QString pricesProblem();
    std::optional<double> estimateUsd(const Tokens& tokens) const;
    // The sum of the estimates of the models the table prices; nullopt when it prices none.
    // `partial` (when given) says whether some requests had no price.
    std::optional<double> estimateTotalUsd(bool* partial = nullptr) const;

  private:
    std::vector<Tokens> m_models;
    Tokens m_total;
    std::vector<Point> m_points;
    std::vector<Leak> m_leaks;
};

} // namespace sbui
