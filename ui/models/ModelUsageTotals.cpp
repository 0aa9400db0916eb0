#include "ModelUsageTotals.h"

#include "base/ActivityKinds.h"
#include "network/ModelPrices.h"

#include <algorithm>
#include <filesystem>

using json = nlohmann::json;

namespace sbui {
namespace {

std::uint64_t count(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

QString text(const json& e, const char* key)
{
    auto it = e.find(key);
    if (it == e.end() || it->is_null()) return {};
    return QString::fromStdString(it->is_string() ? it->get<std::string>() : it->dump());
}

qint64 integer(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_number_integer() ? it->get<qint64>() : 0;
}

struct Table {
    std::optional<sb::ModelPrices> prices;
    QString file, problem;
};

const Table& table()
{
    static const Table loaded = [] {
        Table t;
        const auto file = sb::ModelPrices::standardFile();
        t.file = QString::fromStdString(file.string());
        auto prices = sb::ModelPrices::load(file);
        if (prices) {
            t.prices = std::move(*prices);
        } else {
            t.problem = QString::fromStdString(prices.error().describe());
        }
        return t;
    }();
    return loaded;
}

} // namespace

bool ModelUsageTotals::add(const json& event)
{
    if (!event.is_object()) return false;
    const std::string kind = event.value("kind", "");
    if (kind == sb::activity::kLeak) {
        Leak leak;
        leak.timeUnixMs = integer(event, "time_unix_ms");
        leak.secret = text(event, "secret");
        leak.host = text(event, "host");
        leak.port = integer(event, "port");
        leak.where = text(event, "where");
        if (auto p = event.find("process");
            p != event.end() && p->is_array() && !p->empty() && p->front().is_object())
            leak.program = QString::fromStdString(
                std::filesystem::path(text(p->front(), "program").toStdString())
                    .filename()
                    .string());
        m_leaks.push_back(std::move(leak));
        return true;
    }
    if (kind != sb::activity::kModel) return false;
    const QString model = text(event, "model");
    auto it = std::find_if(m_models.begin(), m_models.end(),
                           [&model](const Tokens& t) { return t.model == model; });
    if (it == m_models.end()) {
        m_models.push_back({model});
        it = std::prev(m_models.end());
    }
    for (Tokens* t : {&*it, &m_total}) {
        ++t->requests;
        t->input += count(event, "input_tokens");
        t->output += count(event, "output_tokens");
        t->cacheRead += count(event, "cache_read_tokens");
        t->cacheWrite += count(event, "cache_write_tokens");
    }
    if (m_points.size() >= kMaxPoints) { // a long session: half the points, the same curve
        std::vector<Point> thinned;
        for (std::size_t i = 1; i < m_points.size(); i += 2)
            thinned.push_back(m_points[i]);
        m_points = std::move(thinned);
    }
    m_points.push_back({integer(event, "time_unix_ms"),
                        m_total.input + m_total.cacheRead + m_total.cacheWrite, m_total.output});
    return true;
}

void ModelUsageTotals::clear()
{
    m_models.clear();
    m_total = {};
    m_points.clear();
    m_leaks.clear();
}

const sb::ModelPrices* ModelUsageTotals::prices()
{
    return table().prices ? &*table().prices : nullptr;
}

QString ModelUsageTotals::pricesFile()
{
    return table().file;
}

QString ModelUsageTotals::pricesProblem()
{
    return table().problem;
}

std::optional<double> ModelUsageTotals::estimateUsd(const Tokens& t) const
{
    const sb::ModelPrices* p = prices();
    if (!p) return std::nullopt;
    return p->estimateUsd(t.model.toStdString(), t.input, t.output, t.cacheRead, t.cacheWrite);
}

std::optional<double> ModelUsageTotals::estimateTotalUsd(bool* partial) const
{
    std::optional<double> sum;
    bool missing = false;
    for (const Tokens& t : m_models) {
        if (auto usd = estimateUsd(t)) {
            sum = sum.value_or(0) + *usd;
        } else {
            missing = true;
        }
    }
    if (partial) *partial = missing;
    return sum;
}

} // namespace sbui
