// `sandbench-cli demo`: the built-in demo in the terminal. A scripted agent works in a sandbox
// over a fresh copy of the demo workspace; then the changes it left for review are shown.
//
// The demo runs over the generic preset with a few additions, so that every part of the
// supervision has something to show: two servers on the host's loopback (DemoServer), one
// allowed and one denied by a rule; and an "ask" rule for `rm -rf`, which the agent tries on
// ~/.ssh (an approval card in the window; Ctrl-] or the title in a terminal).
#include "Commands.h"
#include "DemoServer.h"
#include "Format.h"
#include "base/Paths.h"
#include "supervision/Supervisor.h"
#include "workspace/Workspace.h"

#include <memory>

namespace fs = std::filesystem;

namespace sbcli {
namespace {

// The agent script goes into the copy beside the project, so the session's command is a short
// `bash .demo-agent.sh` (the sandbox sees the workspace, not where the demo files are shipped).
constexpr const char* kAgentFile = ".demo-agent.sh";

sb::Result<fs::path> copyDemoWorkspace(const fs::path& demo)
{
    fs::path base = sb::stateDirectory() / "demo";
    std::error_code ec;
    fs::create_directories(base, ec);
    std::string tmpl = (base / "workspace-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
        return sb::sysError("create a demo workspace under " + base.string());
    fs::copy(demo / "workspace", tmpl, fs::copy_options::recursive, ec);
    if (ec) return sb::sysError("copy the demo workspace", ec.value());
    fs::copy_file(demo / "agent.sh", fs::path(tmpl) / kAgentFile, ec);
    if (ec) return sb::sysError("copy the demo agent", ec.value());
    return fs::path(tmpl);
}

// Unanswered, the demo's approval is denied after this long: long enough to read the card.
constexpr std::uint32_t kDemoApprovalSeconds = 60;

sb::Policy demoPolicy(sb::Policy generic, const DemoServer& server)
{
    using sb::RuleAction;
    auto& network = generic.network.rules;
    // Loopback is blocked unless a rule names the address: these two name it with one port each.
    network.insert(network.begin(),
                   {RuleAction::Allow, "127.0.0.1", {server.teamPort()}, "the demo's team server"});
    network.insert(
        network.begin() + 1,
        {RuleAction::Deny, "127.0.0.1", {server.collectorPort()}, "the demo's collector"});
    // The agent's raw connection to the internet (no proxy): refused by a rule, not asked (the
    // demo asks about one thing, its rm -rf), and never leaving this machine.
    network.insert(network.begin() + 2,
                   {RuleAction::Deny, "1.1.1.1", {}, "the demo agent's raw connection"});
    generic.commands.rules.push_back(
        {RuleAction::Ask, "rm -rf *", "deleting whole folders is put to you"});
    generic.approvals.timeoutSeconds = kDemoApprovalSeconds;
    generic.approvals.onTimeout = RuleAction::Deny;
    const std::string base = "http://127.0.0.1:";
    generic.env.set["DEMO_TEAM_SERVER"] = base + std::to_string(server.teamPort()) + "/guidelines";
    generic.env.set["DEMO_COLLECTOR"] = base + std::to_string(server.collectorPort()) + "/upload";
    generic.env.set["DEMO_APPROVAL_SECONDS"] = std::to_string(kDemoApprovalSeconds);
    return generic;
}

struct DemoArgs {
    bool headless = false;
    std::string size = "24x80";
    std::string sessionId;
};

int demoCommand(const DemoArgs& args)
{
    fs::path demo = sb::shippedDataDirectory() / "demo";
    std::error_code ec;
    if (!fs::is_regular_file(demo / "agent.sh", ec))
        return fail("demo files not found in " + demo.string());
    auto workspace = copyDemoWorkspace(demo);
    if (!workspace) return fail(workspace.error());
    auto policy = sb::loadPreset("generic");
    if (!policy) return fail(policy.error());
    auto started = DemoServer::start();
    if (!started) return fail(started.error());
    std::unique_ptr<DemoServer> server = std::move(*started);

    std::printf(
        "Sandbench demo: a scripted agent edits a copy of a small project in %s\n"
        "inside a sandbox (read-only system, empty home, network only through the filtering\n"
        "proxy), then shows what it changed. Two demo servers listen on this machine's\n"
        "127.0.0.1: port %u (allowed by the demo's policy) and port %u (denied).\n\n",
        workspace->c_str(), unsigned{server->teamPort()}, unsigned{server->collectorPort()});
    std::fflush(stdout);
    sb::RunOptions options;
    if (args.headless)
        if (auto e = makeHeadless(options, args.size)) return fail(*e, kUsageError);
    options.sessionId = args.sessionId;
    options.policy = demoPolicy(std::move(policy.value()), *server);
    options.policy.limits.wallSeconds = 180;
    options.workspace = *workspace;
    options.command = {"bash", kAgentFile};
    options.notice = [](const std::string& s) {
        std::fprintf(stderr, "sandbench: %s\n", s.c_str());
    };
    auto prepared = sb::prepareRun(options);
    if (!prepared) return fail(prepared.error(), kUsageError);
    auto outcome = sb::runSession(options, std::move(*prepared));
    if (!outcome) return fail(outcome.error(), kSandboxFailure);

    const DemoServer::Counts counts = server->stop();
    std::printf("\nThe demo servers: the allowed one answered %d request(s); the denied one "
                "received %d.\n",
                counts.team, counts.collector);

    const sb::SessionInfo& session = outcome->session;
    auto changes = sb::listChanges(session.upperDir(), session.project);
    auto diff = sb::unifiedDiff(session.upperDir(), session.project, {});
    if (!changes || !diff) return fail(!changes ? changes.error() : diff.error());
    std::printf("\nThe agent's changes, held back in session %s (the real folder is untouched):\n",
                session.id.c_str());
    static const char marks[] = {'A', 'M', 'D'};
    for (const auto& c : *changes)
        std::printf("  %c %s\n", marks[static_cast<int>(c.kind)], c.path.c_str());
    std::printf("\n%s\nNext: 'sandbench-cli apply %s' writes them into %s, "
                "'sandbench-cli discard %s' drops them.\n",
                diff->c_str(), session.id.c_str(), workspace->c_str(), session.id.c_str());
    return outcome->exitStatus;
}

} // namespace

void addDemoCommand(CLI::App& app)
{
    auto args = std::make_shared<DemoArgs>();
    CLI::App* demo = app.add_subcommand(
        "demo", "Run the built-in demo: a scripted agent in a sandbox over a copy of a demo "
                "project, then its changes for review");
    auto* headless = demo->add_flag(
        "--headless", args->headless,
        "Give the agent a terminal only attached clients see (how the GUI shows it)");
    demo->add_option("--size", args->size, "With --headless: the terminal's ROWSxCOLS (24x80)")
        ->needs(headless);
    demo->add_option("--session-id", args->sessionId, "Name the session instead of a fresh id");
    demo->callback([args] { exitWith(demoCommand(*args)); });
}

} // namespace sbcli
