// ls / attach / pending / approve / policy / stop / kill: talking to running sessions through
// their control sockets, like any other client (docs/protocol.md).
#include "Commands.h"
#include "Format.h"
#include "base/Bytes.h"
#include "base/Paths.h"
#include "base/Session.h"
#include "base/Terminal.h"
#include "control/ControlClient.h"
#include "control/HistoryReplay.h"
#include "learning/AnswerGeneralisation.h"
#include "policy/Policy.h"

#include <algorithm>
#include <csignal>
#include <ctime>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/signalfd.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using sb::proto::Message;
using sb::proto::MsgType;
using sb::proto::Role;

namespace sbcli {
namespace {

constexpr char kDetachKey = 0x1d; // Ctrl-]

struct ClientArgs {
    std::string session;
    bool json = false;
    bool interactive = false;
    std::uint64_t request = 0;
    std::string decision;
    std::string scope;
    std::string duration = "once";
    bool programOnly = false;
    std::string policyFile;
};

struct LiveSession {
    sb::proto::SessionSummary summary;
    std::vector<sb::ApprovalRequest> pending;
    // False for a supervisor that holds its session's lock but did not answer on its socket in
    // time: stopped (Ctrl-Z, kill -STOP) or stuck. Its summary then comes from session.json.
    bool responding = true;
};

constexpr int kAnswerWithinMs = 2000;

// The session behind a socket that connects but does not answer, if its supervisor lives.
std::optional<LiveSession> notResponding(const fs::path& socket)
{
    auto session = sb::loadSession(socket.stem().string());
    if (!session || !sb::sessionIsLive(*session)) return std::nullopt;
    LiveSession out;
    out.summary.id = session->id;
    out.summary.command = session->command;
    out.summary.workspace = session->project.string();
    out.summary.startedUnixMs = session->startedNs / 1000000;
    out.responding = false;
    return out;
}

// Every session with a live supervisor; sockets nobody listens on are removed.
std::vector<LiveSession> liveSessions()
{
    std::vector<LiveSession> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(sb::runtimeDirectory(), ec)) {
        const fs::path& path = entry.path();
        std::string name = path.filename().string();
        if (path.extension() != ".sock" || name.front() == '.') continue;
        auto client =
            sb::ControlClient::connectPath(path, "sandbench-cli ls", Role::Viewer, kAnswerWithinMs);
        if (!client) {
            if (client.error().sysErrno == ECONNREFUSED)
                ::unlink(path.c_str());
            else if (auto stuck = notResponding(path))
                out.push_back(std::move(*stuck));
            else
                fail(path.string() + ": " + client.error().describe());
            continue;
        }
        out.push_back({(*client)->session(), (*client)->pendingAtWelcome()});
    }
    std::sort(out.begin(), out.end(), [](const LiveSession& a, const LiveSession& b) {
        return a.summary.startedUnixMs < b.summary.startedUnixMs;
    });
    return out;
}

void warnNotResponding(const LiveSession& s)
{
    std::fprintf(stderr,
                 "sandbench: session %s is not responding: its supervisor runs but did not answer "
                 "within %d s (stopped with Ctrl-Z or kill -STOP? 'kill -CONT' resumes it)\n",
                 s.summary.id.c_str(), kAnswerWithinMs / 1000);
}

int lsCommand(const ClientArgs& args)
{
    auto sessions = liveSessions();
    if (args.json) {
        json out = json::array();
        for (const auto& s : sessions)
            out.push_back(
                {{"id", s.summary.id},
                 {"command", s.summary.command},
                 {"workspace", s.summary.workspace},
                 {"started_unix_ms", s.summary.startedUnixMs},
                 {"responding", s.responding},
                 {"pending_approvals", s.responding ? json(s.pending.size()) : json(nullptr)}});
        std::printf("%s\n", sb::dumpJson(out, 2).c_str());
        return 0;
    }
    if (sessions.empty()) {
        std::fprintf(stderr, "sandbench: no running sessions\n");
        return 0;
    }
    std::printf("%-24s %-19s %-7s %-30s %s\n", "SESSION", "STARTED", "PENDING", "COMMAND",
                "WORKSPACE");
    for (const auto& s : sessions)
        std::printf("%-24s %-19s %-7s %-30s %s%s\n", s.summary.id.c_str(),
                    localTime(s.summary.startedUnixMs).c_str(),
                    s.responding ? std::to_string(s.pending.size()).c_str() : "?",
                    commandSummary(s.summary.command, 60).c_str(), s.summary.workspace.c_str(),
                    s.responding ? "" : "  (not responding)");
    for (const auto& s : sessions)
        if (!s.responding) warnNotResponding(s);
    return 0;
}

std::string requestLine(const std::string& session, const sb::ApprovalRequest& r)
{
    long long left = (r.deadlineUnixMs - static_cast<long long>(std::time(nullptr)) * 1000) / 1000;
    std::string line = session + "  #" + std::to_string(r.id) + "  " +
                       sb::proto::approvalKindName(r.kind) + "  " + sb::proto::describeRequest(r);
    if (r.kind == sb::ApprovalKind::Command && !r.cwd.empty()) line += "  (in " + r.cwd + ")";
    if (!r.rule.empty()) line += "  rule: " + r.rule;
    if (r.deadlineUnixMs > 0) line += "  " + std::to_string(std::max(0LL, left)) + " s left";
    return line;
}

int pendingCommand(const ClientArgs& args)
{
    std::vector<LiveSession> sessions;
    if (args.session.empty()) {
        sessions = liveSessions();
    } else {
        auto client = connectSession(args.session, Role::Viewer, "sandbench-cli pending");
        if (!client) return fail(client.error());
        sessions.push_back({(*client)->session(), (*client)->pendingAtWelcome()});
    }
    json out = json::array();
    for (const auto& s : sessions)
        if (!s.responding) warnNotResponding(s);
    for (const auto& s : sessions)
        for (const auto& r : s.pending) {
            json j = sb::proto::toJson(r);
            j["session"] = s.summary.id;
            out.push_back(j);
            if (!args.json) std::printf("%s\n", requestLine(s.summary.id, r).c_str());
        }
    if (args.json)
        std::printf("%s\n", sb::dumpJson(out, 2).c_str());
    else if (out.empty())
        std::fprintf(stderr, "sandbench: no pending approvals\n");
    return 0;
}

// An answer that failed because the connection ended (another client's answer let the session
// finish, or it was stopped) is explained by what the supervisor sent before it closed.
std::string whyNotAnswered(sb::ControlClient& client, const ClientArgs& args, const sb::Error& e)
{
    (void)client.readAvailable();
    std::string ended;
    Message m;
    for (auto got = client.next(m); got && *got; got = client.next(m)) {
        if (m.type == MsgType::ApprovalOutcome) {
            auto o = sb::proto::approvalOutcomeFromJson(m.body);
            if (o && o->id == args.request) {
                std::string verdict = o->allow ? "allowed" : "denied";
                std::string how = o->timedOut    ? "timed out and was " + verdict
                                  : o->cancelled ? std::string("cancelled")
                                                 : verdict + (o->answer.answeredBy.empty()
                                                                  ? ""
                                                                  : " by " + o->answer.answeredBy);
                return "approval #" + std::to_string(args.request) + " already answered (" + how +
                       ")";
            }
        }
        if (m.type == MsgType::Exit)
            ended = "session " + args.session + " ended (status " +
                    std::to_string(m.body.value("status", -1)) + ") before the answer arrived";
    }
    if (ended.empty() && (e.sysErrno == EPIPE || e.sysErrno == ECONNRESET))
        // It closed before a word reached us: a supervisor only does that when it ends.
        ended = "session " + args.session + " ended before the answer arrived";
    return ended.empty() ? e.describe() : ended;
}

// After an "always" answer: the rule saved and what it also allows, or the generalised rule
// the answer could have saved (and how), or why the exact rule is the suggested one.
void printGeneralisation(const sb::GeneralisedAnswer& g, bool chosen)
{
    if (chosen || !g.generalises()) {
        std::printf("saved rule: %s\n", g.rule.c_str());
        if (g.risk != sb::GeneralisedAnswer::Risk::None)
            std::printf("  the exact rule, not a broader one: %s\n", sb::describeRisk(g).c_str());
    } else {
        std::printf("suggested instead: %s (answer with --scope suggested to save it)\n",
                    g.rule.c_str());
    }
    for (const sb::Allowance& a : g.alsoAllows)
        std::printf("  it %s %s\n", chosen ? "also allows" : "would also allow",
                    sb::describe(a).c_str());
}

int approveCommand(const ClientArgs& args)
{
    auto client = connectSession(args.session, Role::Viewer, "sandbench-cli");
    if (!client) {
        int err = client.error().sysErrno;
        // Reset during the greeting: the supervisor was closing, as it does when the session ends.
        if (err == ECONNRESET || err == EPIPE)
            return fail("session " + args.session + " ended before the answer arrived");
        return fail(client.error());
    }
    const auto& pending = (*client)->pendingAtWelcome();
    auto it = std::find_if(pending.begin(), pending.end(),
                           [&](const auto& r) { return r.id == args.request; });
    if (it == pending.end())
        return fail("approval #" + std::to_string(args.request) + " is not pending in session " +
                    args.session + " (already answered, timed out, or never asked)");
    sb::ApprovalAnswer answer;
    answer.allow = args.decision == "allow";
    answer.answeredBy = "sandbench-cli";
    answer.scope = it->kind == sb::ApprovalKind::Command ? sb::ApprovalScope::ExactCommand
                                                         : sb::ApprovalScope::HostPort;
    // What an "always" answer could save instead: offered below, chosen by --scope suggested.
    auto generalised = sb::generaliseAnswer(*it);
    if (args.scope == "suggested") {
        if (!generalised) return fail(generalised.error());
        answer = sb::withGeneralisation(answer, *generalised);
    } else if (!args.scope.empty()) {
        auto scope = sb::proto::parseApprovalScope(args.scope);
        if (!scope || !sb::proto::scopeFitsKind(*scope, it->kind))
            return fail("scope '" + args.scope + "' does not fit a " +
                            sb::proto::approvalKindName(it->kind) + " request (" +
                            (it->kind == sb::ApprovalKind::Command ? "exact, subcommand, program"
                                                                   : "hostport, host, domain") +
                            ")",
                        kUsageError);
        answer.scope = *scope;
    }
    answer.duration = *sb::proto::parseApprovalDuration(args.duration);
    if (args.programOnly) {
        if (it->kind != sb::ApprovalKind::Network)
            return fail("--program-only applies to network requests (a command's scope names "
                        "its program already)",
                        kUsageError);
        if (it->process.empty())
            return fail("the program that made request #" + std::to_string(args.request) +
                            " is unknown, so the answer cannot be limited to it",
                        kUsageError);
        answer.programOnly = true;
    }
    if (auto e = (*client)->answer(args.request, answer))
        return fail(whyNotAnswered(**client, args, *e));
    std::printf("approval #%llu %s: %s (%s%s, %s)\n", static_cast<unsigned long long>(args.request),
                answer.allow ? "allowed" : "denied", sb::proto::describeRequest(*it).c_str(),
                sb::proto::approvalScopeName(answer.scope),
                answer.programOnly ? ", this program only" : "",
                sb::proto::approvalDurationName(answer.duration));
    if (generalised && answer.allow && answer.duration == sb::ApprovalDuration::Always)
        printGeneralisation(*generalised, args.scope == "suggested");
    return 0;
}

std::string sectionList(const std::vector<std::string>& sections)
{
    std::string out;
    for (const std::string& s : sections)
        out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "nothing" : out;
}

int policyCommand(const ClientArgs& args)
{
    // Checked here first, so that a mistake is named with the file's own lines and columns.
    const fs::path file = fs::absolute(args.policyFile);
    if (auto policy = sb::loadPolicyFile(file); !policy) return fail(policy.error(), kUsageError);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    json document = json::parse(text.str(), nullptr, false, /*ignore_comments=*/true);
    if (!document.is_object())
        return fail("cannot read " + file.string() + " again (it changed?)", kUsageError);
    auto client = connectSession(args.session, Role::Viewer, "sandbench-cli policy");
    if (!client) return fail(client.error());
    auto result = (*client)->updatePolicy(document, file.string());
    if (!result) return fail(result.error());
    std::printf("session %s now follows %s\napplied: %s\nfor new sessions only: %s\n",
                args.session.c_str(), file.c_str(), sectionList(result->applied).c_str(),
                sectionList(result->deferred).c_str());
    return 0;
}

int stopCommand(const ClientArgs& args, bool kill)
{
    auto client = connectSession(args.session, Role::Viewer, "sandbench-cli");
    if (!client) return fail(client.error());
    if (auto e = (*client)->stop(kill)) return fail(*e);
    std::fprintf(stderr, "sandbench: sent %s to session %s\n", kill ? "SIGKILL" : "SIGTERM",
                 args.session.c_str());
    return 0;
}

class Attachment {
  public:
    Attachment(sb::ControlClient& client, const std::string& session, bool interactive)
        : m_client(client), m_session(session), m_interactive(interactive)
    {
    }

    int run()
    {
        if (auto e = m_client.subscribe()) return fail(*e);
        sigset_t winch;
        sigemptyset(&winch);
        sigaddset(&winch, SIGWINCH);
        ::sigprocmask(SIG_BLOCK, &winch, nullptr);
        int sigFd = ::signalfd(-1, &winch, SFD_CLOEXEC | SFD_NONBLOCK);
        std::optional<sb::RawMode> raw;
        if (m_interactive && ::isatty(0)) {
            raw.emplace(0);
            m_raw = true;
            sendWindowSize();
        }
        notice(m_interactive ? "attached to " + m_session + " (interactive; Ctrl-] detaches)"
                             : "attached to " + m_session + " (read-only; Ctrl-C detaches)");
        for (const auto& r : m_client.pendingAtWelcome())
            announce(r);
        int status = loop(sigFd);
        ::close(sigFd);
        return status;
    }

  private:
    int loop(int sigFd)
    {
        bool stdinOpen = m_interactive;
        for (;;) {
            pollfd fds[3] = {
                {m_client.fd(), POLLIN, 0}, {stdinOpen ? 0 : -1, POLLIN, 0}, {sigFd, POLLIN, 0}};
            if (::poll(fds, 3, -1) < 0 && errno != EINTR) return fail(sb::sysError("poll"));
            if (fds[2].revents & POLLIN) {
                signalfd_siginfo info{};
                while (::read(sigFd, &info, sizeof info) == sizeof info) {
                }
                sendWindowSize();
            }
            if (fds[1].revents & (POLLIN | POLLHUP)) {
                char buf[4096];
                ssize_t n = ::read(0, buf, sizeof buf);
                if (n <= 0) {
                    stdinOpen = false;
                } else {
                    std::string_view keys(buf, static_cast<std::size_t>(n));
                    std::size_t detach = keys.find(kDetachKey);
                    if (auto e = m_client.sendInput(keys.substr(0, detach))) return fail(*e);
                    if (detach != std::string_view::npos) {
                        notice("detached from " + m_session);
                        return 0;
                    }
                }
            }
            if (fds[0].revents) {
                auto readError = m_client.readAvailable();
                Message m;
                for (;;) {
                    auto got = m_client.next(m);
                    if (!got) return fail(got.error());
                    if (!*got) break;
                    if (auto done = onMessage(m)) return *done;
                }
                if (readError)
                    return fail("lost the connection to session " + m_session + ": " +
                                readError->describe());
            }
        }
    }

    std::optional<int> onMessage(const Message& m)
    {
        switch (m.type) {
        case MsgType::Subscribed:
            m_history.subscribed(m.body.value("next_seq", std::uint64_t{0}));
            break;
        case MsgType::Output:
            writeOut(m_history.output(m.seq, m.bytes));
            break;
        case MsgType::ApprovalRequest:
            if (auto r = sb::proto::approvalRequestFromJson(m.body)) announce(*r);
            break;
        case MsgType::ApprovalOutcome:
            if (auto o = sb::proto::approvalOutcomeFromJson(m.body))
                notice("approval #" + std::to_string(o->id) + " " +
                       (o->allow ? "allowed" : "denied") +
                       (o->timedOut                    ? " (timed out)"
                        : o->answer.answeredBy.empty() ? ""
                                                       : " by " + o->answer.answeredBy));
            break;
        case MsgType::Lagged:
            notice("this terminal fell behind; " +
                   std::to_string(m.body.value("lost_bytes", std::uint64_t{0})) +
                   " bytes of output skipped");
            break;
        case MsgType::Exit:
            notice("session " + m_session + " ended (status " +
                   std::to_string(m.body.value("status", -1)) + ")");
            return 0;
        case MsgType::Error:
            if (m.body.value("fatal", false))
                return fail(m.body.value("message", std::string("error from the supervisor")));
            notice(m.body.value("message", std::string()));
            break;
        default:
            break;
        }
        return std::nullopt;
    }

    void announce(const sb::ApprovalRequest& r)
    {
        notice("approval #" + std::to_string(r.id) + " pending: " + sb::proto::describeRequest(r) +
               " (sandbench-cli approve " + m_session + " " + std::to_string(r.id) + " allow)");
    }

    // One line on stderr: the mirror on stdout stays byte-exact.
    void notice(const std::string& text)
    {
        std::fprintf(stderr, "sandbench: %s%s", text.c_str(), m_raw ? "\r\n" : "\n");
    }

    void writeOut(std::string_view bytes)
    {
        while (!bytes.empty()) {
            ssize_t n = ::write(1, bytes.data(), bytes.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
    }

    void sendWindowSize()
    {
        if (!m_interactive) return;
        if (auto size = sb::windowSize(0)) (void)m_client.resize(size->first, size->second);
    }

    sb::ControlClient& m_client;
    std::string m_session;
    bool m_interactive;
    bool m_raw = false;
    sb::HistoryReplay m_history; // replayed without the queries the terminal would answer
};

int attachCommand(const ClientArgs& args)
{
    auto client = connectSession(args.session, args.interactive ? Role::Interactive : Role::Viewer,
                                 "sandbench-cli attach");
    if (!client) return fail(client.error());
    return Attachment(**client, args.session, args.interactive).run();
}

} // namespace

namespace {

bool isConnectFailure(const sb::Error& e)
{
    return e.code == sb::ErrorCode::System && (e.sysErrno == ENOENT || e.sysErrno == ECONNREFUSED);
}

// Why a session cannot be reached, in the user's terms rather than errno's.
sb::Error unreachable(const std::string& id)
{
    auto session = sb::loadSession(id);
    if (!session)
        return {sb::ErrorCode::NotFound, 0, "unknown session " + id + " (see sandbench-cli ls)"};
    if (session->state == sb::SessionState::Running)
        return {sb::ErrorCode::NotFound, 0,
                "session " + id +
                    " is running but has no control socket (its supervisor offers "
                    "none)"};
    return {sb::ErrorCode::NotFound, 0,
            "session " + id + " has no live supervisor (it " +
                (session->state == sb::SessionState::Ended ? "ended" : "was interrupted") + ")"};
}

} // namespace

sb::Result<std::unique_ptr<sb::ControlClient>> connectSession(const std::string& id, Role role,
                                                              const std::string& name)
{
    if (!sb::isValidSessionId(id)) return sb::inputError("invalid session id '" + id + "'");
    // A running session without a socket is a supervisor starting (no socket yet) or finishing
    // (socket removed, end not yet recorded): give it up to 2 s to settle either way.
    for (int attempt = 0;; ++attempt) {
        auto client = sb::ControlClient::connect(id, name, role);
        if (client || !isConnectFailure(client.error())) return client;
        if (client.error().sysErrno == ECONNREFUSED)
            ::unlink(sb::proto::socketPath(id).c_str()); // stale: its supervisor is gone
        auto session = sb::loadSession(id);
        if (attempt >= 40 || !session || session->state != sb::SessionState::Running)
            return unreachable(id);
        ::usleep(50'000);
    }
}

void addClientCommands(CLI::App& app)
{
    auto args = std::make_shared<ClientArgs>();
    auto sessionArg = [&](CLI::App* cmd, bool required) {
        auto* opt = cmd->add_option("session", args->session, "Session id");
        if (required) opt->required();
    };

    CLI::App* ls = app.add_subcommand("ls", "List running sessions (those with a live supervisor)");
    ls->add_flag("--json", args->json, "Output as JSON");
    ls->callback([args] { exitWith(lsCommand(*args)); });

    CLI::App* attach = app.add_subcommand(
        "attach", "Mirror a running session's terminal (read-only unless --interactive)");
    sessionArg(attach, true);
    attach->add_flag("--interactive,-i", args->interactive,
                     "Forward keys and window size to the session (Ctrl-] detaches)");
    attach->callback([args] { exitWith(attachCommand(*args)); });

    CLI::App* pending =
        app.add_subcommand("pending", "List approval requests waiting for an answer");
    sessionArg(pending, false);
    pending->add_flag("--json", args->json, "Output as JSON");
    pending->callback([args] { exitWith(pendingCommand(*args)); });

    CLI::App* approve = app.add_subcommand("approve", "Answer a pending approval request");
    sessionArg(approve, true);
    approve->add_option("request", args->request, "Request number (see pending)")
        ->required()
        ->check(wholeNumber(1, std::numeric_limits<std::uint64_t>::max()));
    approve->add_option("decision", args->decision, "allow or deny")
        ->required()
        ->check(CLI::IsMember({"allow", "deny"}));
    approve
        ->add_option("--scope", args->scope,
                     "What the answer covers: exact, subcommand, program (commands); "
                     "hostport, host, domain (network); suggested: the rule policy suggest "
                     "would write (git push *; the domain on this port for this program), the "
                     "exact one where broader is risky. Default: exact / hostport")
        ->check(CLI::IsMember(
            {"exact", "subcommand", "program", "hostport", "host", "domain", "suggested"}));
    approve->add_option("--for", args->duration, "How long: once, session, always")
        ->check(CLI::IsMember({"once", "session", "always"}));
    approve->add_flag("--program-only", args->programOnly,
                      "Network: the answer covers only the program that connects (a rule "
                      "naming its path)");
    approve->callback([args] { exitWith(approveCommand(*args)); });

    CLI::App* policy = app.add_subcommand(
        "policy", "Give a running session a new policy: its command and network rules and "
                  "approvals apply at once, the rest to new sessions only (or `policy test`, "
                  "`policy suggest`)");
    // Both required unless `policy test` is given, whose callback runs first and exits.
    sessionArg(policy, false);
    policy->add_option("file", args->policyFile, "The policy file (JSON with comments)")
        ->check(CLI::ExistingFile);
    addPolicyTestCommand(*policy);
    addPolicySuggestCommand(*policy);
    addPolicyCompareCommand(*policy);
    policy->callback([args] {
        if (args->session.empty() || args->policyFile.empty())
            exitWith(fail("policy needs a SESSION and a FILE (or: policy test --help, policy "
                          "suggest --help)",
                          kUsageError));
        exitWith(policyCommand(*args));
    });

    CLI::App* stop = app.add_subcommand("stop", "Ask a running session to end (SIGTERM)");
    sessionArg(stop, true);
    stop->callback([args] { exitWith(stopCommand(*args, false)); });
    CLI::App* kill = app.add_subcommand("kill", "End a running session now (SIGKILL)");
    sessionArg(kill, true);
    kill->callback([args] { exitWith(stopCommand(*args, true)); });
}

} // namespace sbcli
