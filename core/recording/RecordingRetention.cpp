// Removing recordings: one session on request (rm), or by age and total size (gc). Neither
// ever touches a session whose supervisor is still running.
#include "base/AtomicFile.h"
#include "base/Paths.h"
#include "base/Session.h"
#include "recording/RecordingIndex.h"
#include "recording/RecordingStore.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fs = std::filesystem;

namespace sb {
namespace {

constexpr std::uint64_t kMaxSizeMb = 1ull << 40;
constexpr std::uint64_t kMaxAgeDays = 100000;

bool isLive(const std::string& id)
{
    SessionInfo probe;
    probe.id = id;
    return isValidSessionId(id) && sessionIsLive(probe);
}

std::int64_t nowNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

} // namespace

fs::path retentionConfigPath()
{
    return configDirectory() / "recordings.json";
}

GcOptions RetentionLimits::toGcOptions() const
{
    GcOptions options;
    if (maxSizeMb > 0) options.maxBytes = maxSizeMb << 20;
    if (maxAgeDays > 0)
        options.maxAgeNs = static_cast<std::int64_t>(maxAgeDays) * 86400 * 1'000'000'000;
    return options;
}

Result<RetentionLimits> loadRetentionLimits()
{
    RetentionLimits limits;
    fs::path file = retentionConfigPath();
    std::ifstream in(file);
    if (!in) return limits;
    std::stringstream text;
    text << in.rdbuf();
    auto j = nlohmann::json::parse(text.str(), nullptr, false, true);
    if (j.is_discarded() || !j.is_object())
        return inputError(file.string() + ": not a JSON object");
    for (const auto& [key, value] : j.items()) {
        if (key != "max_size_mb" && key != "max_age_days")
            return inputError(file.string() + ": unknown key '" + key +
                              "' (expected max_size_mb, max_age_days)");
        // Beyond these the byte count or the age in nanoseconds would overflow.
        const std::uint64_t max = key == "max_size_mb" ? kMaxSizeMb : kMaxAgeDays;
        if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
            return inputError(file.string() + ": '" + key + "' must be a whole number from 0 " +
                              "(no limit) to " + std::to_string(max));
        (key == "max_size_mb" ? limits.maxSizeMb : limits.maxAgeDays) = value.get<std::uint64_t>();
    }
    return limits;
}

Result<GcOptions> loadRetentionConfig()
{
    auto limits = loadRetentionLimits();
    if (!limits) return limits.error();
    return limits->toGcOptions();
}

Status saveRetentionLimits(const RetentionLimits& limits)
{
    const fs::path file = retentionConfigPath();
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
        return Error{ErrorCode::System, ec.value(), "cannot create " + file.parent_path().string()};
    const nlohmann::json j{{"max_size_mb", limits.maxSizeMb}, {"max_age_days", limits.maxAgeDays}};
    return writeFileAtomically(file, j.dump(2) + "\n");
}

Status RecordingStore::removeSid(std::int64_t s)
{
    if (auto e = m_db.exec("BEGIN IMMEDIATE")) return e;
    auto step = [&]() -> Status {
        // The contentless text index must be told exactly what it indexed before the chunks go.
        if (auto e = indexSessionText(m_db, s, TextIndexOp::Remove)) return e;
        for (const char* sql :
             {"DELETE FROM events WHERE sid = ?1", "DELETE FROM keyframes WHERE sid = ?1",
              "DELETE FROM sessions WHERE sid = ?1"}) {
            auto stmt = m_db.prepare(sql);
            if (!stmt) return stmt.error();
            if (auto e = stmt->bind(1, s).run("delete session")) return e;
        }
        return {};
    };
    if (auto e = step()) {
        (void)m_db.exec("ROLLBACK");
        return e;
    }
    return m_db.exec("COMMIT");
}

Status RecordingStore::remove(const std::string& id)
{
    auto record = session(id);
    if (!record) return record.error();
    if (record->state == RecordState::Running && isLive(id))
        return Error{ErrorCode::Conflict, 0,
                     "session " + id +
                         " is still running; its recording can be removed after "
                         "it ends"};
    auto s = sid(id);
    if (!s) return s.error();
    if (auto e = removeSid(*s)) return e;
    (void)m_db.exec("PRAGMA incremental_vacuum");
    return {};
}

Result<GcReport> RecordingStore::gc(const GcOptions& options)
{
    if (auto e = markInterrupted()) return *e;
    auto all = sessions();
    if (!all) return all.error();
    GcReport report;
    std::uint64_t total = 0;
    for (const SessionRecord& r : *all)
        total += r.storedBytes;
    std::int64_t cutoff = options.maxAgeNs ? nowNs() - *options.maxAgeNs : 0;
    // Oldest first (sessions() is ordered by start): age, then size until under the limit.
    for (const SessionRecord& r : *all) {
        if (r.state == RecordState::Running) continue;
        bool tooOld = options.maxAgeNs && r.startedNs < cutoff;
        bool tooBig = options.maxBytes && total > *options.maxBytes;
        if (!tooOld && !tooBig) continue;
        if (!options.dryRun) {
            auto s = sid(r.id);
            if (!s) return s.error();
            if (auto e = removeSid(*s)) return *e;
        }
        report.removed.push_back(r.id);
        report.freedBytes += r.storedBytes;
        total -= r.storedBytes;
    }
    report.keptBytes = total;
    if (!options.dryRun && !report.removed.empty()) (void)m_db.exec("PRAGMA incremental_vacuum");
    for (const char* suffix : {"", "-wal"}) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file().string() + suffix, ec);
        if (!ec) report.fileBytes += size;
    }
    return report;
}

} // namespace sb
