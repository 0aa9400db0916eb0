// The E2B-compatible API (docs/e2b.md): the REST control plane the E2B SDK calls to create,
// list, get, time out and kill sandboxes, and the in-sandbox API its envd serves (processes
// and the file system over Connect, /files, /health), on one HTTP server. Each sandbox is a
// Sandbench session without a command; every request becomes control-protocol requests to it
// (exec and files), so what a program does through this API is supervised, approved, recorded
// and reviewable like anything else in the session.
#pragma once

#include "base/Error.h"
#include "e2b/SandboxMetrics.h"
#include "http/HttpServer.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sb::e2b {

class SessionLink;
struct PortHost;
struct SignedFileQuery;

// What a create request asks for.
struct SandboxSpec {
    std::string templateId = "base";
    nlohmann::json metadata = nlohmann::json::object();
    std::map<std::string, std::string> envVars;
    std::optional<bool> internet; // allow_internet_access: false takes the network away
    // network.allowOut / denyOut: destinations (an address, a CIDR range, a host name or
    // "*.domain"; "0.0.0.0/0" is every destination) the sandbox may or may not reach. The
    // launcher makes them the session's network rules, an allowed one before a denied one, or
    // refuses them (InvalidInput) when the template's policy cannot apply rules.
    std::vector<std::string> allowOut, denyOut;
    // An ended session whose changes the new one goes on with: a paused sandbox that outlived a
    // restart of the server, resumed.
    std::string resumeFrom;
    // A snapshot whose files the new sandbox starts with (E2B's create from a snapshot, and a
    // fork): its name in the chain of session `snapshotSession`.
    std::string snapshotSession, snapshotName;
};

struct LaunchedSession {
    std::string sessionId;
    unsigned cpuCount = 0;
    unsigned memoryMb = 0;
};

// Starts and stops the sessions behind sandboxes: `sandbench-cli serve`'s (app/cli), which
// maps a template to a policy; a fake in tests.
class Launcher {
  public:
    virtual ~Launcher() = default;
    // A running session without a command; NotFound for an unknown template, InvalidInput for
    // metadata it cannot honour.
    virtual Result<LaunchedSession> start(const SandboxSpec& spec) = 0;
    // Stops it (its changes stay for review); a session already gone is no error.
    virtual void stop(const std::string& sessionId) = 0;
    // Takes the snapshot `name` (empty: the next snapshot-N) of a running session's changes,
    // its sandbox frozen meanwhile; the name it took. Unsupported where nothing can freeze it.
    virtual Result<std::string> snapshot(const std::string& sessionId, const std::string& name);
    // Removes the snapshot `name` of the session's chain; NotFound when it is not there.
    virtual Status deleteSnapshot(const std::string& sessionId, const std::string& name);
    // The port of this machine's loopback that forwards to `port` in the session's sandbox (its
    // port preview, made if it has none).
    virtual Result<unsigned> preview(const std::string& sessionId, unsigned port);
    // Whether start(spec) gives the session that start() of spec's template alone gives (a
    // spare's): false when a part of `spec` the launcher reads (metadata naming a workspace)
    // makes a difference. The Api checks the network, resume and snapshot fields itself.
    virtual bool spareFits(const SandboxSpec& spec);
};

struct ApiOptions {
    std::string apiKey; // every control-plane request must carry it (X-API-Key)
    // What the SDK is told envd is: 0.5.7 takes both multipart and raw uploads, 0.6.2 keeps
    // files' metadata, 0.6.3 and 0.6.4 take watchDir's includeEntry and allowNetworkMounts
    // (docs/e2b.md): all the SDK gates on a version is served.
    std::string envdVersion = "0.6.4";
    // Where a sandbox sees its workspace, which is its home and default working folder.
    std::string home = "/home/user";
    unsigned defaultTimeoutSeconds = 300;
    unsigned maxTimeoutSeconds = 24 * 3600;
    std::size_t maxJsonBody = std::size_t{1} << 20;
    std::size_t maxUpload = std::size_t{1} << 30;
    std::function<void(const std::string&)> log;
    // Where paused sandboxes are kept when the server stops (a JSON file each), to be listed as
    // paused and resumed by the next server: their files kept, their processes not. Empty:
    // they end with the server like the others.
    std::string pausedDir;
    // Where the snapshots taken through the API are listed (a JSON file each), so that the next
    // server knows them too; empty: only this server's.
    std::string snapshotsDir;
    // Spare sandboxes (docs/e2b.md, "Spare sandboxes"): from a template's first create on, one
    // session of it is kept started ahead (a code interpreter's with its kernel) and handed to
    // the next create that a fresh start would give the same sandbox; used once, then the next
    // one starts. Not listed until it is claimed; killed by stopAll().
    bool spares = false;
    // A spare older than this is replaced: a claimed one's session (its recording, the policy's
    // wall-clock limit) started at most this long before its create.
    std::chrono::seconds spareMaxAge{600};
    // Where links to sessions come from (tests replace it).
    std::function<Result<std::unique_ptr<SessionLink>>(const std::string& session)> connect;
    // A session's resource use now, for metrics (tests replace it): readSessionUsage.
    std::function<Result<SandboxUsage>(const std::string& session)> usage;
};

class Api {
  public:
    Api(Launcher& launcher, ApiOptions options);
    ~Api(); // stops the expiry thread; the sandboxes stay until stopAll() or their timeout
    Api(const Api&) = delete;
    Api& operator=(const Api&) = delete;

    // One request; safe from any number of threads.
    void handle(http::Exchange& exchange);
    // Kills every sandbox (serve's end).
    void stopAll();

    struct Sandbox;

  private:
    void route(http::Exchange& ex);
    // Control plane.
    void createSandbox(http::Exchange& ex);
    void listSandboxes(http::Exchange& ex);
    void getSandbox(http::Exchange& ex, const std::string& id);
    void killSandbox(http::Exchange& ex, const std::string& id);
    void setTimeout(http::Exchange& ex, const std::string& id);
    void connectSandbox(http::Exchange& ex, const std::string& id);
    void pauseSandbox(http::Exchange& ex, const std::string& id);
    // Metrics (SandboxMetrics.h): a sandbox's over a time range, the latest of several.
    void sandboxMetrics(http::Exchange& ex, const std::string& id);
    void latestMetrics(http::Exchange& ex);
    Result<nlohmann::json> takeSample(Sandbox& sandbox);
    // Snapshots and forks (SnapshotApi.cpp), on the sessions' own snapshots.
    void createSnapshot(http::Exchange& ex, const std::string& id);
    void listSnapshots(http::Exchange& ex);
    void deleteSnapshot(http::Exchange& ex, const std::string& snapshotId);
    void forkSandbox(http::Exchange& ex, const std::string& id);
    // A request for getHost(port)'s name: to the port's preview (PortHost.cpp).
    void portPreview(http::Exchange& ex, const PortHost& target);
    // False (nothing answered) only when the preview cannot be reached and `last` is false.
    bool relayToPort(http::Exchange& ex, const Sandbox& sandbox, unsigned port, unsigned hostPort,
                     const std::string& body, bool last);
    // A create's template that names a snapshot: the snapshot's template, and its files.
    void fromSnapshot(SandboxSpec& spec);
    void loadSnapshots();
    std::mutex m_snapshotsMutex;
    std::map<std::string, nlohmann::json> m_snapshots; // by snapshot id
    // A sandbox as asked for, running and listed, or why not (an HTTP status and a message).
    struct Started {
        std::shared_ptr<Sandbox> sandbox;
        int status = 201;
        std::string message;
    };
    Started startSandbox(const SandboxSpec& spec, unsigned timeoutSeconds, bool pauseOnTimeout);
    // A session of `spec` started and linked (with its kernels for a code interpreter), not
    // yet a sandbox anybody asked for: admit() makes it one, with the create's own fields.
    Started launch(const SandboxSpec& spec);
    Started admit(std::shared_ptr<Sandbox> sandbox, const SandboxSpec& spec,
                  unsigned timeoutSeconds, bool pauseOnTimeout, bool spare);
    void discard(Sandbox& sandbox); // stops one that was never listed
    // Spares (SpareSandboxes.cpp): whether a create may have one, taking one (waiting for one
    // that is starting), asking for the next, the thread that starts them, their end.
    bool spareServes(const SandboxSpec& spec);
    std::shared_ptr<Sandbox> claimSpare(const std::string& templateId);
    void wantSpare(const std::string& templateId);
    void keepSpares();
    void stopSpares();
    struct SpareSlot {
        std::shared_ptr<Sandbox> ready;
        bool starting = false;
        bool failed = false; // its last start failed: none again until a create succeeds
        std::chrono::steady_clock::time_point since;
    };
    std::map<std::string, SpareSlot> m_spares; // by template, under m_mutex
    bool m_sparesStopping = false;
    std::condition_variable m_spareCv;
    std::thread m_spareThread;
    // What this API does not serve: 501 naming it (or 404 for a sandbox that is not there).
    void notServed(http::Exchange& ex, const std::vector<std::string>& parts);
    // In-sandbox API, for the sandbox the request names.
    void envd(http::Exchange& ex);
    void processRpc(http::Exchange& ex, Sandbox& sandbox, std::string_view method);
    void filesystemRpc(http::Exchange& ex, Sandbox& sandbox, std::string_view method);
    void readFile(http::Exchange& ex, Sandbox& sandbox);
    void writeFiles(http::Exchange& ex, Sandbox& sandbox);
    // The code interpreter (port 49999: /execute, /contexts), for the sandbox the request names.
    void codeInterpreter(http::Exchange& ex, Sandbox& sandbox);
    void execute(http::Exchange& ex, Sandbox& sandbox);

    std::shared_ptr<Sandbox> find(const std::string& id);
    // The running sandbox whose access token signed `query` for `operation` (a signed URL
    // names no sandbox), or null.
    std::shared_ptr<Sandbox> signedSandbox(const SignedFileQuery& query,
                                           std::string_view operation);
    void expire();
    // `keep`: a paused one is kept for the next server (stopAll) rather than forgotten.
    void kill(const std::shared_ptr<Sandbox>& sandbox, bool keep = false);
    // Freezes or thaws it, and says so in its record; one at a time per API. Resuming a
    // dormant one (kept from a server before) starts its new session.
    Status pause(Sandbox& sandbox, bool paused);
    // The paused sandboxes of a server before (ApiOptions::pausedDir), dormant: no session.
    void loadPaused();
    void keepPaused(const Sandbox& sandbox);
    void forgetPaused(const std::string& id);
    Status revive(Sandbox& sandbox);
    std::mutex m_pausing;

    Launcher& m_launcher;
    ApiOptions m_options;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::map<std::string, std::shared_ptr<Sandbox>> m_sandboxes; // running ones
    bool m_stopping = false;
    std::thread m_expiry;
};

// Whether programs that ask the system's resolver (Node, Python) find getHost(port)'s names,
// PORT-ID.localhost, here: `nsswitch` (the text of /etc/nsswitch.conf) has a hosts source that
// makes every *.localhost this machine (nss-myhostname, systemd-resolved). No name is looked up.
bool localhostNamesResolve(std::string_view nsswitch);

} // namespace sb::e2b
