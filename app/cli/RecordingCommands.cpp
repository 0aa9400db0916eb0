// sessions / show / replay / search / export / rm / gc: the recorded sessions.
#include "Commands.h"
#include "ExecutionSummary.h"
#include "Format.h"
#include "ModelSummary.h"
#include "base/Bytes.h"
#include "base/Paths.h"
#include "base/Session.h"
#include "recording/RecordingCopy.h"
#include "recording/RecordingExport.h"
#include "recording/RecordingReplay.h"
#include "recording/RecordingStore.h"
#include "workspace/UnrecordedSessions.h"
#include "workspace/Workspace.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

using nlohmann::json;

namespace sbcli {
namespace {

struct RecordingArgs {
    std::string db;
    std::string session, text, since, state, from, to, format, output;
    double speed = 1.0;
    bool json = false, dryRun = false, force = false;
    size_t limit = 50;
    std::uint64_t maxSizeMb = 0, maxAgeDays = 0;
};

sb::Result<sb::RecordingStore> openStore(const RecordingArgs& args)
{
    // A database named on the command line is read, never made: a mistyped path is no empty
    // history (nor a new folder).
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!args.db.empty() && !fs::is_regular_file(args.db, ec)) {
        const fs::path folder = fs::absolute(args.db, ec).parent_path();
        const std::string missing =
            fs::is_directory(folder, ec) ? "no such file" : "no folder " + folder.string();
        return sb::Error{sb::ErrorCode::NotFound, 0,
                         "--db " + args.db + ": no recording database there (" + missing + ")"};
    }
    return sb::RecordingStore::open(args.db);
}

std::int64_t nowNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

std::string humanBytes(std::uint64_t n)
{
    char buf[32];
    if (n >= (1u << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(n) / (1u << 30));
    else if (n >= (1u << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1u << 20));
    else if (n >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(n) / 1024);
    else
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
    return buf;
}

// "--since 2h" (ago) or "--since 2026-01-31[ 12:00[:00]]" (local time).
sb::Result<std::int64_t> parseSince(const std::string& text)
{
    std::tm tm{};
    for (const char* format : {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
                               "%Y-%m-%dT%H:%M", "%Y-%m-%d"}) {
        tm = std::tm{};
        const char* end = strptime(text.c_str(), format, &tm);
        if (end != nullptr && *end == '\0') {
            tm.tm_isdst = -1;
            return static_cast<std::int64_t>(std::mktime(&tm)) * 1'000'000'000;
        }
    }
    auto ago = sb::parseDuration(text);
    if (!ago)
        return sb::inputError("--since '" + text +
                              "': use a duration ago (30m, 2h, 7d) or a date (2026-01-31)");
    return nowNs() - *ago;
}

json recordJson(const sb::SessionRecord& r)
{
    return json{{"id", r.id},
                {"command", r.command},
                {"workspace", r.workspace},
                {"state", sb::recordStateName(r.state)},
                {"started_ns", r.startedNs},
                {"ended_ns", r.endedNs != 0 ? json(r.endedNs) : json(nullptr)},
                {"duration_ns", r.durationNs()},
                {"exit_status", r.exitStatus ? json(*r.exitStatus) : json(nullptr)},
                {"events", r.events},
                {"output_bytes", r.outputBytes},
                {"stored_bytes", r.storedBytes}};
}

// A session with changes that no recording lists (UnrecordedSessions.h): "forked" when a fork
// made it, else "stopped".
std::string unrecordedState(const sb::SessionInfo& s)
{
    return s.forkedFrom.empty() ? "stopped" : "forked";
}

json unrecordedJson(const sb::SessionInfo& s)
{
    return json{{"id", s.id},
                {"command", s.command},
                {"workspace", s.project.string()},
                {"state", unrecordedState(s)},
                {"started_ns", s.startedNs},
                {"ended_ns", s.endedNs != 0 ? json(s.endedNs) : json(nullptr)},
                {"exit_status", s.exitStatus >= 0 ? json(s.exitStatus) : json(nullptr)},
                {"forked_from", s.forkedFrom.empty() ? json(nullptr) : json(s.forkedFrom)},
                {"recorded", false}};
}

int sessionsCommand(const RecordingArgs& args)
{
    sb::SessionFilter filter;
    if (!args.since.empty()) {
        auto since = parseSince(args.since);
        if (!since) return fail(since.error(), kUsageError);
        filter.sinceNs = *since;
    }
    // forked and stopped: sessions with changes and no recording.
    const bool unrecordedOnly = args.state == "forked" || args.state == "stopped";
    if (!args.state.empty() && !unrecordedOnly) {
        filter.state = sb::recordStateFromName(args.state);
        if (!filter.state)
            return fail("--state '" + args.state +
                            "': use running, ended, interrupted, forked or stopped",
                        kUsageError);
    }
    auto store = openStore(args);
    if (!store) return fail(store.error());
    auto list = store->sessions(filter);
    if (!list) return fail(list.error());
    auto all = store->sessions();
    if (!all) return fail(all.error());
    std::set<std::string> recorded;
    for (const auto& r : *all)
        recorded.insert(r.id);
    std::vector<sb::SessionInfo> unrecorded;
    // This user's sessions folder goes with this user's own recordings: beside another database
    // (--db, SANDBENCH_RECORDINGS_DB) every session would look unrecorded.
    std::error_code ec;
    const bool ownHistory =
        std::filesystem::weakly_canonical(store->file(), ec) ==
        std::filesystem::weakly_canonical(sb::dataDirectory() / "recordings.db", ec);
    if (ownHistory && (args.state.empty() || unrecordedOnly))
        for (sb::SessionInfo& s : sb::unrecordedSessionsWithChanges(recorded))
            if (s.startedNs >= filter.sinceNs.value_or(0) &&
                (!unrecordedOnly || unrecordedState(s) == args.state))
                unrecorded.push_back(std::move(s));
    if (unrecordedOnly) list->clear();
    if (args.json) {
        json out = json::array();
        for (const auto& r : *list)
            out.push_back(recordJson(r));
        for (const auto& s : unrecorded)
            out.push_back(unrecordedJson(s));
        std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
        return 0;
    }
    for (const auto& r : *list) {
        std::string exit = r.exitStatus ? std::to_string(*r.exitStatus) : "-";
        std::printf("%-24s %s %-11s %9s exit %-4s %9s  %s\n", r.id.c_str(),
                    localTime(r.startedNs / 1000000).c_str(),
                    std::string(sb::recordStateName(r.state)).c_str(),
                    sb::formatDuration(r.durationNs()).c_str(), exit.c_str(),
                    humanBytes(r.outputBytes).c_str(), commandSummary(r.command).c_str());
    }
    // Not recorded, but resumable: said so, with where the changes came from.
    for (const auto& s : unrecorded) {
        const std::string exit = s.exitStatus >= 0 ? std::to_string(s.exitStatus) : "-";
        const std::string note =
            s.forkedFrom.empty() ? "no recording; changes waiting" : "fork of " + s.forkedFrom;
        std::printf("%-24s %s %-11s %9s exit %-4s %9s  %s (%s)\n", s.id.c_str(),
                    localTime(s.startedNs / 1000000).c_str(), unrecordedState(s).c_str(), "-",
                    exit.c_str(), "-", commandSummary(s.command).c_str(), note.c_str());
    }
    return 0;
}

void printList(const char* title, const std::vector<std::string>& items)
{
    std::printf("%s (%zu)\n", title, items.size());
    for (const auto& item : items)
        std::printf("  %s\n", item.c_str());
}

int showCommand(const RecordingArgs& args)
{
    auto store = openStore(args);
    if (!store) return fail(store.error());
    auto s = store->summary(args.session);
    if (!s) return fail(s.error());
    auto executions = loadExecutions(*store, args.session);
    if (!executions) return fail(executions.error());
    const sb::SessionRecord& r = s->session;
    if (args.json) {
        json out = recordJson(r);
        out["commands"] = s->commands;
        out["denied_commands"] = s->deniedCommands;
        out["hosts"] = s->hosts;
        out["decisions"] = {{"allowed", s->allowed},
                            {"denied", s->denied},
                            {"prompts", s->prompts},
                            {"timed_out", s->timeouts}};
        out["changed_files"] = s->changedFiles;
        out["limits_hit"] = s->limitsHit;
        out["refused"] = s->refusals;
        out["observed"] = s->observed;
        out["would_ask"] = s->wouldAsk;
        out["dropped_bytes"] = s->droppedBytes;
        out["model_requests"] = modelRequestsJson(*s);
        out["attempted_leaks"] = s->leaks;
        out["executions"] = std::move(*executions);
        std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
        return 0;
    }
    std::printf("session   %s (%s)\n", r.id.c_str(), std::string(recordStateName(r.state)).c_str());
    printLeaks(*s);
    std::printf("command   %s\n", joined(r.command).c_str());
    std::printf("workspace %s\n", r.workspace.c_str());
    std::printf("started   %s, ran %s, exit %s\n", localTime(r.startedNs / 1000000).c_str(),
                sb::formatDuration(r.durationNs()).c_str(),
                r.exitStatus ? std::to_string(*r.exitStatus).c_str() : "-");
    std::printf("output    %s in %llu events (%s stored)\n", humanBytes(r.outputBytes).c_str(),
                static_cast<unsigned long long>(r.events), humanBytes(r.storedBytes).c_str());
    std::printf("decisions %u allowed, %u denied (%u asked, %u of them unanswered in time)\n",
                s->allowed, s->denied, s->prompts, s->timeouts);
    if (s->observed)
        std::printf("observed  %u decision(s) would have asked (observe mode: allowed, nobody "
                    "asked)\n",
                    s->wouldAsk);
    printList("commands run", s->commands);
    if (!s->deniedCommands.empty()) printList("commands denied", s->deniedCommands);
    if (!s->refusals.empty()) printList("refused by the sandbox", s->refusals);
    printList("hosts contacted", s->hosts);
    printModelRequests(*s);
    printExecutions(*executions);
    // "M path": the path quoted as `changes` quotes it, so a newline in a name stays on its line.
    std::vector<std::string> changed;
    for (const std::string& item : s->changedFiles)
        changed.push_back(item.size() > 2 ? item.substr(0, 2) + sb::quotedPath(item.substr(2))
                                          : item);
    printList("changed files", changed);
    if (!s->limitsHit.empty()) printList("limits hit", s->limitsHit);
    if (s->droppedBytes > 0)
        std::printf("warning: %s of output were not recorded (the writer fell behind)\n",
                    humanBytes(s->droppedBytes).c_str());
    return 0;
}

int replayCommand(const RecordingArgs& args)
{
    sb::ReplayOptions options;
    options.speed = args.speed;
    for (auto [text, target] :
         {std::pair{&args.from, &options.fromNs}, {&args.to, &options.toNs}}) {
        if (text->empty()) continue;
        auto t = sb::parseDuration(*text);
        if (!t) return fail(t.error(), kUsageError);
        *target = *t;
    }
    auto store = openStore(args);
    if (!store) return fail(store.error());
    if (auto e = sb::replaySession(*store, args.session, options)) return fail(*e);
    return 0;
}

int searchCommand(const RecordingArgs& args)
{
    auto store = openStore(args);
    if (!store) return fail(store.error());
    auto hits = store->search(args.text, args.session, args.limit);
    if (!hits) return fail(hits.error());
    if (args.json) {
        json out = json::array();
        for (const auto& h : *hits)
            out.push_back({{"session", h.session}, {"t_ns", h.tNs}, {"snippet", h.snippet}});
        std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
        return 0;
    }
    for (const auto& h : *hits)
        std::printf("%s  %9s  %s\n", h.session.c_str(), sb::formatDuration(h.tNs).c_str(),
                    h.snippet.c_str());
    return hits->empty() ? kFailure : 0; // like grep: no match is a failure status
}

// The session's recording as a database of its own (RecordingCopy.h): to FILE, or written to a
// temporary file and then to standard output (the window fetches a remote one so).
int exportDatabase(sb::RecordingStore& store, const RecordingArgs& args)
{
    namespace fs = std::filesystem;
    const bool toStdout = args.output.empty() || args.output == "-";
    std::error_code ec;
    const fs::path file = toStdout ? fs::temp_directory_path(ec) /
                                         ("sandbench-export-" + std::to_string(::getpid()) + ".db")
                                   : fs::path(args.output + ".tmp-" + std::to_string(::getpid()));
    if (auto e = sb::copySessionRecording(store, args.session, file)) return fail(*e);
    if (!toStdout) {
        fs::rename(file, args.output, ec);
        if (ec) {
            fs::remove(file, ec);
            return fail("rename " + file.string() + " to " + args.output + ": " + ec.message());
        }
        return 0;
    }
    std::FILE* in = std::fopen(file.c_str(), "rb");
    fs::remove(file, ec); // read through the open file
    if (!in) return fail("open " + file.string() + ": " + std::strerror(errno));
    char buffer[1 << 16];
    bool written = true;
    for (std::size_t n; written && (n = std::fread(buffer, 1, sizeof buffer, in)) > 0;)
        written = std::fwrite(buffer, 1, n, stdout) == n;
    std::fclose(in);
    if (!written || std::fflush(stdout) != 0)
        return fail(std::string("write standard output: ") + std::strerror(errno));
    return 0;
}

int exportCommand(const RecordingArgs& args)
{
    if (args.format == "sqlite") {
        auto store = openStore(args);
        if (!store) return fail(store.error());
        return exportDatabase(*store, args);
    }
    sb::ExportFormat format;
    if (args.format == "asciicast")
        format = sb::ExportFormat::Asciicast;
    else if (args.format == "jsonl")
        format = sb::ExportFormat::JsonLines;
    else
        return fail("--format '" + args.format + "': use asciicast, jsonl or sqlite", kUsageError);
    auto store = openStore(args);
    if (!store) return fail(store.error());
    if (auto e = sb::exportSessionToFile(*store, args.session, format,
                                         args.output == "-" ? "" : args.output))
        return fail(*e);
    return 0;
}

// How many changes a session's folder holds for review; an error when that cannot be told (its
// project is gone, say).
sb::Result<std::size_t> pendingChanges(const sb::SessionInfo& session)
{
    auto changes = sb::listChanges(session.upperDir(), session.project);
    if (!changes) return changes.error();
    return changes->size();
}

// A folder named like the session without a valid session.json: removed unless a supervisor
// holds it, or it holds files and rm was not forced.
int rmLeftover(const RecordingArgs& args, const sb::LeftoverSessionFolder& left, bool recorded)
{
    if (left.live)
        return fail("the folder of session " + args.session +
                    " is in use by a running supervisor: stop it first");
    if (left.holdsFiles && !args.force)
        return fail("the folder of session " + args.session + " is not a valid session (" +
                    left.problem +
                    ") and holds files in its layer of changes: rm --force "
                    "removes them");
    if (auto e = sb::removeLeftoverSessionFolder(left)) return fail(*e);
    std::printf("removed session %s (%s)\n", args.session.c_str(),
                recorded ? "its recording and its folder, which had no valid session.json"
                         : "its folder, which had no valid session.json");
    return 0;
}

int rmCommand(const RecordingArgs& args)
{
    auto store = openStore(args);
    if (!store) return fail(store.error());
    auto session = sb::loadSession(args.session);
    if (!session)
        if (auto left = sb::leftoverSessionFolder(args.session)) {
            const bool recorded = static_cast<bool>(store->session(args.session));
            if (const int status = rmLeftover(args, *left, recorded); status != 0) return status;
            if (recorded)
                if (auto e = store->remove(args.session)) return fail(*e);
            return 0;
        }
    if (session) {
        if (sb::sessionIsLive(*session))
            return fail("session " + args.session + " is running: stop it first");
        auto pending = pendingChanges(*session);
        if (!args.force && (!pending || *pending > 0))
            return fail("session " + args.session + " holds " +
                        (pending
                             ? std::to_string(*pending) + " change(s)"
                             : "changes that cannot be read (" + pending.error().describe() + ")") +
                        " not applied or discarded: review them (changes, diff), then apply or "
                        "discard them; rm --force drops them");
        if (auto e = sb::removeSessionFolder(*session)) return fail(*e);
    }
    auto recorded = store->session(args.session);
    if (recorded) {
        if (auto e = store->remove(args.session)) return fail(*e);
    } else if (!session) {
        return fail("no session " + args.session + " (neither its folder nor its recording)");
    }
    std::printf("removed session %s (%s)\n", args.session.c_str(),
                session && recorded ? "its folder and recording"
                : session           ? "its folder"
                                    : "its recording");
    return 0;
}

int gcCommand(const RecordingArgs& args)
{
    auto options = sb::loadRetentionConfig();
    if (!options) return fail(options.error());
    if (args.maxSizeMb > 0) options->maxBytes = args.maxSizeMb << 20;
    if (args.maxAgeDays > 0)
        options->maxAgeNs = static_cast<std::int64_t>(args.maxAgeDays) * 86400 * 1'000'000'000;
    options->dryRun = args.dryRun;
    auto store = openStore(args);
    if (!store) return fail(store.error());
    auto report = store->gc(*options);
    if (!report) return fail(report.error());
    const char* remove = args.dryRun ? "would remove" : "removed";
    for (const auto& id : report->removed)
        std::printf("%s %s\n", remove, id.c_str());
    // A session's folder goes with its recording (or after it), once it has ended and holds no
    // change waiting for review; one that does stays, whatever its age.
    std::size_t folders = 0, kept = 0;
    for (const sb::SessionInfo& session : sb::listSessions()) {
        const bool recordingGone = std::find(report->removed.begin(), report->removed.end(),
                                             session.id) != report->removed.end() ||
                                   !store->session(session.id);
        if (!recordingGone || sb::sessionIsLive(session)) continue;
        auto pending = pendingChanges(session);
        if (!pending || *pending > 0) {
            ++kept;
            continue;
        }
        if (!args.dryRun)
            if (auto e = sb::removeSessionFolder(session)) {
                std::fprintf(stderr, "sandbench-cli: %s\n", e->describe().c_str());
                continue;
            }
        ++folders;
        std::printf("%s the folder of %s\n", remove, session.id.c_str());
    }
    // Folders without a valid session.json (a start that failed in an older version, a damaged
    // record): nothing can use them, and they block their ids.
    for (const sb::LeftoverSessionFolder& left : sb::leftoverSessionFolders()) {
        if (left.live) continue;
        if (left.holdsFiles) {
            std::fprintf(stderr,
                         "sandbench-cli: kept the folder of %s: not a valid session (%s), and "
                         "it holds files; 'rm %s --force' removes it\n",
                         left.id.c_str(), left.problem.c_str(), left.id.c_str());
            continue;
        }
        if (!args.dryRun)
            if (auto e = sb::removeLeftoverSessionFolder(left)) {
                std::fprintf(stderr, "sandbench-cli: %s\n", e->describe().c_str());
                continue;
            }
        ++folders;
        std::printf("%s the folder of %s (no valid session.json)\n", remove, left.id.c_str());
    }
    // The window's settings say the same two figures ("In use").
    std::printf("%s %s, %s kept (%s in recordings, %s on disk)",
                args.dryRun ? "would free" : "freed", humanBytes(report->freedBytes).c_str(),
                humanBytes(report->keptBytes).c_str(),
                humanBytes(report->freedBytes + report->keptBytes).c_str(),
                humanBytes(report->fileBytes).c_str());
    if (folders > 0)
        std::printf("; %s %zu session folder(s)", args.dryRun ? "would remove" : "removed",
                    folders);
    if (kept > 0) std::printf("; kept %zu session folder(s) with changes for review", kept);
    std::printf("\n");
    return 0;
}

CLI::App* addCommand(CLI::App& app, const char* name, const char* help,
                     std::shared_ptr<RecordingArgs> args, int (*handler)(const RecordingArgs&))
{
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("--db", args->db,
                    "Recording database (default: $SANDBENCH_RECORDINGS_DB, else "
                    "$XDG_DATA_HOME/sandbench/recordings.db)");
    cmd->callback([args, handler] { exitWith(handler(*args)); });
    return cmd;
}

} // namespace

void addRecordingCommands(CLI::App& app)
{
    auto args = std::make_shared<RecordingArgs>();
    CLI::App* sessions =
        addCommand(app, "sessions", "List recorded sessions", args, sessionsCommand);
    sessions->add_flag("--json", args->json, "Output as JSON");
    sessions->add_option("--since", args->since,
                         "Only sessions started since: a duration ago (2h, 7d) or a date");
    sessions->add_option("--state", args->state,
                         "running, ended or interrupted; or forked or stopped: sessions with "
                         "changes and no recording (forks, and those whose recording is gone), "
                         "listed after the recorded ones");

    CLI::App* show = addCommand(app, "show",
                                "Summarise a session: command, duration, exit, commands run, "
                                "hosts, approvals, changed files",
                                args, showCommand);
    show->add_option("session", args->session, "Session id")->required();
    show->add_flag("--json", args->json, "Output as JSON");

    CLI::App* replay = addCommand(app, "replay", "Replay a session's terminal with its timing",
                                  args, replayCommand);
    replay->add_option("session", args->session, "Session id")->required();
    replay->add_option("--speed", args->speed, "Speed factor (2 = twice as fast)");
    replay->add_option("--from", args->from, "Start at this time into the session (90, 1m30s)");
    replay->add_option("--to", args->to, "Stop at this time into the session");

    CLI::App* search =
        addCommand(app, "search", "Find text in recorded terminal output", args, searchCommand);
    search->add_option("text", args->text, "Words to find (the last may be a prefix)")->required();
    search->add_option("--session", args->session, "Only in this session");
    search->add_option("--limit", args->limit, "At most this many matches (default 50)");
    search->add_flag("--json", args->json, "Output as JSON");

    CLI::App* exp = addCommand(app, "export",
                               "Export a session as asciicast v2, JSON Lines or a recording "
                               "database of its own (sqlite)",
                               args, exportCommand);
    exp->add_option("session", args->session, "Session id")->required();
    exp->add_option("--format", args->format, "asciicast, jsonl or sqlite")->required();
    exp->add_option("-o,--output", args->output, "Write to FILE (atomically; default: stdout)");

    CLI::App* rm = addCommand(app, "rm",
                              "Delete a session: its recording and its folder (refused while it "
                              "holds changes not applied or discarded, unless --force)",
                              args, rmCommand);
    rm->add_option("session", args->session, "Session id")->required();
    rm->add_flag("--force", args->force, "Delete it with the changes it still holds");

    CLI::App* gc = addCommand(app, "gc",
                              "Delete old recordings beyond the size or age limit (defaults "
                              "from ~/.config/sandbench/recordings.json: 2048 MB, 90 days), and "
                              "the folders of sessions without a recording or changes left",
                              args, gcCommand);
    gc->add_option("--max-size", args->maxSizeMb, "Keep at most this many MB of recordings");
    gc->add_option("--max-age", args->maxAgeDays, "Delete recordings older than this many days");
    gc->add_flag("--dry-run", args->dryRun, "Only say what would be deleted");
}

} // namespace sbcli
