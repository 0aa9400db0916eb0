// Paused sandboxes across restarts of the server: when it stops, each paused sandbox is kept as
// a JSON file (ApiOptions::pausedDir) and its session ends, its changes staying; the next server
// lists it as paused, dormant, and connect starts a new session that goes on with those changes
// (RunOptions::resumeFrom). Its files are kept; its processes, which lived in the ended
// session's sandbox, are not (docs/e2b.md).
#include "base/AtomicFile.h"
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace sb::e2b {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::system_clock;

namespace {

long long nsOf(Clock::time_point t)
{
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

// A sandbox id is a session id: letters, digits and '-' only, so it names a file safely.
bool plainId(const std::string& id)
{
    if (id.empty() || id.size() > 128) return false;
    for (char c : id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
    return true;
}

} // namespace

void Api::keepPaused(const Sandbox& s)
{
    if (!plainId(s.id)) return;
    std::error_code ec;
    fs::create_directories(m_options.pausedDir, ec);
    json record = {{"sandbox", s.id},
                   {"session", s.session},
                   {"template", s.templateId},
                   {"access_token", s.accessToken},
                   {"metadata", s.metadata},
                   {"env_vars", s.envVars},
                   {"internet", s.internet},
                   {"allow_out", s.allowOut},
                   {"deny_out", s.denyOut},
                   {"pause_on_timeout", s.pauseOnTimeout},
                   {"started_ns", nsOf(s.startedAt)},
                   {"cpus", s.cpuCount},
                   {"memory_mb", s.memoryMb}};
    AtomicWriteOptions secret;
    secret.newFileMode = 0600; // it holds the sandbox's access token
    const fs::path file = fs::path(m_options.pausedDir) / (s.id + ".json");
    if (auto e = writeFileAtomically(file, dumpJson(record) + "\n", secret); e && m_options.log)
        m_options.log("sandbox " + s.id + " could not be kept paused: " + e->describe());
    else if (m_options.log)
        m_options.log("sandbox " + s.id + " kept paused (its files; not its processes)");
}

void Api::forgetPaused(const std::string& id)
{
    if (m_options.pausedDir.empty() || !plainId(id)) return;
    std::error_code ec;
    fs::remove(fs::path(m_options.pausedDir) / (id + ".json"), ec);
}

void Api::loadPaused()
{
    if (m_options.pausedDir.empty()) return;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(m_options.pausedDir, ec)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        const json r = json::parse(text.str(), nullptr, false);
        if (!r.is_object() || !r.contains("sandbox") || !r["sandbox"].is_string()) continue;
        if (auto e = guarded("a kept paused sandbox",
                             [&]() -> Status {
                                 auto s = std::make_shared<Sandbox>();
                                 s->id = r["sandbox"].get<std::string>();
                                 s->session = r.value("session", s->id);
                                 s->templateId = r.value("template", std::string("base"));
                                 s->accessToken = r.value("access_token", randomHex(16));
                                 s->metadata = r.value("metadata", json::object());
                                 s->envVars =
                                     r.value("env_vars", std::map<std::string, std::string>());
                                 s->internet = r.value("internet", true);
                                 s->allowOut = r.value("allow_out", std::vector<std::string>());
                                 s->denyOut = r.value("deny_out", std::vector<std::string>());
                                 s->pauseOnTimeout = r.value("pause_on_timeout", false);
                                 s->cpuCount = r.value("cpus", 0u);
                                 s->memoryMb = r.value("memory_mb", 0u);
                                 s->startedAt =
                                     Clock::time_point(std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::nanoseconds(r.value("started_ns", 0LL))));
                                 s->endAt = s->startedAt;
                                 s->paused = s->dormant = true;
                                 if (!plainId(s->id)) return inputError("a malformed sandbox id");
                                 std::lock_guard lock(m_mutex);
                                 m_sandboxes[s->id] = s;
                                 return {};
                             });
            e && m_options.log)
            m_options.log("ignored " + entry.path().string() + ": " + e->message);
    }
}

Status Api::revive(Sandbox& s)
{
    SandboxSpec spec;
    spec.templateId = s.templateId;
    spec.metadata = s.metadata;
    spec.envVars = s.envVars;
    spec.internet = s.internet;
    spec.allowOut = s.allowOut;
    spec.denyOut = s.denyOut;
    spec.resumeFrom = s.session;
    auto launched = m_launcher.start(spec);
    if (!launched) return launched.error().within("start its session again");
    auto link = m_options.connect(launched->sessionId);
    if (!link) {
        m_launcher.stop(launched->sessionId);
        return link.error().within("reach its new session");
    }
    {
        std::lock_guard lock(m_mutex);
        s.link = std::move(*link);
        s.session = launched->sessionId;
        s.dormant = false;
    }
    forgetPaused(s.id);
    if (m_options.log)
        m_options.log("sandbox " + s.id + " resumed in session " + s.session +
                      " (its files; its processes did not outlive the server before)");
    return {};
}

} // namespace sb::e2b
