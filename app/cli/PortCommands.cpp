// ports / expose / unexpose: port previews of a running session (PortService.h): what listens
// inside its sandbox, and forwards of those ports to this machine's 127.0.0.1.
#include "Commands.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

namespace sbcli {
namespace {

using json = nlohmann::json;
using sb::proto::Role;

struct PortArgs {
    std::string session;
    unsigned port = 0;
    unsigned hostPort = 0;
    bool json = false;
};

// The client's name is the command's: the activity says who exposed a port.
sb::Result<json> portRequest(const std::string& session, const char* command, json request)
{
    auto client = connectSession(session, Role::Viewer, std::string("sandbench-cli ") + command);
    if (!client) return client.error();
    auto reply = (*client)->ports(std::move(request));
    if (!reply) return reply.error().within("session " + session);
    return reply;
}

int portsCommand(const PortArgs& args)
{
    auto reply = portRequest(args.session, "ports", {{"op", "list"}});
    if (!reply) return fail(reply.error());
    if (args.json) {
        reply->erase("id");
        reply->erase("ok");
        std::printf("%s\n", reply->dump(2).c_str());
        return 0;
    }
    if (reply->value("network", "") == "host")
        std::printf("session %s shares this machine's network: its servers are on 127.0.0.1 "
                    "already\n",
                    args.session.c_str());
    else if ((*reply)["listening"].empty())
        std::printf("nothing listens in session %s\n", args.session.c_str());
    for (const json& l : (*reply)["listening"]) {
        std::string exposed;
        for (const json& f : (*reply)["forwards"])
            if (f["port"] == l["port"]) exposed = f.value("url", "");
        std::printf("%-6u %-16s %s\n", l["port"].get<unsigned>(),
                    l["address"].get<std::string>().c_str(),
                    exposed.empty() ? "" : ("exposed at " + exposed).c_str());
    }
    for (const json& f : (*reply)["forwards"]) {
        bool listening = false;
        for (const json& l : (*reply)["listening"])
            listening = listening || l["port"] == f["port"];
        if (!listening)
            std::printf("%-6u %-16s exposed at %s (nothing listens on it now)\n",
                        f["port"].get<unsigned>(), "-", f.value("url", "").c_str());
    }
    return 0;
}

int exposeCommand(const PortArgs& args)
{
    auto reply = portRequest(args.session, "expose",
                             {{"op", "expose"}, {"port", args.port}, {"host_port", args.hostPort}});
    if (!reply) return fail(reply.error());
    const json& f = (*reply)["forward"];
    if (args.json) {
        std::printf("%s\n", f.dump(2).c_str());
        return 0;
    }
    std::printf("%s\n", f.value("url", "").c_str());
    if (f.value("shared", false))
        std::fprintf(stderr,
                     "sandbench-cli: session %s shares this machine's network: its port "
                     "%u is this machine's\n",
                     args.session.c_str(), args.port);
    return 0;
}

int unexposeCommand(const PortArgs& args)
{
    auto reply = portRequest(args.session, "unexpose", {{"op", "close"}, {"port", args.port}});
    if (!reply) return fail(reply.error());
    return 0;
}

} // namespace

void addPortCommands(CLI::App& app)
{
    auto args = std::make_shared<PortArgs>();
    CLI::App* ports =
        app.add_subcommand("ports", "What listens in a running session's sandbox, and what of "
                                    "it is exposed on this machine");
    ports->add_option("session", args->session, "Session id")->required();
    ports->add_flag("--json", args->json, "Output as JSON");
    ports->callback([args] { exitWith(portsCommand(*args)); });

    CLI::App* expose = app.add_subcommand(
        "expose", "Make a port of a running session's sandbox reachable on this machine's "
                  "127.0.0.1 (a port preview); prints its URL");
    expose->add_option("session", args->session, "Session id")->required();
    expose->add_option("port", args->port, "The port inside the sandbox")
        ->required()
        ->check(CLI::Range(1, 65535));
    expose->add_option("--host-port", args->hostPort, "The port on 127.0.0.1 (default: a free one)")
        ->check(CLI::Range(1, 65535));
    expose->add_flag("--json", args->json, "Output the forward as JSON");
    expose->callback([args] { exitWith(exposeCommand(*args)); });

    CLI::App* unexpose =
        app.add_subcommand("unexpose", "Close a port preview (and its open connections)");
    unexpose->add_option("session", args->session, "Session id")->required();
    unexpose->add_option("port", args->port, "The port inside the sandbox")
        ->required()
        ->check(CLI::Range(1, 65535));
    unexpose->callback([args] { exitWith(unexposeCommand(*args)); });
}

} // namespace sbcli
