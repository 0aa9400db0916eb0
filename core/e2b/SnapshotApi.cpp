// E2B's snapshots and forks on the sessions' own snapshots (docs/workspace.md, "Snapshots and
// forks"): createSnapshot is the session's snapshot, taken by its supervisor with the sandbox
// frozen; a sandbox created from it (its id as the template) is a new session that goes on with
// a copy of those files; a fork is a snapshot, a sandbox from it per fork, and the snapshot
// removed. Files only: the processes and memory of the sandbox are not in a snapshot.
//
// A snapshot's id is "SANDBOX:NAME" (E2B's are "TEMPLATE:TAG"); the API lists those taken
// through it, with what a sandbox from it needs (its template, envs, network), one JSON file
// each in ApiOptions::snapshotsDir.
#include "base/AtomicFile.h"
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sb::e2b {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::system_clock;

Result<std::string> Launcher::snapshot(const std::string&, const std::string&)
{
    return unsupported("this server takes no snapshots");
}

Status Launcher::deleteSnapshot(const std::string&, const std::string&)
{
    return unsupported("this server takes no snapshots");
}

namespace {

constexpr unsigned kMaxForks = 16;
constexpr std::size_t kMaxPage = 100;

// Letters, digits, '-', '.', '_' and one ':' between a sandbox id and a snapshot name: it names
// a file safely.
bool plainSnapshotId(const std::string& id)
{
    if (id.empty() || id.size() > 200 || std::count(id.begin(), id.end(), ':') != 1) return false;
    if (id.front() == ':' || id.back() == ':' || id.front() == '.') return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
               c == ':';
    });
}

int statusOf(const Error& e)
{
    switch (e.code) {
    case ErrorCode::InvalidInput:
        return 400;
    case ErrorCode::NotFound:
        return 404;
    case ErrorCode::Conflict:
        return 409;
    case ErrorCode::Unsupported:
        return 501;
    default:
        return 500;
    }
}

// A sandbox kept paused by a server before has no session to take a snapshot of until resumed.
void refuseDormant(http::Exchange& ex, const std::string& id, const std::string& what)
{
    restError(ex, 409,
              "sandbox " + id + " is paused with no session (kept from a server before): resume " +
                  "it (connect) to " + what + " it");
}

json snapshotInfo(const json& record)
{
    return {{"snapshotID", record["snapshotID"]}, {"names", record["names"]}};
}

} // namespace

void Api::loadSnapshots()
{
    if (m_options.snapshotsDir.empty()) return;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_options.snapshotsDir, ec)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const json r = json::parse(text.str(), nullptr, false);
        if (!r.is_object() || !r.contains("snapshotID") || !r["snapshotID"].is_string() ||
            !plainSnapshotId(r["snapshotID"].get<std::string>()))
            continue;
        m_snapshots[r["snapshotID"].get<std::string>()] = r;
    }
}

void Api::fromSnapshot(SandboxSpec& spec)
{
    json record;
    {
        std::lock_guard lock(m_snapshotsMutex);
        auto it = m_snapshots.find(spec.templateId);
        if (it == m_snapshots.end()) return;
        record = it->second;
    }
    if (auto e =
            guarded("a snapshot's record",
                    [&]() -> Status {
                        spec.templateId = record.value("template", std::string("base"));
                        spec.snapshotSession = record.value("session", std::string());
                        spec.snapshotName = record.value("name", std::string());
                        // The sandbox's own envs and network go with its files, as E2B's template
                        // does; the create's envs are added over them.
                        auto envs = record.value("env_vars", std::map<std::string, std::string>());
                        for (const auto& [k, v] : spec.envVars)
                            envs[k] = v;
                        spec.envVars = std::move(envs);
                        if (spec.allowOut.empty() && spec.denyOut.empty()) {
                            spec.allowOut = record.value("allow_out", std::vector<std::string>());
                            spec.denyOut = record.value("deny_out", std::vector<std::string>());
                        }
                        if (!spec.internet && !record.value("internet", true))
                            spec.internet = false;
                        return {};
                    });
        e && m_options.log)
        m_options.log("snapshot " + spec.templateId + ": " + e->message);
}

void Api::createSnapshot(http::Exchange& ex, const std::string& id)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return restError(ex, 400, body.error().message);
    std::string name;
    if (body->contains("name")) {
        if (!(*body)["name"].is_string()) return restError(ex, 400, "name must be a string");
        name = (*body)["name"].get<std::string>();
    }
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    json record;
    {
        std::lock_guard lock(m_mutex);
        if (s->dormant) return refuseDormant(ex, id, "snapshot");
        record = {{"sandboxID", s->id},     {"session", s->session},   {"template", s->templateId},
                  {"env_vars", s->envVars}, {"internet", s->internet}, {"allow_out", s->allowOut},
                  {"deny_out", s->denyOut}};
    }
    auto taken = m_launcher.snapshot(record["session"].get<std::string>(), name);
    if (!taken)
        return restError(ex, statusOf(taken.error()),
                         "snapshot of sandbox " + id + ": " + taken.error().describe());
    const std::string snapshotId = id + ":" + *taken;
    record["snapshotID"] = snapshotId;
    record["name"] = *taken;
    record["names"] = json::array({*taken});
    record["created_ns"] =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
            .count();
    if (!m_options.snapshotsDir.empty() && plainSnapshotId(snapshotId)) {
        std::error_code ec;
        fs::create_directories(m_options.snapshotsDir, ec);
        const fs::path file = fs::path(m_options.snapshotsDir) / (snapshotId + ".json");
        if (auto e = writeFileAtomically(file, dumpJson(record) + "\n"); e && m_options.log)
            m_options.log("snapshot " + snapshotId +
                          " is not listed for the next server: " + e->describe());
    }
    {
        std::lock_guard lock(m_snapshotsMutex);
        m_snapshots[snapshotId] = record;
    }
    if (m_options.log) m_options.log("sandbox " + id + ": snapshot " + snapshotId + " taken");
    sendJson(ex, 201, snapshotInfo(record));
}

void Api::listSnapshots(http::Exchange& ex)
{
    const std::string_view query = ex.rawQuery();
    const auto sandbox = http::queryValue(query, "sandboxID").value_or("");
    const auto name = http::queryValue(query, "name").value_or("");
    std::size_t limit = kMaxPage;
    if (auto l = http::queryValue(query, "limit"); l && !l->empty()) {
        char* end = nullptr;
        const unsigned long value = std::strtoul(l->c_str(), &end, 10);
        if (*end != '\0' || value < 1 || value > kMaxPage)
            return restError(ex, 400, "limit must be a number from 1 to 100");
        limit = value;
    }
    std::vector<json> all;
    {
        std::lock_guard lock(m_snapshotsMutex);
        for (const auto& [sid, r] : m_snapshots)
            if ((sandbox.empty() || r.value("sandboxID", "") == sandbox) &&
                (name.empty() || sid == name || r.value("name", "") == name))
                all.push_back(r);
    }
    // Newest first; a page's next token names the last snapshot it held.
    std::stable_sort(all.begin(), all.end(), [](const json& a, const json& b) {
        return a.value("created_ns", 0LL) > b.value("created_ns", 0LL);
    });
    std::size_t from = 0;
    if (auto token = http::queryValue(query, "nextToken"); token && !token->empty()) {
        auto it = std::find_if(all.begin(), all.end(), [&](const json& r) {
            return r["snapshotID"].get<std::string>() == *token;
        });
        if (it == all.end())
            return restError(ex, 400, "nextToken names no snapshot (it may have been deleted)");
        from = static_cast<std::size_t>(it - all.begin()) + 1;
    }
    json page = json::array();
    for (std::size_t i = from; i < all.size() && page.size() < limit; ++i)
        page.push_back(snapshotInfo(all[i]));
    http::Headers headers;
    if (from + page.size() < all.size())
        headers.emplace_back("X-Next-Token", page.back()["snapshotID"].get<std::string>());
    ex.respond(200, "application/json", dumpJson(page), headers);
}

void Api::deleteSnapshot(http::Exchange& ex, const std::string& snapshotId)
{
    json record;
    {
        std::lock_guard lock(m_snapshotsMutex);
        auto it = m_snapshots.find(snapshotId);
        if (it == m_snapshots.end())
            return restError(ex, 404, "snapshot " + snapshotId + " not found");
        record = it->second;
    }
    const Status removed = m_launcher.deleteSnapshot(record.value("session", std::string()),
                                                     record.value("name", std::string()));
    if (removed && removed->code != ErrorCode::NotFound)
        return restError(ex, statusOf(*removed),
                         "delete snapshot " + snapshotId + ": " + removed->describe());
    {
        std::lock_guard lock(m_snapshotsMutex);
        if (m_snapshots.erase(snapshotId) == 0)
            return restError(ex, 404, "snapshot " + snapshotId + " not found");
    }
    if (!m_options.snapshotsDir.empty() && plainSnapshotId(snapshotId)) {
        std::error_code ec;
        fs::remove(fs::path(m_options.snapshotsDir) / (snapshotId + ".json"), ec);
    }
    ex.respond(204, "application/json", "");
}

void Api::forkSandbox(http::Exchange& ex, const std::string& id)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return restError(ex, 400, body.error().message);
    unsigned count = 1;
    if (body->contains("count")) {
        const json& c = (*body)["count"];
        if (!c.is_number_integer() || c.get<long long>() < 1 || c.get<long long>() > kMaxForks)
            return restError(ex, 400,
                             "count must be a number from 1 to " + std::to_string(kMaxForks));
        count = c.get<unsigned>();
    }
    auto timeout = timeoutOf(*body, m_options.defaultTimeoutSeconds, m_options.maxTimeoutSeconds);
    if (!timeout) return restError(ex, 400, timeout.error().message);
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    SandboxSpec spec;
    std::string session;
    {
        std::lock_guard lock(m_mutex);
        if (s->dormant) return refuseDormant(ex, id, "fork");
        session = s->session;
        spec.templateId = s->templateId;
        spec.metadata = s->metadata;
        spec.envVars = s->envVars;
        spec.internet = s->internet;
        spec.allowOut = s->allowOut;
        spec.denyOut = s->denyOut;
    }
    // One snapshot for every fork (the sandbox frozen once), gone once they have their copies.
    auto taken = m_launcher.snapshot(session, "e2b-fork-" + randomHex(6));
    if (!taken)
        return restError(ex, statusOf(taken.error()),
                         "fork of sandbox " + id + ": " + taken.error().describe());
    spec.snapshotSession = session;
    spec.snapshotName = *taken;
    json results = json::array();
    for (unsigned i = 0; i < count; ++i) {
        Started started = startSandbox(spec, *timeout, false);
        if (started.sandbox) {
            json sandbox = sandboxJson(*started.sandbox, m_options.envdVersion);
            sandbox["domain"] = domainOf(ex);
            results.push_back({{"sandbox", sandbox}});
        } else {
            results.push_back(
                {{"error", {{"code", started.status}, {"message", started.message}}}});
        }
    }
    if (auto e = m_launcher.deleteSnapshot(session, *taken); e && m_options.log)
        m_options.log("fork of " + id + ": its snapshot " + *taken + " stays: " + e->describe());
    sendJson(ex, 201, results);
}

} // namespace sb::e2b
