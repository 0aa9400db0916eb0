// The E2B API's control plane (sandboxes: create, list, get, connect, time out, kill), its
// routing, and what its parts share.
#include "base/Bytes.h"
#include "e2b/E2bInternal.h"

#include <algorithm>
#include <ctime>
#include <sys/random.h>

namespace sb::e2b {

using json = nlohmann::json;
using Clock = std::chrono::system_clock;

void restError(http::Exchange& ex, int status, const std::string& message)
{
    sendJson(ex, status, {{"code", status}, {"message", message}});
}

void rpcFail(http::Exchange& ex, const RpcError& error)
{
    sendJson(ex, httpStatusOf(error.code), toJson(error));
}

void sendJson(http::Exchange& ex, int status, const json& body)
{
    ex.respond(status, "application/json", dumpJson(body));
}

std::string rfc3339(long long unixNs)
{
    const std::time_t seconds = static_cast<std::time_t>(unixNs / 1000000000LL);
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  unixNs % 1000000000LL);
    return buf;
}

std::string rfc3339(Clock::time_point t)
{
    return rfc3339(static_cast<long long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count()));
}

std::string randomHex(std::size_t bytes)
{
    std::string raw(bytes, '\0');
    for (std::size_t got = 0; got < bytes;) {
        ssize_t n = ::getrandom(raw.data() + got, bytes - got, 0);
        if (n > 0) got += static_cast<std::size_t>(n);
    }
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    for (unsigned char c : raw) {
        hex += digits[c >> 4];
        hex += digits[c & 15];
    }
    return hex;
}

bool sameSecret(std::string_view a, std::string_view b)
{
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
    return diff == 0;
}

Result<json> jsonBody(http::Exchange& ex, std::size_t limit)
{
    auto body = http::readWholeBody(ex, limit);
    if (!body) return body.error();
    return unaryRequest(*body);
}

std::string absoluteIn(const std::string& home, const std::string& path)
{
    std::string p = path;
    if (p == "~")
        p = home;
    else if (p.starts_with("~/"))
        p = home + p.substr(1);
    else if (!p.starts_with("/"))
        p = home + "/" + p;
    std::string normal = std::filesystem::path(p).lexically_normal().string();
    if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    return normal;
}

// The SDK reads these from a create or connect answer. Its sandbox's domain is "localhost"
// (create, connect and fork add this server's port: domainOf): without it the SDK falls back to
// E2B's own domain, and getHost(port) (and, without E2B_SANDBOX_URL, the sandbox's own URL)
// would name a host on the internet; under localhost nothing leaves this machine.
json sandboxJson(const Api::Sandbox& s, const std::string& envdVersion)
{
    return {{"sandboxID", s.id},          {"templateID", s.templateId},
            {"alias", s.templateId},      {"clientID", "sandbench"},
            {"envdVersion", envdVersion}, {"envdAccessToken", s.accessToken},
            {"domain", "localhost"},      {"trafficAccessToken", s.accessToken}};
}

json detailJson(const Api::Sandbox& s, Clock::time_point endAt, const std::string& envdVersion)
{
    json j = sandboxJson(s, envdVersion);
    j["metadata"] = s.metadata;
    j["startedAt"] = rfc3339(s.startedAt);
    j["endAt"] = rfc3339(endAt);
    j["state"] = s.paused ? "paused" : "running";
    j["cpuCount"] = s.cpuCount;
    j["memoryMB"] = s.memoryMb;
    j["diskSizeMB"] = 0;
    j["allowInternetAccess"] = s.internet;
    if (!s.allowOut.empty() || !s.denyOut.empty())
        j["network"] = {{"allowOut", s.allowOut}, {"denyOut", s.denyOut}};
    return j;
}

namespace {

std::vector<std::string> pathParts(std::string_view path)
{
    std::vector<std::string> parts;
    while (!path.empty()) {
        const std::size_t slash = path.find('/');
        if (slash != 0) parts.emplace_back(path.substr(0, slash));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return parts;
}

} // namespace

Api::Api(Launcher& launcher, ApiOptions options)
    : m_launcher(launcher), m_options(std::move(options))
{
    if (!m_options.connect)
        m_options.connect = [](const std::string& session) {
            return SessionLink::open(session, "sandbench-cli serve (E2B API)");
        };
    if (!m_options.usage) m_options.usage = readSessionUsage;
    loadPaused();
    loadSnapshots();
    m_expiry = std::thread([this] { expire(); });
    if (m_options.spares) m_spareThread = std::thread([this] { keepSpares(); });
}

Api::~Api()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_sparesStopping = true;
    }
    m_cv.notify_all();
    m_spareCv.notify_all();
    m_expiry.join();
    if (m_spareThread.joinable()) m_spareThread.join();
}

void Api::handle(http::Exchange& ex)
{
    // A field of an unexpected type deep in a request is the client's error.
    if (auto e = guarded("request", [&]() -> Status {
            route(ex);
            return {};
        }))
        restError(ex, 400, e->message); // ignored when a response has begun
}

void Api::route(http::Exchange& ex)
{
    if (auto host = ex.header("Host"))
        if (auto target = parsePortHost(*host)) return portPreview(ex, *target);
    std::vector<std::string> parts = pathParts(ex.path());
    if (!parts.empty() && parts[0] == "v2") parts.erase(parts.begin());
    // The in-sandbox API's requests name their sandbox; the control plane's carry the API key.
    const bool controlPlane = (!parts.empty() && parts[0] == "sandboxes") ||
                              (!ex.header("E2b-Sandbox-Id") && ex.header("X-API-Key"));
    if (!controlPlane) return envd(ex);

    const auto key = ex.header("X-API-Key");
    if (!key)
        return restError(ex, 401, "no API key: send it in the X-API-Key header (E2B_API_KEY)");
    if (!sameSecret(*key, m_options.apiKey))
        return restError(ex, 401, "invalid API key (sandbench-cli serve --print-key shows it)");

    const std::string_view method = ex.method();
    if (parts.size() == 2 && parts[0] == "sandboxes" && parts[1] == "metrics" && method == "GET")
        return latestMetrics(ex);
    if (parts.size() == 1 && parts[0] == "snapshots" && method == "GET") return listSnapshots(ex);
    // A snapshot is deleted as E2B's are, as a template; other templates are not served here.
    if (parts.size() == 2 && parts[0] == "templates" && method == "DELETE" &&
        parts[1].find(':') != std::string::npos)
        return deleteSnapshot(ex, parts[1]);
    if (parts.empty() || parts[0] != "sandboxes" || (parts.size() >= 2 && parts[1] == "metrics"))
        return notServed(ex, parts);
    if (parts.size() == 1 && method == "POST") return createSandbox(ex);
    if (parts.size() == 1 && method == "GET") return listSandboxes(ex);
    if (parts.size() == 2 && method == "GET") return getSandbox(ex, parts[1]);
    if (parts.size() == 2 && method == "DELETE") return killSandbox(ex, parts[1]);
    if (parts.size() == 3 && method == "POST" && parts[2] == "timeout")
        return setTimeout(ex, parts[1]);
    if (parts.size() == 3 && method == "POST" && (parts[2] == "connect" || parts[2] == "resume"))
        return connectSandbox(ex, parts[1]);
    if (parts.size() == 3 && method == "POST" && parts[2] == "pause")
        return pauseSandbox(ex, parts[1]);
    if (parts.size() == 3 && method == "GET" && parts[2] == "metrics")
        return sandboxMetrics(ex, parts[1]);
    if (parts.size() == 3 && method == "POST" && parts[2] == "snapshots")
        return createSnapshot(ex, parts[1]);
    if (parts.size() == 3 && method == "POST" && parts[2] == "fork")
        return forkSandbox(ex, parts[1]);
    notServed(ex, parts);
}

void Api::notServed(http::Exchange& ex, const std::vector<std::string>& parts)
{
    const std::string what = std::string(ex.method()) + " " + std::string(ex.path());
    // A sandbox's endpoint names the sandbox: one that is not there is a 404, as on E2B, and a
    // running one never is.
    if (parts.size() >= 3 && parts[0] == "sandboxes" && !find(parts[1]))
        return restError(ex, 404, "sandbox " + parts[1] + " not found");
    std::string why = "it is not served by Sandbench's E2B API (docs/e2b.md, \"What does not\")";
    const std::string last = parts.size() >= 3 ? parts[2] : "";
    if (last == "network")
        why = "a sandbox's network rules are set when it is created (network.allowOut, "
              "denyOut); the session's policy can be edited in the window";
    restError(ex, 501, what + " is not supported: " + why);
}

void Api::createSandbox(http::Exchange& ex)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return restError(ex, 400, body.error().message);
    auto request = parseCreate(*body, m_options, true);
    if (!request) return restError(ex, 400, request.error().message);
    fromSnapshot(request->spec);
    Started started = startSandbox(request->spec, request->timeoutSeconds, request->pauseOnTimeout);
    if (!started.sandbox) return restError(ex, started.status, started.message);
    json created = sandboxJson(*started.sandbox, m_options.envdVersion);
    created["domain"] = domainOf(ex);
    sendJson(ex, 201, created);
}

Api::Started Api::startSandbox(const SandboxSpec& spec, unsigned timeoutSeconds,
                               bool pauseOnTimeout)
{
    const bool fits = spareServes(spec);
    std::shared_ptr<Sandbox> sandbox = fits ? claimSpare(spec.templateId) : nullptr;
    const bool spare = sandbox != nullptr;
    if (!sandbox) {
        Started launched = launch(spec);
        if (!launched.sandbox) return launched;
        sandbox = std::move(launched.sandbox);
    }
    if (fits) wantSpare(spec.templateId); // the next create of this template finds one ready
    return admit(std::move(sandbox), spec, timeoutSeconds, pauseOnTimeout, spare);
}

Api::Started Api::launch(const SandboxSpec& spec)
{
    auto launched = m_launcher.start(spec);
    if (!launched) {
        const Error& e = launched.error();
        const int status = e.code == ErrorCode::NotFound       ? 404
                           : e.code == ErrorCode::InvalidInput ? 400
                                                               : 500;
        return {nullptr, status, e.describe()};
    }
    auto link = m_options.connect(launched->sessionId);
    if (!link) {
        m_launcher.stop(launched->sessionId);
        return {nullptr, 500,
                "the sandbox started but cannot be reached: " + link.error().describe()};
    }
    auto sandbox = std::make_shared<Sandbox>();
    sandbox->id = sandbox->session = launched->sessionId;
    sandbox->templateId = spec.templateId;
    sandbox->envVars = spec.envVars;
    sandbox->internet = spec.internet.value_or(true);
    sandbox->allowOut = spec.allowOut;
    sandbox->denyOut = spec.denyOut;
    sandbox->cpuCount = launched->cpuCount;
    sandbox->memoryMb = launched->memoryMb;
    sandbox->link = std::move(*link);
    // A code interpreter's kernel starts with its sandbox, so that the first execution finds it
    // warm; a gateway that cannot start fails the create, naming why.
    if (isCodeInterpreterTemplate(spec.templateId)) {
        std::lock_guard lock(sandbox->kernels->mutex);
        auto gateway = KernelGateway::start(sandbox->link, m_options.home, sandbox->envVars);
        if (!gateway) {
            sandbox->link.reset();
            m_launcher.stop(launched->sessionId);
            return {nullptr, 500, gateway.error().describe()};
        }
        sandbox->kernels->gateway = std::move(*gateway);
    }
    return {sandbox, 201, {}};
}

Api::Started Api::admit(std::shared_ptr<Sandbox> sandbox, const SandboxSpec& spec,
                        unsigned timeoutSeconds, bool pauseOnTimeout, bool spare)
{
    // onTimeout 'pause' is honoured or refused now, not found impossible at the timeout: the
    // new sandbox is frozen and thawed once (milliseconds) to see that it can be.
    if (pauseOnTimeout) {
        Status probe = sandbox->link->pause(true);
        if (!probe) probe = sandbox->link->pause(false);
        if (probe) {
            discard(*sandbox);
            return {nullptr, probe->code == ErrorCode::Unsupported ? 400 : 500,
                    "lifecycle.onTimeout 'pause' cannot be honoured here: " + probe->describe()};
        }
    }
    sandbox->accessToken = randomHex(16);
    sandbox->metadata = spec.metadata;
    sandbox->envVars = spec.envVars;
    sandbox->startedAt = Clock::now();
    sandbox->endAt = sandbox->startedAt + std::chrono::seconds(timeoutSeconds);
    sandbox->pauseOnTimeout = pauseOnTimeout;
    {
        std::lock_guard lock(m_mutex);
        m_sandboxes[sandbox->id] = sandbox;
    }
    m_cv.notify_all(); // its end may be the next
    if (m_options.log)
        m_options.log("sandbox " + sandbox->id + " created (template " + spec.templateId +
                      (spare ? ", the spare started ahead)" : ")"));
    return {sandbox, 201, {}};
}

void Api::discard(Sandbox& sandbox)
{
    {
        std::lock_guard lock(sandbox.kernels->mutex);
        sandbox.kernels->gateway.reset();
    }
    sandbox.link.reset();
    m_launcher.stop(sandbox.session);
}

void Api::getSandbox(http::Exchange& ex, const std::string& id)
{
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    std::lock_guard lock(m_mutex);
    json detail = detailJson(*s, s->endAt, m_options.envdVersion);
    detail["domain"] = domainOf(ex);
    sendJson(ex, 200, detail);
}

void Api::killSandbox(http::Exchange& ex, const std::string& id)
{
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    kill(s);
    ex.respond(204, "application/json", "");
}

void Api::setTimeout(http::Exchange& ex, const std::string& id)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return restError(ex, 400, body.error().message);
    if (!body->contains("timeout")) return restError(ex, 400, "timeout (seconds) is missing");
    auto timeout = timeoutOf(*body, 0, m_options.maxTimeoutSeconds);
    if (!timeout) return restError(ex, 400, timeout.error().message);
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    {
        std::lock_guard lock(m_mutex);
        s->endAt = Clock::now() + std::chrono::seconds(*timeout);
    }
    m_cv.notify_all();
    ex.respond(204, "application/json", "");
}

void Api::connectSandbox(http::Exchange& ex, const std::string& id)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return restError(ex, 400, body.error().message);
    auto timeout = timeoutOf(*body, 0, m_options.maxTimeoutSeconds);
    if (!timeout) return restError(ex, 400, timeout.error().message);
    if (body->contains("memory") && (*body)["memory"] == false)
        return restError(ex, 400,
                         "onResume 'reboot' is not supported by Sandbench's E2B API: a sandbox "
                         "keeps its processes");
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    // Connecting to a paused sandbox resumes it, for its timeout from now on.
    if (auto e = pause(*s, false)) return restError(ex, 500, "resume: " + e->describe());
    {
        // Connecting never shortens a running sandbox's life.
        std::lock_guard lock(m_mutex);
        if (*timeout > 0)
            s->endAt = std::max(s->endAt, Clock::now() + std::chrono::seconds(*timeout));
    }
    m_cv.notify_all();
    json connected = sandboxJson(*s, m_options.envdVersion);
    connected["domain"] = domainOf(ex);
    sendJson(ex, 200, connected);
}

void Api::pauseSandbox(http::Exchange& ex, const std::string& id)
{
    auto body = jsonBody(ex, m_options.maxJsonBody);
    if (!body) return restError(ex, 400, body.error().message);
    if (body->contains("memory") && (*body)["memory"] == false)
        return restError(ex, 400,
                         "keepMemory: false is not supported by Sandbench's E2B API: a paused "
                         "sandbox keeps its processes (it is frozen)");
    auto s = find(id);
    if (!s) return restError(ex, 404, "sandbox " + id + " not found");
    {
        std::lock_guard lock(m_mutex);
        if (s->paused) return restError(ex, 409, "sandbox " + id + " is paused already");
    }
    if (auto e = pause(*s, true))
        return restError(ex, e->code == ErrorCode::Unsupported ? 501 : 500,
                         "sandbox " + id + " cannot be paused: " + e->describe());
    ex.respond(204, "application/json", "");
}

Status Api::pause(Sandbox& sandbox, bool paused)
{
    std::lock_guard pausing(m_pausing);
    {
        std::lock_guard lock(m_mutex);
        if (sandbox.paused == paused) return {};
    }
    bool dormant = false;
    {
        std::lock_guard lock(m_mutex);
        dormant = sandbox.dormant;
    }
    if (dormant && paused) return {};
    if (auto e = dormant ? revive(sandbox) : sandbox.link->pause(paused)) return e;
    {
        std::lock_guard lock(m_mutex);
        sandbox.paused = paused;
        // A resumed sandbox has its timeout again from now on; a paused one waits without one.
        if (!paused)
            sandbox.endAt =
                std::max(sandbox.endAt,
                         Clock::now() + std::chrono::seconds(m_options.defaultTimeoutSeconds));
    }
    m_cv.notify_all();
    if (m_options.log) m_options.log("sandbox " + sandbox.id + (paused ? " paused" : " resumed"));
    return {};
}

std::shared_ptr<Api::Sandbox> Api::find(const std::string& id)
{
    std::shared_ptr<Sandbox> s;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_sandboxes.find(id);
        if (it == m_sandboxes.end()) return nullptr;
        s = it->second;
        if (s->dormant) return s;
    }
    if (s->link->alive()) return s;
    // Its session ended by other means (stopped in the window, its wall-clock limit).
    kill(s);
    return nullptr;
}

void Api::kill(const std::shared_ptr<Sandbox>& sandbox, bool keep)
{
    bool dormant = false, paused = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_sandboxes.erase(sandbox->id) == 0) return; // another request was first
        dormant = sandbox->dormant;
        paused = sandbox->paused;
    }
    if (keep && paused && !m_options.pausedDir.empty()) {
        keepPaused(*sandbox);
    } else if (dormant || paused) {
        forgetPaused(sandbox->id);
    }
    if (dormant) return;
    // A frozen sandbox is thawed to stop: its processes must see their stop signal.
    (void)pause(*sandbox, false);
    m_launcher.stop(sandbox->session);
    if (m_options.log) m_options.log("sandbox " + sandbox->id + " killed");
}

void Api::stopAll()
{
    stopSpares();
    std::vector<std::shared_ptr<Sandbox>> all;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, s] : m_sandboxes)
            all.push_back(s);
    }
    for (const auto& s : all)
        kill(s, true);
}

void Api::expire()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        auto next = Clock::time_point::max();
        std::vector<std::shared_ptr<Sandbox>> due;
        const auto now = Clock::now();
        for (const auto& [id, s] : m_sandboxes) {
            if (s->paused) continue; // a paused sandbox waits for connect, without a timeout
            if (s->endAt <= now)
                due.push_back(s);
            else
                next = std::min(next, s->endAt);
        }
        if (!due.empty()) {
            lock.unlock();
            for (const auto& s : due) {
                if (m_options.log) m_options.log("sandbox " + s->id + " timed out");
                // lifecycle.onTimeout 'pause' pauses it; one that cannot be paused is killed.
                if (s->pauseOnTimeout) {
                    auto e = pause(*s, true);
                    if (!e) continue;
                    if (m_options.log)
                        m_options.log("sandbox " + s->id + " could not pause: " + e->describe());
                }
                kill(s);
            }
            lock.lock();
            continue;
        }
        // A second at most: a session that ended meanwhile is noticed by find().
        m_cv.wait_until(lock, std::min(next, now + std::chrono::seconds(1)));
    }
}

} // namespace sb::e2b
