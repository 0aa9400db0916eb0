#include "network/ModelPrices.h"

#include "base/Paths.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace sb {
namespace {

using nlohmann::json;

constexpr std::uintmax_t kMaxTableBytes = 1024 * 1024;

bool digits(std::string_view s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// "-20250929", "@20250929" or "-2024-08-06" at the end: how providers date a model's snapshot.
std::string_view withoutDate(std::string_view name)
{
    if (name.size() > 9 && (name[name.size() - 9] == '-' || name[name.size() - 9] == '@') &&
        digits(name.substr(name.size() - 8)))
        return name.substr(0, name.size() - 9);
    if (name.size() > 11 && name[name.size() - 11] == '-' && name[name.size() - 3] == '-' &&
        name[name.size() - 6] == '-' && digits(name.substr(name.size() - 10, 4)) &&
        digits(name.substr(name.size() - 5, 2)) && digits(name.substr(name.size() - 2)))
        return name.substr(0, name.size() - 11);
    return name;
}

Result<double> rate(const json& entry, const char* key, const std::string& where)
{
    auto it = entry.find(key);
    if (it == entry.end()) return inputError(where + ": \"" + key + "\" is missing");
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
        return inputError(where + ": \"" + key + "\" must be a number of dollars, 0 or more");
    return it->get<double>();
}

} // namespace

std::string modelPriceKey(std::string_view model)
{
    if (auto slash = model.rfind('/'); slash != std::string_view::npos)
        model.remove_prefix(slash + 1);
    std::string key(model);
    for (char& c : key)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    std::string_view view(key);
    if (view.ends_with("-latest")) view.remove_suffix(7);
    return std::string(withoutDate(view));
}

Result<ModelPrices> ModelPrices::parse(std::string_view text, const std::string& origin)
{
    json doc = json::parse(text, nullptr, false, true);
    if (doc.is_discarded() || !doc.is_object())
        return inputError(origin + ": not a JSON object (a price table: see its \"about\")");
    ModelPrices out;
    if (auto date = doc.find("date"); date != doc.end() && date->is_string())
        out.m_date = date->get<std::string>();
    auto families = doc.find("families");
    if (families == doc.end() || !families->is_array())
        return inputError(origin + ": \"families\" must be a list of model families");
    for (std::size_t i = 0; i < families->size(); ++i) {
        const json& entry = (*families)[i];
        const std::string where = origin + ": families[" + std::to_string(i) + "]";
        if (!entry.is_object()) return inputError(where + ": must be an object");
        ModelPrice price;
        if (auto family = entry.find("family"); family != entry.end() && family->is_string())
            price.family = family->get<std::string>();
        auto models = entry.find("models");
        if (models == entry.end() || !models->is_array() || models->empty())
            return inputError(where + ": \"models\" must be a list of model names");
        for (const json& name : *models) {
            if (!name.is_string() || name.get<std::string>().empty())
                return inputError(where + ": \"models\" must be a list of model names");
            const std::string key = modelPriceKey(name.get<std::string>());
            if (out.find(key))
                return inputError(where + ": \"" + key + "\" is priced by an earlier family too");
            price.models.push_back(key);
        }
        double* rates[] = {&price.input, &price.output, &price.cacheRead, &price.cacheWrite};
        const char* keys[] = {"input", "output", "cache_read", "cache_write"};
        for (std::size_t k = 0; k < 4; ++k) {
            auto r = rate(entry, keys[k], where);
            if (!r) return r.error();
            *rates[k] = *r;
        }
        out.m_families.push_back(std::move(price));
    }
    return out;
}

Result<ModelPrices> ModelPrices::load(const std::filesystem::path& file)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) return sysError("read the price table " + file.string(), ec.value());
    if (size > kMaxTableBytes)
        return inputError(file.string() + ": a price table of more than 1 MiB is refused");
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return sysError("read the price table " + file.string());
    return parse(text.str(), file.string());
}

std::filesystem::path ModelPrices::standardFile()
{
    std::error_code ec;
    auto own = configDirectory() / "model-prices.json";
    if (std::filesystem::exists(own, ec)) return own;
    return shippedDataDirectory() / "model-prices.json";
}

const ModelPrice* ModelPrices::find(std::string_view model) const
{
    const std::string key = modelPriceKey(model);
    if (key.empty()) return nullptr;
    for (const ModelPrice& price : m_families)
        for (const std::string& name : price.models)
            if (name == key) return &price;
    return nullptr;
}

std::optional<double> ModelPrices::estimateUsd(std::string_view model, std::uint64_t inputTokens,
                                               std::uint64_t outputTokens,
                                               std::uint64_t cacheReadTokens,
                                               std::uint64_t cacheWriteTokens) const
{
    const ModelPrice* p = find(model);
    if (!p) return std::nullopt;
    auto d = [](std::uint64_t n) { return static_cast<double>(n); };
    return (d(inputTokens) * p->input + d(outputTokens) * p->output +
            d(cacheReadTokens) * p->cacheRead + d(cacheWriteTokens) * p->cacheWrite) /
           1e6;
}

std::optional<double> ModelPrices::estimateUsd(const ModelUsage& u) const
{
    return estimateUsd(u.model, u.inputTokens, u.outputTokens, u.cacheReadTokens,
                       u.cacheWriteTokens);
}

} // namespace sb
