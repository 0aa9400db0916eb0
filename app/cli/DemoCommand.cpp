// `sandbench-cli demo`: the built-in demo in the terminal. A scripted agent works in a sandbox
// over a fresh copy of the demo workspace; then the changes it left for review are shown.
#include "Commands.h"
#include "Format.h"
#include "Paths.h"
#include "Supervisor.h"
#include "Workspace.h"

#include <fstream>
#include <memory>
#include <sstream>

namespace fs = std::filesystem;

namespace sbcli {
namespace {

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
    return fs::path(tmpl);
}

struct DemoArgs {
    bool headless = false;
    std::string size = "24x80";
    std::string sessionId;
};

int demoCommand(const DemoArgs& args)
{
    fs::path demo = sb::shippedDataDirectory() / "demo";
    std::ifstream script(demo / "agent.sh");
    if (!script) return fail("demo files not found in " + demo.string());
    std::stringstream text;
    text << script.rdbuf();
    auto workspace = copyDemoWorkspace(demo);
    if (!workspace) return fail(workspace.error());
    auto policy = sb::loadPreset("generic");
    if (!policy) return fail(policy.error());

    std::printf(
        "Sandbench demo: a scripted agent edits a copy of a small project in %s\n"
        "inside a sandbox (read-only system, empty home, network only through the filtering\n"
        "proxy), then shows what it changed.\n\n",
        workspace->c_str());
    std::fflush(stdout);
    sb::RunOptions options;
    if (args.headless) {
        auto size = parseTerminalSize(args.size);
        if (!size) return fail(size.error(), kUsageError);
        options.headless = true;
        options.rows = size->first;
        options.cols = size->second;
    }
    options.sessionId = args.sessionId;
    options.policy = std::move(policy.value());
    options.policy.limits.wallSeconds = 120;
    options.workspace = *workspace;
    options.command = {"bash", "-c", text.str(), "demo-agent"};
    options.notice = [](const std::string& s) {
        std::fprintf(stderr, "sandbench: %s\n", s.c_str());
    };
    auto outcome = sb::runSession(options);
    if (!outcome) return fail(outcome.error(), kSandboxFailure);

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
    demo->add_flag("--headless", args->headless,
                   "Give the agent a terminal only attached clients see (how the GUI shows it)");
    demo->add_option("--size", args->size, "With --headless: the terminal's ROWSxCOLS (24x80)");
    demo->add_option("--session-id", args->sessionId, "Name the session instead of a fresh id");
    demo->callback([args] { exitWith(demoCommand(*args)); });
}

} // namespace sbcli
