// E2B's metrics of sandboxes (GET /sandboxes/ID/metrics, GET /sandboxes/metrics): CPU, memory
// and disk as the SDK's SandboxMetric reads them, from the session's cgroup and layer
// (SandboxMetrics.h). Each request takes a reading (a second apart at least) and keeps it, so a
// sandbox's series is the readings its callers asked for; a range is answered from them.
#include "e2b/E2bInternal.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace sb::e2b {

using json = nlohmann::json;
using Clock = std::chrono::system_clock;

namespace {

constexpr std::size_t kMaxSamples = 1000;
constexpr std::size_t kMaxIds = 100; // E2B's bound on sandbox_ids

long long unixSeconds(Clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// A query parameter of whole seconds since the epoch; nullopt when absent, an error naming it
// when it is no such number.
Result<std::optional<long long>> secondsParam(std::string_view query, std::string_view name)
{
    auto raw = http::queryValue(query, name);
    if (!raw || raw->empty()) return std::optional<long long>();
    long long value = 0;
    auto [end, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), value);
    if (ec != std::errc() || end != raw->data() + raw->size() || value < 0)
        return inputError(std::string(name) + " must be a Unix time in seconds, not '" + *raw +
                          "'");
    return std::optional<long long>(value);
}

json sampleJson(const SandboxUsage& u, Clock::time_point at, unsigned cpuCount, double cpuPct)
{
    return {{"timestamp", rfc3339(at)}, {"timestampUnix", unixSeconds(at)},
            {"cpuCount", cpuCount},     {"cpuUsedPct", cpuPct},
            {"memUsed", u.memUsed},     {"memTotal", u.memTotal},
            {"memCache", u.memCache},   {"diskUsed", u.diskUsed},
            {"diskTotal", u.diskTotal}};
}

} // namespace

// A reading of the sandbox now (or the last one, when it is less than a second old). Its CPU
// share is that of the time since the reading before (since the start for the first), of all
// its CPUs, as E2B's cpuUsedPct.
Result<json> Api::takeSample(Sandbox& sandbox)
{
    std::string session;
    bool dormant = false;
    unsigned cpuCount = 0;
    {
        std::lock_guard lock(m_mutex);
        session = sandbox.session;
        dormant = sandbox.dormant;
        cpuCount = sandbox.cpuCount;
    }
    if (dormant)
        return Error{ErrorCode::Conflict, 0,
                     "sandbox " + sandbox.id +
                         " is paused with no session: it has no metrics "
                         "until it is resumed (connect)"};
    auto& metrics = *sandbox.metrics;
    std::lock_guard lock(metrics.mutex);
    const auto now = Clock::now();
    if (!metrics.samples.empty() && now - metrics.at < std::chrono::seconds(1))
        return metrics.samples.back();
    auto usage = m_options.usage(session);
    if (!usage) return usage.error();
    if (metrics.at == Clock::time_point()) metrics.at = sandbox.startedAt;
    const double wallUs = static_cast<double>(
        std::chrono::duration_cast<std::chrono::microseconds>(now - metrics.at).count());
    const double usedUs = usage->cpuUsageUs > metrics.cpuUs
                              ? static_cast<double>(usage->cpuUsageUs - metrics.cpuUs)
                              : 0.0;
    const double cpus = std::max(1u, cpuCount);
    const double pct = wallUs > 0 ? std::clamp(100.0 * usedUs / (wallUs * cpus), 0.0, 100.0) : 0.0;
    json sample = sampleJson(*usage, now, cpuCount, std::round(pct * 100) / 100);
    metrics.cpuUs = usage->cpuUsageUs;
    metrics.at = now;
    metrics.samples.push_back(sample);
    if (metrics.samples.size() > kMaxSamples) metrics.samples.erase(metrics.samples.begin());
    return sample;
}

void Api::sandboxMetrics(http::Exchange& ex, const std::string& id)
{
    auto start = secondsParam(ex.rawQuery(), "start");
    if (!start) return restError(ex, 400, start.error().message);
    auto end = secondsParam(ex.rawQuery(), "end");
    if (!end) return restError(ex, 400, end.error().message);
    if (*start && *end && **start > **end) return restError(ex, 400, "start is after end");
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    // A range that reaches now gets a reading of now; one wholly past is answered from those
    // taken then.
    const long long now = unixSeconds(Clock::now());
    if ((!*start || **start <= now) && (!*end || **end >= now)) {
        auto sample = takeSample(*s);
        if (!sample) {
            const Error& e = sample.error();
            return restError(ex,
                             e.code == ErrorCode::Unsupported ? 501
                             : e.code == ErrorCode::Conflict  ? 409
                                                              : 500,
                             "metrics of sandbox " + id + ": " + e.describe());
        }
    }
    json out = json::array();
    std::lock_guard lock(s->metrics->mutex);
    for (const json& sample : s->metrics->samples) {
        const long long at = sample["timestampUnix"].get<long long>();
        if ((!*start || at >= **start) && (!*end || at <= **end)) out.push_back(sample);
    }
    sendJson(ex, 200, out);
}

void Api::latestMetrics(http::Exchange& ex)
{
    const auto raw = http::queryValue(ex.rawQuery(), "sandbox_ids");
    if (!raw || raw->empty())
        return restError(ex, 400, "sandbox_ids (comma-separated sandbox ids) is missing");
    std::vector<std::string> ids;
    for (std::string_view rest = *raw; !rest.empty();) {
        const std::size_t comma = rest.find(',');
        if (comma != 0) ids.emplace_back(rest.substr(0, comma));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    if (ids.size() > kMaxIds)
        return restError(ex, 400, "sandbox_ids names more than 100 sandboxes");
    // Those running, each with its latest reading; the others are left out, as on E2B.
    json sandboxes = json::object();
    for (const std::string& id : ids) {
        auto s = find(id);
        if (!s) continue;
        auto sample = takeSample(*s);
        if (sample)
            sandboxes[id] = std::move(*sample);
        else if (sample.error().code == ErrorCode::Unsupported)
            return restError(ex, 501, "metrics: " + sample.error().describe());
    }
    sendJson(ex, 200, {{"sandboxes", sandboxes}});
}

} // namespace sb::e2b
