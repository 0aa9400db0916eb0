// serve: the E2B-compatible API (core/e2b, docs/e2b.md) on an HTTP server, loopback only unless
// told otherwise. Sandboxes are sessions without a command, started by a launcher process that
// is forked before any thread exists (so it may fork supervisors) and holds their lifelines:
// when serve ends, however it ends, its sandboxes stop and their changes stay for review.
#include "Commands.h"
#include "PolicyOptions.h"
#include "base/AtomicFile.h"
#include "base/Bytes.h"
#include "base/FolderTree.h"
#include "base/Paths.h"
#include "base/SessionChain.h"
#include "base/UniqueFd.h"
#include "e2b/CodeInterpreter.h"
#include "e2b/E2bApi.h"
#include "policy/DestinationLists.h"
#include "policy/Policy.h"
#include "workspace/SessionSnapshots.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace sbcli {
namespace {

// A sandbox sees its workspace here, as an E2B sandbox sees its user's home.
constexpr const char* kSandboxHome = "/home/user";
// Metadata naming a workspace of the caller's, inside the workspace root.
constexpr const char* kWorkspaceKey = "sandbench_workspace";

struct ServeArgs {
    PolicyChoice policy;
    std::string listen = "127.0.0.1:0";
    std::string workspaceRoot;
    bool allowRemote = false;
    bool printKey = false;
    bool noSpare = false;
    unsigned threads = 128;
};

fs::path keyFile()
{
    return sb::configDirectory() / "e2b-api-key";
}

// The API key, made at the first start: 0600 in the config folder.
sb::Result<std::string> apiKey()
{
    const fs::path file = keyFile();
    std::ifstream in(file);
    std::string key;
    if (in && std::getline(in, key) && !key.empty()) return key;
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
        return sb::Error{sb::ErrorCode::System, ec.value(),
                         "create " + file.parent_path().string()};
    unsigned char raw[24];
    for (std::size_t got = 0; got < sizeof raw;) {
        ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
        if (n > 0) got += static_cast<std::size_t>(n);
    }
    key = "sb_";
    for (unsigned char c : raw) {
        key += "0123456789abcdef"[c >> 4];
        key += "0123456789abcdef"[c & 15];
    }
    sb::AtomicWriteOptions secret;
    secret.newFileMode = 0600;
    if (auto e = sb::writeFileAtomically(file, key + "\n", secret)) return *e;
    return key;
}

// "HOST:PORT", "[v6]:PORT" or ":PORT".
sb::Status parseListen(const std::string& text, std::string& host, std::uint16_t& port)
{
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos)
        return sb::inputError("--listen '" + text + "' needs HOST:PORT (e.g. 127.0.0.1:3000)");
    host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "127.0.0.1";
    const std::string number = text.substr(colon + 1);
    char* end = nullptr;
    const unsigned long value = std::strtoul(number.c_str(), &end, 10);
    if (number.empty() || *end != '\0' || value > 65535)
        return sb::inputError("--listen '" + text + "': the port must be a number from 0 to 65535");
    port = static_cast<std::uint16_t>(value);
    return {};
}

bool isLoopback(const std::string& host)
{
    return host == "localhost" || host == "::1" || host.starts_with("127.");
}

// The launcher: a process of its own, single-threaded, that starts sessions on request. One
// request, one reply, each a JSON datagram on a SOCK_SEQPACKET pair.
class LauncherProcess : public sb::e2b::Launcher {
  public:
    static sb::Result<std::unique_ptr<LauncherProcess>> fork(const ServeArgs& args,
                                                             const fs::path& workspaceRoot)
    {
        auto pair = sb::makeSocketPair(SOCK_SEQPACKET | SOCK_CLOEXEC);
        if (!pair) return pair.error();
        std::fflush(nullptr);
        pid_t pid = ::fork();
        if (pid < 0) return sb::sysError("fork the launcher");
        if (pid == 0) {
            pair->one.reset();
            serveRequests(pair->other.get(), args, workspaceRoot);
            ::_exit(0);
        }
        return std::unique_ptr<LauncherProcess>(new LauncherProcess(pair->one.release(), pid));
    }
    ~LauncherProcess() override
    {
        ::close(m_fd); // the launcher ends, and with it every lifeline
        ::waitpid(m_pid, nullptr, 0);
    }

    sb::Result<sb::e2b::LaunchedSession> start(const sb::e2b::SandboxSpec& spec) override
    {
        json request = {
            {"template", spec.templateId},       {"metadata", spec.metadata},
            {"allow_out", spec.allowOut},        {"deny_out", spec.denyOut},
            {"resume_from", spec.resumeFrom},    {"snapshot_session", spec.snapshotSession},
            {"snapshot_name", spec.snapshotName}};
        if (spec.internet) request["internet"] = *spec.internet;
        json reply;
        {
            std::lock_guard lock(m_mutex); // one request at a time on the pair
            const std::string text = request.dump();
            if (::send(m_fd, text.data(), text.size(), MSG_NOSIGNAL) < 0)
                return sb::sysError("ask the launcher");
            std::string buf(65536, '\0');
            ssize_t n = ::recv(m_fd, buf.data(), buf.size(), 0);
            if (n <= 0) return sb::sysError("hear from the launcher");
            reply = json::parse(buf.substr(0, static_cast<std::size_t>(n)), nullptr, false);
        }
        if (!reply.is_object()) return sb::Error{sb::ErrorCode::Internal, 0, "bad launcher reply"};
        if (!reply.value("ok", false))
            return sb::Error{sb::proto::parseErrorCode(reply.value("code", std::string())), 0,
                             reply.value("message", std::string("the sandbox did not start"))};
        return sb::e2b::LaunchedSession{reply.value("session", std::string()),
                                        reply.value("cpus", 0u), reply.value("memory_mb", 0u)};
    }

    void stop(const std::string& sessionId) override
    {
        auto client = sb::ControlClient::connect(sessionId, "sandbench-cli serve",
                                                 sb::proto::Role::Viewer, 2000);
        if (!client || (*client)->stop(false, 5000)) return;
        // E2B's kill returns once the sandbox is gone, so that a list right after it does not
        // show it: the supervisor closes the connection as it exits (after the stop's grace
        // period at most, kStopGraceMs, and its recording's last commit).
        using Clock = std::chrono::steady_clock;
        const auto until = Clock::now() + std::chrono::seconds(15);
        while (!(*client)->closed()) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
            if (left.count() <= 0 || !(*client)->receive(static_cast<int>(left.count()))) break;
        }
    }

    // A running session's snapshot is its supervisor's to take, frozen (as `snapshot` does);
    // a name is the whole chain's.
    sb::Result<std::string> snapshot(const std::string& sessionId, const std::string& name) override
    {
        if (!name.empty())
            if (auto chain = sb::loadSessionChain(sessionId))
                if (auto taken = sb::findChainSnapshot(*chain, name))
                    return sb::Error{sb::ErrorCode::Conflict, 0,
                                     "the sandbox has a snapshot named '" + name + "' already"};
        auto client = sb::ControlClient::connect(sessionId, "sandbench-cli serve (E2B API)",
                                                 sb::proto::Role::Viewer, 2000);
        if (!client) return client.error();
        auto taken = (*client)->snapshot(name);
        if (!taken) return taken.error();
        return taken->value("name", name);
    }

    sb::Status deleteSnapshot(const std::string& sessionId, const std::string& name) override
    {
        auto chain = sb::loadSessionChain(sessionId);
        if (!chain) return chain.error();
        auto found = sb::findChainSnapshot(*chain, name);
        if (!found) return found.error();
        return sb::removeFolderTree(found->info.upper.parent_path());
    }

    // getHost(port)'s names go to the port's preview, as `expose` makes it (the same one again
    // when it has one).
    sb::Result<unsigned> preview(const std::string& sessionId, unsigned port) override
    {
        auto client = sb::ControlClient::connect(sessionId, "sandbench-cli serve (E2B API)",
                                                 sb::proto::Role::Viewer, 2000);
        if (!client) return client.error();
        auto reply = (*client)->ports({{"op", "expose"}, {"port", port}, {"host_port", 0}});
        if (!reply) return reply.error();
        const unsigned hostPort = reply->value("forward", json::object()).value("host_port", 0u);
        if (hostPort == 0)
            return sb::Error{sb::ErrorCode::Internal, 0, "the session named no port for it"};
        return hostPort;
    }

    // A workspace named in the metadata is the one thing of a create a spare cannot have.
    bool spareFits(const sb::e2b::SandboxSpec& spec) override
    {
        return !spec.metadata.contains(kWorkspaceKey);
    }

  private:
    LauncherProcess(int fd, pid_t pid) : m_fd(fd), m_pid(pid) {}

    static json launch(const json& request, const ServeArgs& args, const fs::path& root)
    {
        auto failure = [](const sb::Error& e) {
            return json{{"ok", false},
                        {"code", sb::proto::errorCodeName(e.code)},
                        {"message", e.describe()}};
        };
        PolicyChoice choice = args.policy;
        const std::string name = request.value("template", std::string("base"));
        const fs::path templateFile = sb::configDirectory() / "templates" / (name + ".json");
        const auto presets = sb::presetNames();
        if (name == "base" || name.empty()) {
            // serve's own policy
        } else if (std::find(presets.begin(), presets.end(), name) != presets.end()) {
            choice.policyFile.clear();
            choice.preset = name;
        } else if (name.find('/') == std::string::npos && fs::is_regular_file(templateFile)) {
            choice.policyFile = templateFile.string();
            choice.preset.clear();
        } else if (sb::e2b::isCodeInterpreterTemplate(name)) {
            // serve's own policy, with the code interpreter's kernels (a policy file of the
            // template's name, above, takes its place)
        } else {
            return failure({sb::ErrorCode::NotFound, 0,
                            "template '" + name + "' not found: use base (serve's policy), a " +
                                "preset, or a policy file " + templateFile.string()});
        }
        auto allowOut = request.value("allow_out", std::vector<std::string>());
        auto denyOut = request.value("deny_out", std::vector<std::string>());
        // allow_internet_access: false is E2B's denyOut 0.0.0.0/0: no network, or, with
        // destinations allowed, the rules allowing them and denying the rest.
        if (request.contains("internet") && request["internet"] == false) {
            if (allowOut.empty())
                choice.network = "none";
            else
                denyOut.push_back("0.0.0.0/0");
        }

        const std::string id = sb::newSessionId();
        auto options = detachedSessionOptions(choice, "", id);
        if (!options) return failure(options.error());
        if (auto e =
                sb::applyDestinationLists(options->policy.network, allowOut, denyOut, "network"))
            return failure(*e);
        fs::path workspace = root / id;
        const json metadata = request.value("metadata", json::object());
        std::string resumeFrom = request.value("resume_from", std::string());
        const std::string snapshotSession = request.value("snapshot_session", std::string());
        if (!snapshotSession.empty()) {
            // A sandbox from a snapshot: a fork of it (an ended session with a copy of its
            // files) that this one goes on with.
            auto fork = sb::forkStoppedSession(
                snapshotSession, request.value("snapshot_name", std::string()), sb::newSessionId());
            if (!fork) return failure(fork.error());
            resumeFrom = fork->session.id;
        }
        if (!resumeFrom.empty()) {
            // A paused sandbox kept by a server before: its changes go on in this session,
            // whose project is the ended one's.
            options->resumeFrom = resumeFrom;
            workspace.clear();
        } else if (metadata.contains(kWorkspaceKey)) {
            std::error_code ec;
            const fs::path asked =
                fs::weakly_canonical(metadata[kWorkspaceKey].get<std::string>(), ec);
            const fs::path rel = asked.lexically_relative(fs::weakly_canonical(root, ec));
            if (ec || rel.empty() || rel.begin()->string() == ".." || !fs::is_directory(asked))
                return failure(sb::inputError(std::string(kWorkspaceKey) +
                                              " must name an existing folder inside " +
                                              root.string() + " (serve --workspace-root)"));
            workspace = asked;
        } else {
            std::error_code ec;
            fs::create_directories(workspace, ec);
            if (ec)
                return failure({sb::ErrorCode::System, ec.value(), "create " + workspace.string()});
        }
        options->workspace = workspace.string();
        options->workspaceInside = kSandboxHome;
        options->userInside = "user"; // E2B's templates' user (docs/e2b.md, "Users")
        auto started = startDetachedSession(std::move(*options), true);
        if (!started) return failure(started.error());
        auto policy = choice.resolve();
        const unsigned memory = policy ? static_cast<unsigned>(policy->limits.memoryMb) : 0;
        return {{"ok", true},
                {"session", started->id},
                {"cpus", std::thread::hardware_concurrency()},
                {"memory_mb", memory}};
    }

    [[noreturn]] static void serveRequests(int fd, const ServeArgs& args, const fs::path& root)
    {
        ::signal(SIGINT, SIG_IGN); // serve's own handling ends it, by closing the pair
        ::signal(SIGPIPE, SIG_IGN);
        for (;;) {
            while (::waitpid(-1, nullptr, WNOHANG) > 0) {
            }
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 1000) <= 0) continue;
            std::string buf(65536, '\0');
            ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
            if (n <= 0) ::_exit(0); // serve is gone
            json request = json::parse(buf.substr(0, static_cast<std::size_t>(n)), nullptr, false);
            json reply =
                request.is_object()
                    ? launch(request, args, root)
                    : json{{"ok", false}, {"code", "invalid_input"}, {"message", "bad request"}};
            const std::string text = sb::dumpJson(reply);
            (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
        }
    }

    int m_fd;
    pid_t m_pid;
    std::mutex m_mutex;
};

int serveCommand(const ServeArgs& args)
{
    auto key = apiKey();
    if (!key) return fail(key.error());
    if (args.printKey) {
        std::printf("%s\n", key->c_str());
        return 0;
    }
    std::string host;
    std::uint16_t port = 0;
    if (auto e = parseListen(args.listen, host, port)) return fail(*e, kUsageError);
    if (!isLoopback(host)) {
        if (!args.allowRemote)
            return fail("--listen " + args.listen +
                            " is not a loopback address: other machines could run commands in "
                            "your sandboxes. Add --allow-remote if that is what you want",
                        kUsageError);
        std::fprintf(stderr,
                     "sandbench: warning: listening on %s, reachable from other machines; the "
                     "API key is all that guards it, and it travels unencrypted\n",
                     args.listen.c_str());
    }
    const fs::path root = args.workspaceRoot.empty() ? sb::stateDirectory() / "e2b"
                                                     : fs::absolute(args.workspaceRoot);
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) return fail("cannot create the workspace root " + root.string() + ": " + ec.message());
    if (auto policy = args.policy.resolve(); !policy) return fail(policy.error(), kUsageError);

    // Before any thread exists: the launcher forks supervisors.
    auto launcher = LauncherProcess::fork(args, root);
    if (!launcher) return fail(launcher.error());

    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    for (int s : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&stopSignals, s);
    ::pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr); // the server's threads inherit it
    ::signal(SIGPIPE, SIG_IGN);

    sb::e2b::ApiOptions options;
    options.apiKey = *key;
    options.home = kSandboxHome;
    options.spares = !args.noSpare;
    // Beside the workspace root, not in it: metadata may name any folder inside the root.
    const fs::path rootName = root.filename().empty() ? root.parent_path() : root;
    options.pausedDir =
        (rootName.parent_path() / (rootName.filename().string() + ".paused")).string();
    options.snapshotsDir =
        (rootName.parent_path() / (rootName.filename().string() + ".snapshots")).string();
    options.log = [](const std::string& line) {
        std::fprintf(stderr, "sandbench: %s\n", line.c_str());
    };
    sb::e2b::Api api(**launcher, options);
    sb::http::ServerOptions serverOptions;
    serverOptions.host = host;
    serverOptions.port = port;
    serverOptions.threads = args.threads;
    serverOptions.log = options.log;
    auto server =
        sb::http::Server::start(serverOptions, [&api](sb::http::Exchange& ex) { api.handle(ex); });
    if (!server) return fail(server.error());
    const std::string url = "http://" +
                            (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                            std::to_string((*server)->port());
    std::printf("%s\n", url.c_str());
    std::fflush(stdout);
    std::fprintf(stderr,
                 "sandbench: E2B-compatible API on %s; point the E2B SDK at it with\n"
                 "  export E2B_API_URL=%s E2B_SANDBOX_URL=%s\n"
                 "  export E2B_API_KEY=$(sandbench-cli serve --print-key)\n",
                 url.c_str(), url.c_str(), url.c_str());

    int signal = 0;
    sigwait(&stopSignals, &signal);
    std::fprintf(stderr, "sandbench: stopping the sandboxes (%s)\n", strsignal(signal));
    // Their streams end with them; then the server waits for no request that waits on one.
    api.stopAll();
    server->reset();
    return 0;
}

} // namespace

void addServeCommand(CLI::App& app)
{
    auto args = std::make_shared<ServeArgs>();
    CLI::App* serve = app.add_subcommand(
        "serve", "Serve an E2B-compatible API on loopback: E2B SDK code creates sandboxes that "
                 "are supervised Sandbench sessions (docs/e2b.md)");
    serve->add_option("--listen", args->listen,
                      "HOST:PORT to listen on (default 127.0.0.1:0, a free port; the URL is "
                      "printed on stdout)");
    serve->add_flag("--allow-remote", args->allowRemote,
                    "Allow --listen on an address other machines can reach");
    args->policy.addTo(*serve);
    serve->add_option("--workspace-root", args->workspaceRoot,
                      "Folder of the sandboxes' workspaces (default: the state folder's e2b/)");
    serve->add_flag("--print-key", args->printKey,
                    "Print the API key (made at the first start) and exit");
    serve->add_flag("--no-spare", args->noSpare,
                    "Keep no sandbox started ahead: by default each template asked for has one "
                    "spare session, idle until the next create takes it");
    serve->add_option("--threads", args->threads, "Requests served at once (default 128)")
        ->check(CLI::Range(4, 4096));
    serve->callback([args] { exitWith(serveCommand(*args)); });
}

} // namespace sbcli
