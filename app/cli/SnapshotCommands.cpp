// snapshot / snapshots / restore / fork: checkpoints of a session's changes (Snapshots.h), for a
// session that is not running (workspace/SessionSnapshots.h); a running session's snapshot is
// asked of its supervisor, which freezes the sandbox meanwhile.
#include "Commands.h"
#include "Format.h"
#include "base/Session.h"
#include "workspace/SessionSnapshots.h"

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

namespace sbcli {
namespace {

struct SnapshotArgs {
    std::string session;
    std::string name;
    std::string as; // fork
    bool json = false;
};

std::string describe(const sb::LayerCopyStats& s)
{
    return std::to_string(s.entries) + " entries, " + std::to_string(s.bytes) + " bytes" +
           (s.cloned > 0 ? " (" + std::to_string(s.cloned) + " files cloned)" : "");
}

// A running session's snapshot is its supervisor's to take, with the sandbox frozen.
int snapshotRunning(const SnapshotArgs& args, const sb::SessionChain& chain)
{
    const std::string& id = chain.current().id;
    if (!args.name.empty())
        if (auto taken = sb::findChainSnapshot(chain, args.name))
            return fail("the session has a snapshot named '" + args.name + "' already (taken in " +
                        "session " + taken->session.id + ")");
    auto client = connectSession(id, sb::proto::Role::Viewer, "sandbench-cli snapshot");
    if (!client) return fail(client.error());
    auto taken = (*client)->snapshot(args.name);
    if (!taken) return fail(taken.error().within("snapshot of running session " + id));
    std::printf("snapshot %s of %s: %s entries, %s bytes, the sandbox frozen %.1f ms\n",
                taken->value("name", "").c_str(), id.c_str(),
                taken->value("entries", nlohmann::json(0)).dump().c_str(),
                taken->value("bytes", nlohmann::json(0)).dump().c_str(),
                taken->value("frozen_ms", 0.0));
    return 0;
}

int snapshotCommand(const SnapshotArgs& args)
{
    auto chain = followChain(args.session, "taking the snapshot of");
    if (!chain) return fail(chain.error());
    if (sb::sessionIsLive(chain->current())) return snapshotRunning(args, *chain);
    const auto start = std::chrono::steady_clock::now();
    auto snapshot = sb::snapshotStoppedSession(args.session, args.name);
    if (!snapshot) return fail(snapshot.error());
    const auto ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("snapshot %s of %s: %s, %.1f ms\n", snapshot->name.c_str(),
                chain->current().id.c_str(), describe(snapshot->stats).c_str(), ms);
    return 0;
}

// The snapshots of the session's whole chain: those taken before a resume too, each saying
// which session took it when there is more than one.
int listCommand(const SnapshotArgs& args)
{
    auto chain = sb::loadSessionChain(args.session);
    if (!chain) return fail(chain.error());
    const auto snapshots = sb::listChainSnapshots(*chain);
    if (args.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& s : snapshots)
            out.push_back({{"name", s.info.name},
                           {"session", s.session.id},
                           {"taken_unix_ms", s.info.takenUnixMs},
                           {"entries", s.info.stats.entries},
                           {"bytes", s.info.stats.bytes}});
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    if (snapshots.empty())
        std::printf("no snapshots of %s (sandbench-cli snapshot %s [NAME])\n", args.session.c_str(),
                    args.session.c_str());
    for (const auto& s : snapshots) {
        std::printf("%-24s %s  %s", s.info.name.c_str(), localTime(s.info.takenUnixMs).c_str(),
                    describe(s.info.stats).c_str());
        if (chain->sessions.size() > 1) std::printf("  (in session %s)", s.session.id.c_str());
        std::printf("\n");
    }
    return 0;
}

int restoreCommand(const SnapshotArgs& args)
{
    auto chain = followChain(args.session, "restoring");
    if (!chain) return fail(chain.error());
    if (auto e = sb::restoreStoppedSession(args.session, args.name)) return fail(*e);
    const std::string& id = chain->current().id;
    std::printf("restored %s to its snapshot %s (sandbench-cli changes %s)\n", id.c_str(),
                args.name.c_str(), id.c_str());
    return 0;
}

int forkCommand(const SnapshotArgs& args)
{
    if (auto e = sb::checkNewSessionId(args.as)) return fail(*e, kUsageError);
    if (args.name.empty()) {
        auto chain = followChain(args.session, "forking");
        if (!chain) return fail(chain.error());
    }
    auto fork = sb::forkStoppedSession(args.session, args.name, args.as);
    if (!fork) return fail(fork.error());
    std::printf("forked %s as %s: %s; go on with it: sandbench-cli run --resume %s -- CMD\n",
                fork->session.forkedFrom.c_str(), fork->session.id.c_str(),
                describe(fork->stats).c_str(), fork->session.id.c_str());
    return 0;
}

} // namespace

void addSnapshotCommands(CLI::App& app)
{
    auto args = std::make_shared<SnapshotArgs>();
    CLI::App* snapshot = app.add_subcommand(
        "snapshot", "Keep a copy of a session's changes, to restore or fork later (a running "
                    "session's sandbox is frozen meanwhile)");
    snapshot->add_option("session", args->session, "Session id")->required();
    snapshot->add_option("name", args->name, "Its name (default: snapshot-N)");
    snapshot->callback([args] { exitWith(snapshotCommand(*args)); });

    CLI::App* list = app.add_subcommand(
        "snapshots",
        "A session's snapshots (with those of the sessions it resumed or that resumed it)");
    list->add_option("session", args->session, "Session id")->required();
    list->add_flag("--json", args->json, "Output as JSON");
    list->callback([args] { exitWith(listCommand(*args)); });

    CLI::App* restore = app.add_subcommand(
        "restore", "Make a stopped session's changes those of one of its snapshots again");
    restore->add_option("session", args->session, "Session id")->required();
    restore->add_option("snapshot", args->name, "The snapshot")->required();
    restore->callback([args] { exitWith(restoreCommand(*args)); });

    CLI::App* fork = app.add_subcommand(
        "fork", "A new session with a copy of a session's changes (or a snapshot's), to go on "
                "with separately (run --resume NEW)");
    fork->add_option("session", args->session, "Session id")->required();
    fork->add_option("snapshot", args->name, "A snapshot of it (default: its changes now)");
    fork->add_option("--as", args->as, "The new session's id")->required();
    fork->callback([args] { exitWith(forkCommand(*args)); });
}

} // namespace sbcli
