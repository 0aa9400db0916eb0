// snapshot / snapshots / restore / fork: checkpoints of a session's changes (Snapshots.h), for a
// session that is not running.
#include "Commands.h"
#include "Format.h"
#include "base/Session.h"
#include "workspace/Snapshots.h"

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace sbcli {
namespace {

struct SnapshotArgs {
    std::string session;
    std::string name;
    std::string as; // fork
    bool json = false;
};

// The session, locked against a supervisor, an apply or another snapshot while its layer is
// read or replaced.
struct Held {
    sb::SessionInfo session;
    sb::UniqueFd lock;
};

sb::Result<Held> hold(const std::string& id, bool ownLayer = true)
{
    auto session = sb::loadSession(id);
    if (!session) return session.error();
    if (sb::sessionIsLive(*session))
        return sb::inputError("session " + id + " is running: stop it first (sandbench-cli stop " +
                              id + ")");
    // Its layer went on in a resumed session: that one's changes are the ones to keep.
    if (ownLayer && !session->continuedIn.empty())
        return sb::inputError("the changes of session " + id + " went on in session " +
                              session->continuedIn + ": use that one");
    auto lock = sb::lockSession(*session);
    if (!lock) return lock.error();
    return Held{std::move(*session), std::move(*lock)};
}

std::string describe(const sb::LayerCopyStats& s)
{
    return std::to_string(s.entries) + " entries, " + std::to_string(s.bytes) + " bytes" +
           (s.cloned > 0 ? " (" + std::to_string(s.cloned) + " files cloned)" : "");
}

int snapshotCommand(const SnapshotArgs& args)
{
    auto held = hold(args.session);
    if (!held) return fail(held.error());
    std::string name = args.name;
    if (name.empty()) { // snapshot-1, snapshot-2, …
        auto taken = sb::listSnapshots(held->session.directory());
        name = "snapshot-" + std::to_string((taken ? taken->size() : 0) + 1);
    }
    const auto start = std::chrono::steady_clock::now();
    auto snapshot = sb::takeSnapshot(held->session.directory(), held->session.upperDir(), name);
    if (!snapshot) return fail(snapshot.error());
    const auto ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("snapshot %s of %s: %s, %.1f ms\n", name.c_str(), args.session.c_str(),
                describe(snapshot->stats).c_str(), ms);
    return 0;
}

int listCommand(const SnapshotArgs& args)
{
    auto session = sb::loadSession(args.session);
    if (!session) return fail(session.error());
    auto snapshots = sb::listSnapshots(session->directory());
    if (!snapshots) return fail(snapshots.error());
    if (args.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& s : *snapshots)
            out.push_back({{"name", s.name},
                           {"taken_unix_ms", s.takenUnixMs},
                           {"entries", s.stats.entries},
                           {"bytes", s.stats.bytes}});
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    if (snapshots->empty())
        std::printf("no snapshots of %s (sandbench-cli snapshot %s [NAME])\n", args.session.c_str(),
                    args.session.c_str());
    for (const auto& s : *snapshots)
        std::printf("%-24s %s  %s\n", s.name.c_str(), localTime(s.takenUnixMs).c_str(),
                    describe(s.stats).c_str());
    return 0;
}

int restoreCommand(const SnapshotArgs& args)
{
    auto held = hold(args.session);
    if (!held) return fail(held.error());
    if (auto e =
            sb::restoreSnapshot(held->session.directory(), held->session.upperDir(), args.name))
        return fail(*e);
    std::printf("restored %s to its snapshot %s (sandbench-cli changes %s)\n", args.session.c_str(),
                args.name.c_str(), args.session.c_str());
    return 0;
}

int forkCommand(const SnapshotArgs& args)
{
    // A snapshot of a session whose changes went on elsewhere is still its own.
    auto held = hold(args.session, args.name.empty());
    if (!held) return fail(held.error());
    const sb::SessionInfo& from = held->session;
    std::filesystem::path layer = from.upperDir();
    if (!args.name.empty()) {
        auto snapshot = sb::findSnapshot(from.directory(), args.name);
        if (!snapshot) return fail(snapshot.error());
        layer = snapshot->upper;
    }
    if (auto e = sb::checkNewSessionId(args.as)) return fail(*e, kUsageError);
    auto made = sb::createSession(from.project, from.command, args.as);
    if (!made) return fail(made.error());
    sb::SessionInfo fork = *made;
    // Its own layer is the copy: the empty one made with the folder goes first.
    sb::LayerCopyStats stats;
    sb::Status copied = ::rmdir(fork.upperDir().c_str()) == 0
                            ? sb::copyLayer(layer, fork.upperDir(), stats)
                            : sb::sysError("empty the new session's layer");
    fork.state = sb::SessionState::Ended;
    fork.endedNs = fork.startedNs;
    fork.exitStatus = 0;
    fork.changesSinceNs = from.changesBaseNs();
    fork.forkedFrom = from.id + (args.name.empty() ? "" : "@" + args.name);
    if (auto e = sb::saveSession(fork)) return fail(*e);
    if (copied) return fail(copied->within("fork " + from.id));
    std::printf("forked %s as %s: %s; go on with it: sandbench-cli run --resume %s -- CMD\n",
                fork.forkedFrom.c_str(), fork.id.c_str(), describe(stats).c_str(), fork.id.c_str());
    return 0;
}

} // namespace

void addSnapshotCommands(CLI::App& app)
{
    auto args = std::make_shared<SnapshotArgs>();
    CLI::App* snapshot = app.add_subcommand(
        "snapshot", "Keep a copy of a stopped session's changes, to restore or fork later");
    snapshot->add_option("session", args->session, "Session id")->required();
    snapshot->add_option("name", args->name, "Its name (default: snapshot-N)");
    snapshot->callback([args] { exitWith(snapshotCommand(*args)); });

    CLI::App* list = app.add_subcommand("snapshots", "A session's snapshots");
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
