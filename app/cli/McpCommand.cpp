// mcp: a Model Context Protocol server over stdio in front of a session (core/mcp). Without
// --session it starts one for the connection and stops it when the client goes away (or when
// this process ends any other way: the session's lifeline); its changes stay for review.
#include "Commands.h"
#include "PolicyOptions.h"
#include "base/Session.h"
#include "config.h"
#include "mcp/McpServer.h"

#include <csignal>
#include <memory>

namespace sbcli {
namespace {

struct McpArgs {
    PolicyChoice policy;
    std::string session;
    std::string workspace = ".";
    std::string name;
};

int mcpCommand(const McpArgs& args)
{
    // stdout carries the protocol alone; what the user should know goes to stderr.
    std::string id = args.session;
    bool ours = false;
    if (id.empty()) {
        auto started = startDetachedSession(args.policy, args.workspace, args.name, true);
        if (!started) return fail(started.error(), kSandboxFailure);
        std::fputs(started->notices.c_str(), stderr);
        id = started->id;
        ours = true;
    } else {
        std::fprintf(stderr, "sandbench: attached to session %s\n", id.c_str());
    }
    auto client = connectSession(id, sb::proto::Role::Viewer, "sandbench-cli mcp");
    if (!client) return fail(client.error(), kSandboxFailure);
    if (!(*client)->servesPrograms())
        return fail("session " + id +
                    " runs no processes for programs (its supervisor predates "
                    "exec)");
    auto session = sb::loadSession(id);
    if (!session) return fail(session.error());
    ::signal(SIGPIPE, SIG_IGN); // a client gone mid-answer is an ended stdin soon after
    sb::mcp::Server server(**client, *session, {SANDBENCH_VERSION});
    sb::Status served = server.run(0, 1);
    if (ours) {
        (void)(*client)->stop(false, 5000);
        std::fprintf(stderr,
                     "sandbench: session %s stopped; review its changes with "
                     "'sandbench-cli changes %s'\n",
                     id.c_str(), id.c_str());
    }
    if (served) return fail(served->describe());
    return 0;
}

} // namespace

void addMcpCommand(CLI::App& app)
{
    auto args = std::make_shared<McpArgs>();
    CLI::App* mcp = app.add_subcommand(
        "mcp", "Serve a session to an agent as MCP tools over stdio (run_command, files, "
               "processes, get_changes); without --session, for a session of its own");
    mcp->add_option("--session", args->session, "Serve this running session");
    args->policy.addTo(*mcp);
    mcp->add_option("--workspace,-w", args->workspace,
                    "Project folder of the session it starts (default: current folder)");
    mcp->add_option("--name", args->name, "The id of the session it starts");
    mcp->callback([args] { exitWith(mcpCommand(*args)); });
}

} // namespace sbcli
