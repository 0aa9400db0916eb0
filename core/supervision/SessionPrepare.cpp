// Everything checked before a session starts, worked out once (PreparedRun): the workspace and
// where the sandbox sees it, a session to resume, the files that run later, the exposures, the
// policy with its learned rules, the system's root.
#include "base/Paths.h"
#include "image/ImageStore.h"
#include "policy/Exposure.h"
#include "policy/LearnedRules.h"
#include "supervision/SessionResume.h"
#include "supervision/Supervisor.h"

namespace sb {
namespace fs = std::filesystem;

namespace {

const char* const kSystemFolders[] = {"/",     "/usr", "/etc", "/bin",  "/sbin", "/lib", "/lib64",
                                      "/proc", "/sys", "/dev", "/boot", "/var",  "/run"};

Result<fs::path> checkWorkspace(const fs::path& workspace)
{
    std::error_code ec;
    fs::path real = fs::canonical(workspace, ec);
    if (ec) return inputError("workspace " + workspace.string() + ": " + ec.message());
    if (!fs::is_directory(real, ec))
        return inputError("workspace " + workspace.string() + " is not a folder");
    for (const char* system : kSystemFolders)
        if (real == system)
            return inputError("workspace " + real.string() +
                              " is a system folder; choose a project folder");
    return real;
}

// A place for the workspace that the sandbox's own folders do not claim.
Status checkWorkspaceInside(const fs::path& inside)
{
    if (inside.empty()) return {};
    const std::string shown = "the workspace's path inside the sandbox '" + inside.string() + "'";
    if (!inside.is_absolute() || inside != inside.lexically_normal() || inside == "/" ||
        inside.filename().empty())
        return inputError(shown + " must be an absolute, normal path below /");
    const std::string top = (*std::next(inside.begin())).string();
    for (const char* system : {"usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
                               "opt", "proc", "dev", "sys", "run", "tmp", "boot", "var"})
        if (top == system)
            return inputError(shown + " lies in /" + top + ", which the sandbox builds itself");
    return {};
}

// The policy's parts, for the session loop that enforces it and tells clients about it.
Result<RunningPolicy> runningPolicyOf(const RunOptions& options)
{
    LearnedRules learned;
    if (!options.learnedRulesFile.empty()) {
        auto loaded = loadLearnedRules(options.learnedRulesFile);
        if (!loaded) return loaded.error();
        learned = std::move(*loaded);
    }
    // Absolute: clients that edit these files do not share the supervisor's working folder.
    auto absolute = [](const fs::path& p) { return p.empty() ? p : fs::absolute(p); };
    return RunningPolicy(
        options.policy, std::move(learned),
        {absolute(options.policyFile), options.policyPreset, absolute(options.learnedRulesFile)});
}

// The list of files that run later this session holds back: the policy's, what the project's
// git configuration names, and the session's own policy files when they lie in the project.
Result<RunLaterRules> runLaterOf(const RunOptions& options, const fs::path& workspace)
{
    auto rules = RunLaterRules::make(options.policy.filesystem.runLater);
    if (!rules) return rules.error();
    rules->addProjectConfiguration(workspace);
    for (const fs::path& file : {options.policyFile, options.learnedRulesFile}) {
        if (file.empty()) continue;
        std::error_code ec;
        const fs::path rel = fs::weakly_canonical(file, ec).lexically_relative(workspace);
        if (!ec && !rel.empty() && rel.begin()->string() != "..")
            rules->addProjectPath(rel.generic_string(),
                                  "Sandbench: this session's policy, what later sessions may do");
    }
    return rules;
}

} // namespace

Result<PreparedRun> prepareRun(const RunOptions& options)
{
    if (options.command.empty() && !options.programmable)
        return inputError("no command to run (put it after --)");
    if (!options.sessionId.empty())
        if (auto e = checkNewSessionId(options.sessionId)) return *e;
    if (auto e = checkWorkspaceInside(options.workspaceInside)) return *e;
    std::optional<SessionInfo> resumed;
    if (!options.resumeFrom.empty()) {
        auto old = checkResumable(options.resumeFrom, options.workspace);
        if (!old) return old.error();
        resumed = std::move(*old);
    }
    auto workspace =
        checkWorkspace(resumed && options.workspace.empty() ? resumed->project : options.workspace);
    if (!workspace) return workspace.error();
    auto runLater = runLaterOf(options, *workspace);
    if (!runLater) return runLater.error();
    const fs::path home = homeDirectory();
    // One that cannot be made (a read-only file system, a folder of another user) cannot be
    // made from inside either; the start then fails where it needs it, naming it (exit 125).
    (void)makeOwnDirectories();
    const std::vector<fs::path> own = ownDirectories();
    auto plan = planExposures(options.policy.filesystem, home, *runLater, own);
    if (!plan) return plan.error();
    auto projectMasks = planProjectMasks(*workspace, home, own);
    if (!projectMasks) return projectMasks.error();
    plan->masks.insert(plan->masks.end(), projectMasks->begin(), projectMasks->end());
    auto running = runningPolicyOf(options);
    if (!running) return running.error();
    auto systemRoot = resolveSystemRoot(options.policy.filesystem.root);
    if (!systemRoot) return systemRoot.error().within("the policy's filesystem.root");
    return PreparedRun{std::move(*workspace), std::move(*plan),       std::move(*running),
                       std::move(*runLater),  std::move(*systemRoot), std::move(resumed)};
}

Status checkRunnable(const RunOptions& options)
{
    if (auto prepared = prepareRun(options); !prepared) return prepared.error();
    return {};
}

} // namespace sb
