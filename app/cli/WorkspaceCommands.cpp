// changes / diff / apply / discard: reviewing what a session did to the project.
#include "Commands.h"
#include "base/Session.h"
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
};

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

int changesCommand(const WorkspaceArgs& args)
{
    auto session = sb::loadSession(args.session);
    if (!session) return fail(session.error());
    auto changes = sb::listChanges(session->upperDir(), session->project);
    if (!changes) return fail(changes.error());
    if (args.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& c : *changes)
            out.push_back({{"path", c.path},
                           {"kind", kindName(c.kind)},
                           {"type", typeName(c.type)},
                           {"size", c.size}});
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    }
    static const char marks[] = {'A', 'M', 'D'};
    for (const auto& c : *changes)
        std::printf("%c %s%s\n", marks[static_cast<int>(c.kind)], c.path.c_str(),
                    c.type == sb::EntryType::Directory ? "/" : "");
    return 0;
}

int diffCommand(const WorkspaceArgs& args)
{
    auto session = sb::loadSession(args.session);
    if (!session) return fail(session.error());
    auto diff = sb::unifiedDiff(session->upperDir(), session->project, args.paths);
    if (!diff) return fail(diff.error());
    std::fwrite(diff->data(), 1, diff->size(), stdout);
    return 0;
}

// The overlay's layers must not change under a running session: wait for it to end.
sb::Result<int> holdSession(const sb::SessionInfo& session, bool noWait)
{
    if (sb::sessionIsLive(session)) {
        if (noWait)
            return sb::Error{sb::ErrorCode::Conflict, 0,
                             "session " + session.id + " is still running"};
        std::fprintf(stderr, "sandbench: waiting for session %s to end…\n", session.id.c_str());
    }
    return sb::waitForSessionEnd(session);
}

int applyCommand(const WorkspaceArgs& args)
{
    auto session = sb::loadSession(args.session);
    if (!session) return fail(session.error());
    auto lock = holdSession(*session, args.noWait);
    if (!lock) return fail(lock.error());
    sb::ApplyOptions options{args.paths, args.force, session->startedNs};
    auto report = sb::applyChanges(session->upperDir(), session->project, options);
    ::close(*lock);
    if (!report) return fail(report.error());
    for (const auto& path : report->applied)
        std::printf("applied  %s\n", path.c_str());
    for (const auto& issue : report->skipped)
        std::printf("skipped  %s: %s\n", issue.path.c_str(), issue.reason.c_str());
    for (const auto& issue : report->conflicts)
        std::printf("conflict %s: %s\n", issue.path.c_str(), issue.reason.c_str());
    if (!report->conflicts.empty())
        return fail(std::to_string(report->conflicts.size()) +
                    " conflict(s): the real files changed since the session began; review them, "
                    "then apply with --force to overwrite");
    return report->skipped.empty() ? 0 : kFailure;
}

int discardCommand(const WorkspaceArgs& args)
{
    auto session = sb::loadSession(args.session);
    if (!session) return fail(session.error());
    auto lock = holdSession(*session, args.noWait);
    if (!lock) return fail(lock.error());
    auto discarded = sb::discardChanges(session->upperDir(), args.paths);
    ::close(*lock);
    if (!discarded) return fail(discarded.error());
    for (const auto& path : *discarded)
        std::printf("discarded %s\n", path.c_str());
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
    addSessionCommand(app, "discard", "Drop the session's changes (all, or the given paths)", args,
                      discardCommand, true)
        ->add_flag("--no-wait", args->noWait, "Fail instead of waiting for a running session");
}

} // namespace sbcli
