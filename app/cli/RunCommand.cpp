#include "Commands.h"
#include "Format.h"
#include "PolicyOptions.h"
#include "supervision/Supervisor.h"

#include <memory>

namespace sbcli {
namespace {

struct RunArgs {
    PolicyChoice policy;
    std::string workspace = ".";
    std::string sessionId;
    std::string resume;
    bool headless = false;
    std::string size = "24x80";
    std::vector<std::string> command;
};

void printSummary(const sb::RunOutcome& outcome)
{
    std::size_t count = outcome.changes;
    const std::string& id = outcome.session.id;
    std::string tail = count == 0 ? "no changes to the workspace"
                                  : std::to_string(count) + " change" + (count == 1 ? "" : "s") +
                                        " held back: review with 'sandbench-cli changes " + id +
                                        "', then 'apply " + id + "' or 'discard " + id + "'";
    std::fprintf(stderr, "sandbench: session %s ended (exit %d); %s\n", id.c_str(),
                 outcome.exitStatus, tail.c_str());
}

int runCommand(const RunArgs& args)
{
    auto policy = args.policy.resolve();
    if (!policy) return fail(policy.error(), kUsageError);
    sb::RunOptions options;
    options.policy = std::move(policy.value());
    options.workspace = args.workspace;
    options.command = args.command;
    options.sessionId = args.sessionId;
    options.resumeFrom = args.resume;
    if (!args.resume.empty()) (void)followChain(args.resume, "resuming");
    if (args.headless)
        if (auto e = makeHeadless(options, args.size)) return fail(*e, kUsageError);
    if (auto e = args.policy.describeSource(options)) return fail(*e, kUsageError);
    options.notice = [](const std::string& text) {
        std::fprintf(stderr, "sandbench: %s\n", text.c_str());
    };
    auto prepared = sb::prepareRun(options);
    if (!prepared) return fail(prepared.error(), kUsageError);
    auto outcome = sb::runSession(options, std::move(*prepared));
    if (!outcome) return fail(outcome.error(), kSandboxFailure);
    printSummary(*outcome);
    return outcome->exitStatus;
}

} // namespace

sb::Status makeHeadless(sb::RunOptions& options, const std::string& size)
{
    auto rowsCols = parseTerminalSize(size);
    if (!rowsCols) return rowsCols.error();
    options.headless = true;
    options.rows = rowsCols->first;
    options.cols = rowsCols->second;
    return {};
}

void addRunCommand(CLI::App& app)
{
    auto args = std::make_shared<RunArgs>();
    CLI::App* run = app.add_subcommand(
        "run", "Run a command in a sandbox over the workspace; changes stay in the session until "
               "applied. Exit status is the command's (128+N for signal N, 124 on timeout, 125 "
               "when the sandbox could not start).");
    args->policy.addTo(*run);
    run->add_option("--workspace,-w", args->workspace,
                    "Project folder (default: current folder; with --resume, that session's)");
    run->add_option("--session-id", args->sessionId, "Name the session instead of a fresh id");
    run->add_option("--resume", args->resume,
                    "Go on with an ended session's changes (they move to this session); any id of "
                    "sessions resumed one from another names the latest");
    // With --resume and no --workspace: the resumed session's project.
    run->parse_complete_callback([args, run] {
        if (!args->resume.empty() && run->count("--workspace") == 0) args->workspace.clear();
    });
    auto* headless =
        run->add_flag("--headless", args->headless,
                      "Give the command a terminal that only attached clients see and type into "
                      "(how the GUI starts sessions)");
    run->add_option("--size", args->size, "With --headless: the terminal's ROWSxCOLS (24x80)")
        ->needs(headless);
    run->add_option("command", args->command, "The command and its arguments, after --")
        ->required();
    run->positionals_at_end();
    run->callback([args] { exitWith(runCommand(*args)); });
}

} // namespace sbcli
