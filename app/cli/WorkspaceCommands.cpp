// changes / diff / apply / discard: reviewing what a session did to the project.
#include "Commands.h"
#include "base/Bytes.h"
#include "base/Paths.h"
#include "base/Session.h"
#include "base/SessionChain.h"
#include "supervision/SessionReview.h"
#include "workspace/Workspace.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace sbcli {
namespace {

struct WorkspaceArgs {
    std::string session;
    std::vector<std::string> paths;
    bool json = false;
    bool force = false;
    bool noWait = false;
    bool runLater = false;
};

// apply's status when it wrote everything else but held files that run later back.
constexpr int kHeldBack = 3;

const char* kindName(sb::ChangeKind kind)
{
    switch (kind) {
    case sb::ChangeKind::Added:
        return "added";
    case sb::ChangeKind::Modified:
        return "modified";
    case sb::ChangeKind::Deleted:
        return "deleted";
    }
    return "?";
}

const char* typeName(sb::EntryType type)
{
    switch (type) {
    case sb::EntryType::File:
        return "file";
    case sb::EntryType::Directory:
        return "directory";
    case sb::EntryType::Symlink:
        return "symlink";
    case sb::EntryType::Other:
        return "other";
    }
    return "?";
}

} // namespace

sb::Result<sb::SessionChain> followChain(const std::string& id, const char* acting)
{
    auto chain = sb::loadSessionChain(id);
    if (chain && chain->followed())
        std::fprintf(stderr,
                     "sandbench-cli: the changes of session %s went on in session %s (resumed): "
                     "%s %s\n",
                     id.c_str(), chain->current().id.c_str(), acting, chain->current().id.c_str());
    return chain;
}

namespace {

// The session whose changes are reviewed: the current one of the chain `id` belongs to.
sb::Result<sb::SessionInfo> loadReviewed(const std::string& id, const char* acting)
{
    auto chain = followChain(id, acting);
    if (!chain) return chain.error();
    return chain->current();
}

int changesCommand(const WorkspaceArgs& args)
{
    auto session = loadReviewed(args.session, "listing those of");
    if (!session) return fail(session.error());
    auto changes = sb::listChanges(session->upperDir(), session->project);
    if (!changes) return fail(changes.error());
    auto rules = sb::sessionRunLaterRules(*session);
    if (!rules) return fail(rules.error());
    sb::markRunLater(*changes, *rules, session->project, sb::homeDirectory());
    if (args.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& c : *changes) {
            nlohmann::json entry = {
                {"kind", kindName(c.kind)}, {"type", typeName(c.type)}, {"size", c.size}};
            sb::putBytes(entry, "path", c.path);
            if (c.runLater)
                entry["run_later"] = {{"pattern", c.runLater->pattern},
                                      {"reason", c.runLater->reason}};
            out.push_back(std::move(entry));
        }
        std::printf("%s\n", sb::dumpJson(out, 2).c_str());
        return 0;
    }
    static const char marks[] = {'A', 'M', 'D'};
    for (const auto& c : *changes) {
        const std::string shown =
            sb::quotedPath(c.type == sb::EntryType::Directory ? c.path + "/" : c.path);
        std::printf("%c%s %s", marks[static_cast<int>(c.kind)], c.runLater ? "!" : "",
                    shown.c_str());
        if (c.runLater) std::printf("\t(runs later: %s)", c.runLater->reason.c_str());
        std::printf("\n");
    }
    return 0;
}

int diffCommand(const WorkspaceArgs& args)
{
    auto session = loadReviewed(args.session, "showing those of");
    if (!session) return fail(session.error());
    auto rules = sb::sessionRunLaterRules(*session);
    if (!rules) return fail(rules.error());
    auto diff = sb::unifiedDiff(session->upperDir(), session->project, args.paths, &*rules,
                                sb::homeDirectory());
    if (!diff) return fail(diff.error());
    std::fwrite(diff->data(), 1, diff->size(), stdout);
    return 0;
}

// The overlay's layers must not change under a running session: wait for it to end.
sb::Result<sb::UniqueFd> holdSession(const sb::SessionInfo& session, bool noWait)
{
    if (sb::sessionIsLive(session)) {
        if (noWait)
            return sb::Error{sb::ErrorCode::Conflict, 0,
                             "session " + session.id + " is still running"};
        std::fprintf(stderr, "sandbench: waiting for session %s to end…\n", session.id.c_str());
    }
    return sb::waitForSessionEnd(session);
}

nlohmann::json issuesJson(const std::vector<sb::ApplyIssue>& issues)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : issues)
        out.push_back({{"path", i.path}, {"reason", i.reason}});
    return out;
}

int applyCommand(const WorkspaceArgs& args)
{
    if (args.runLater && args.paths.empty())
        return fail("--run-later applies only the files you name: give their paths "
                    "(see `sandbench-cli changes SESSION`, marked '!')",
                    kUsageError);
    auto session = loadReviewed(args.session, "applying those of");
    if (!session) return fail(session.error());
    auto lock = holdSession(*session, args.noWait);
    if (!lock) return fail(lock.error());
    sb::ApplyOptions options;
    options.paths = args.paths;
    options.force = args.force;
    options.sessionStartNs = session->changesBaseNs();
    options.includeRunLater = args.runLater;
    std::string notRecorded;
    // Where it writes, said before it writes.
    std::fprintf(stderr, "sandbench-cli: applying session %s's changes to %s\n",
                 session->id.c_str(), sb::quotedPath(session->project.string()).c_str());
    auto report = sb::applySessionChanges(*session, options, {}, &notRecorded);
    lock->reset();
    if (!report) return fail(report.error());
    if (!notRecorded.empty())
        std::fprintf(stderr,
                     "sandbench-cli: warning: what was held back is not in the recording: %s\n",
                     notRecorded.c_str());
    if (args.json) {
        nlohmann::json out = {{"project", session->project.string()},
                              {"applied", report->applied},
                              {"held", issuesJson(report->held)},
                              {"conflicts", issuesJson(report->conflicts)},
                              {"skipped", issuesJson(report->skipped)}};
        std::printf("%s\n", sb::dumpJson(out, 2).c_str());
    } else {
        for (const auto& path : report->applied)
            std::printf("applied  %s\n", sb::quotedPath(path).c_str());
        for (const auto& issue : report->held)
            std::printf("held     %s: runs later (%s)\n", sb::quotedPath(issue.path).c_str(),
                        issue.reason.c_str());
        for (const auto& issue : report->skipped)
            std::printf("skipped  %s: %s\n", sb::quotedPath(issue.path).c_str(),
                        issue.reason.c_str());
        for (const auto& issue : report->conflicts)
            std::printf("conflict %s: %s\n", sb::quotedPath(issue.path).c_str(),
                        issue.reason.c_str());
    }
    if (!report->conflicts.empty())
        return fail(std::to_string(report->conflicts.size()) +
                    " conflict(s): the real files changed since the session began; review them, "
                    "then apply with --force to overwrite");
    if (!report->skipped.empty()) return kFailure;
    if (!report->held.empty()) {
        std::fprintf(stderr,
                     "sandbench-cli: %zu file(s) that run later held back: review them "
                     "(sandbench-cli diff %s PATH), then apply each with "
                     "`sandbench-cli apply %s PATH --run-later`\n",
                     report->held.size(), session->id.c_str(), session->id.c_str());
        return kHeldBack;
    }
    return 0;
}

int discardCommand(const WorkspaceArgs& args)
{
    auto session = loadReviewed(args.session, "discarding those of");
    if (!session) return fail(session.error());
    auto lock = holdSession(*session, args.noWait);
    if (!lock) return fail(lock.error());
    auto discarded = sb::discardChanges(session->upperDir(), args.paths);
    lock->reset();
    if (!discarded) return fail(discarded.error());
    for (const auto& path : *discarded)
        std::printf("discarded %s\n", sb::quotedPath(path).c_str());
    return 0;
}

CLI::App* addSessionCommand(CLI::App& app, const char* name, const char* help,
                            std::shared_ptr<WorkspaceArgs> args,
                            int (*handler)(const WorkspaceArgs&), bool takesPaths)
{
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("session", args->session, "Session id")->required();
    if (takesPaths)
        cmd->add_option("paths", args->paths, "Paths relative to the workspace (default: all)");
    cmd->callback([args, handler] { exitWith(handler(*args)); });
    return cmd;
}

} // namespace

void addWorkspaceCommands(CLI::App& app)
{
    auto args = std::make_shared<WorkspaceArgs>();
    addSessionCommand(app, "changes", "List what the session added, modified and deleted", args,
                      changesCommand, false)
        ->add_flag("--json", args->json, "Output as JSON");
    addSessionCommand(app, "diff", "Show the session's changes as a unified diff", args,
                      diffCommand, true);
    CLI::App* apply = addSessionCommand(
        app, "apply",
        "Write the session's changes into the real project (waits for a running session to end)",
        args, applyCommand, true);
    apply->add_flag("--force", args->force,
                    "Overwrite real files that changed since the session began");
    apply->add_flag("--no-wait", args->noWait, "Fail instead of waiting for a running session");
    apply->add_flag("--run-later", args->runLater,
                    "Also write the named files that run later (marked '!' by changes), which a "
                    "plain apply holds back");
    apply->add_flag("--json", args->json, "Report as JSON (applied, held, conflicts, skipped)");
    addSessionCommand(app, "discard", "Drop the session's changes (all, or the given paths)", args,
                      discardCommand, true)
        ->add_flag("--no-wait", args->noWait, "Fail instead of waiting for a running session");
}

} // namespace sbcli
