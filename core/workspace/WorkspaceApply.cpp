// applyChanges: writing the session's changes into the real project without ever leaving it.
//
// Every real path is reached from a descriptor of the project root with openat2 and
// RESOLVE_NO_SYMLINKS, then changed with *at() calls on the final name only, so a symlink in
// the project (planted before or swapped in during the session) is never written through.
#include "base/Paths.h"
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/random.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {

using namespace ws;

namespace {

std::string tempName()
{
    unsigned char bytes[8] = {};
    if (::getrandom(bytes, sizeof bytes, 0) != sizeof bytes) ::arc4random_buf(bytes, sizeof bytes);
    static const char* hex = "0123456789abcdef";
    std::string name = ".sandbench-apply-";
    for (unsigned char b : bytes) {
        name += hex[b >> 4];
        name += hex[b & 15];
    }
    return name;
}

Error conflictError(std::string message)
{
    return Error{ErrorCode::Conflict, 0, std::move(message)};
}

class Applier {
  public:
    Applier(int upperFd, int projectFd, const ApplyOptions& options)
        : m_upper(upperFd), m_project(projectFd), m_options(options)
    {
    }

    void apply(const ScannedChange& sc);
    void hold(std::vector<ApplyIssue> held) { m_report.held = std::move(held); }
    void finishDirectoryModes();
    void tidyUpper();
    ApplyReport takeReport() { return std::move(m_report); }

  private:
    std::optional<ApplyIssue> conflictReason(const ScannedChange& sc, int parentFd,
                                             const std::optional<struct statx>& real);
    std::optional<ApplyIssue> newerInside(int parentFd, const std::string& name,
                                          const std::string& rel);
    Status applyFile(const ScannedChange& sc, int parentFd, const std::string& name,
                     const std::optional<struct statx>& real);
    Status applySymlink(const ScannedChange& sc, int parentFd, const std::string& name,
                        const std::optional<struct statx>& real);
    Status applyDirectory(const ScannedChange& sc, int parentFd, const std::string& name,
                          const std::optional<struct statx>& real);
    Status install(int parentFd, const std::string& temp, const std::string& name,
                   const std::optional<struct statx>& real);
    void fail(const ScannedChange& sc, const Error& error);

    int m_upper;
    int m_project;
    const ApplyOptions& m_options;
    ApplyReport m_report;
    std::vector<std::string> m_failedDirs;                  // their contents must wait
    std::vector<std::pair<std::string, mode_t>> m_dirModes; // set last: 0555 would block filling
    std::vector<std::string> m_wouldCreate;                 // a dry run's new directories
};

void Applier::fail(const ScannedChange& sc, const Error& error)
{
    if (error.code == ErrorCode::Conflict)
        m_report.conflicts.push_back({sc.change.path, error.describe()});
    else
        m_report.skipped.push_back({sc.change.path, error.describe()});
    if (sc.change.type == EntryType::Directory && sc.change.kind != ChangeKind::Deleted)
        m_failedDirs.push_back(sc.change.path);
}

void Applier::apply(const ScannedChange& sc)
{
    const Change& c = sc.change;
    for (const auto& dir : m_failedDirs) {
        if (isUnder(c.path, dir))
            return fail(
                sc, Error{ErrorCode::Internal, 0, "its directory '" + dir + "' was not applied"});
    }
    if (c.kind != ChangeKind::Deleted && c.type == EntryType::Other)
        return fail(sc, Error{ErrorCode::Internal, 0,
                              std::string("the session made ") + describeType(sc.upperMode) +
                                  " here; special files are never applied"});

    auto [parent, name] = splitParent(c.path);
    // A dry run creates no directory, so what it would put inside a new one has no real side.
    for (const auto& dir : m_wouldCreate) {
        if (isUnder(c.path, dir)) {
            m_report.applied.push_back(c.path);
            return;
        }
    }
    UniqueFd parentFd(openBeneath(m_project, parent, O_RDONLY | O_DIRECTORY));
    if (!parentFd.valid()) {
        int err = errno;
        if (err == ENOENT && c.kind == ChangeKind::Deleted) {
            m_report.applied.push_back(c.path); // already gone from the project
            return;
        }
        if (err == ELOOP || err == ENOTDIR || err == EXDEV)
            return fail(sc, conflictError("'" + parent +
                                          "' in the project is a symlink or not a directory; "
                                          "refusing to write through it"));
        return fail(sc, sysError("open '" + parent + "' in the project", err));
    }
    auto real = statAt(parentFd.get(), name);
    if (!real && errno != ENOENT) return fail(sc, sysError("stat '" + c.path + "' in the project"));
    if (auto why = conflictReason(sc, parentFd.get(), real); why && !m_options.force) {
        fail(sc, conflictError(why->reason));
        m_report.conflicts.back().why = why->why;
        m_report.conflicts.back().subject = std::move(why->subject);
        return;
    }
    if (m_options.dryRun) {
        if (c.kind != ChangeKind::Deleted && c.type == EntryType::Directory &&
            (!real || !S_ISDIR(real->stx_mode)))
            m_wouldCreate.push_back(c.path);
        m_report.applied.push_back(c.path);
        return;
    }

    Status status;
    if (c.kind == ChangeKind::Deleted)
        status = real ? removeTree(parentFd.get(), name) : Status{};
    else if (c.type == EntryType::Directory)
        status = applyDirectory(sc, parentFd.get(), name, real);
    else if (c.type == EntryType::Symlink)
        status = applySymlink(sc, parentFd.get(), name, real);
    else
        status = applyFile(sc, parentFd.get(), name, real);
    if (status) return fail(sc, *status);
    if (::fsync(parentFd.get()) != 0 && errno != EINVAL)
        return fail(sc, sysError("fsync '" + parent + "'"));
    m_report.applied.push_back(c.path);
}

std::optional<ApplyIssue> Applier::conflictReason(const ScannedChange& sc, int parentFd,
                                                  const std::optional<struct statx>& real)
{
    using Why = ApplyIssue::Why;
    const Change& c = sc.change;
    const std::int64_t start = m_options.sessionStartNs;
    if (!real)
        return c.kind == ChangeKind::Modified
                   ? std::optional<ApplyIssue>(
                         ApplyIssue{c.path,
                                    "removed from the project since the session started",
                                    Why::RemovedInProject,
                                    {}})
                   : std::nullopt;
    if (ctimeNs(*real) > start)
        return c.kind == ChangeKind::Added
                   ? ApplyIssue{c.path,
                                "created in the project since the session started",
                                Why::CreatedInProject,
                                {}}
                   : ApplyIssue{c.path,
                                "changed in the project since the session started",
                                Why::ChangedInProject,
                                {}};
    if (c.kind == ChangeKind::Deleted) {
        // Deleting a directory deletes everything in it: none of that may be newer either.
        if (S_ISDIR(real->stx_mode))
            return newerInside(parentFd, splitParent(c.path).second, c.path);
        return std::nullopt;
    }
    // A change of type is the session's own (the real entry is as old as the session): only a
    // directory it replaced may hold something newer, which replacing it would delete.
    if (entryType(real->stx_mode) != c.type && S_ISDIR(real->stx_mode))
        return newerInside(parentFd, splitParent(c.path).second, c.path);
    return std::nullopt;
}

std::optional<ApplyIssue> Applier::newerInside(int parentFd, const std::string& name,
                                               const std::string& rel)
{
    using Why = ApplyIssue::Why;
    auto unreadable = [&](const std::string& why) {
        return ApplyIssue{rel, "cannot read '" + rel + "' in the project: " + why,
                          Why::UnreadableInProject, rel};
    };
    UniqueFd dir(::openat(parentFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) return unreadable(std::strerror(errno));
    auto names = listDir(dir.get());
    if (!names) return unreadable(names.error().describe());
    for (const auto& child : *names) {
        auto st = statAt(dir.get(), child);
        if (!st) continue;
        std::string childRel = joinPath(rel, child);
        if (ctimeNs(*st) > m_options.sessionStartNs)
            return ApplyIssue{childRel,
                              "'" + childRel + "' changed in the project since the session started",
                              Why::ChangedInsideInProject, childRel};
        if (S_ISDIR(st->stx_mode))
            if (auto why = newerInside(dir.get(), child, childRel)) return why;
    }
    return std::nullopt;
}

Status Applier::applyFile(const ScannedChange& sc, int parentFd, const std::string& name,
                          const std::optional<struct statx>& real)
{
    const std::string& rel = sc.change.path;
    // O_NONBLOCK: if the entry were swapped for a FIFO, opening it must not hang the apply.
    UniqueFd source(openBeneath(m_upper, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
    if (!source.valid()) return sysError("open '" + rel + "' in the session");
    struct stat st {};
    if (::fstat(source.get(), &st) != 0) return sysError("stat '" + rel + "' in the session");
    if (!S_ISREG(st.st_mode))
        return Error{ErrorCode::Internal, 0, "'" + rel + "' is no longer a regular file"};

    std::string temp = tempName();
    UniqueFd target(::openat(parentFd, temp.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!target.valid()) return sysError("create a temporary file beside '" + rel + "'");
    Status status = copyContent(source.get(), target.get());
    // Never setuid, setgid or sticky: the agent must not mint privileged files for the user.
    if (!status && ::fchmod(target.get(), st.st_mode & 0777) != 0) status = sysError("chmod");
    if (!status && ::fsync(target.get()) != 0) status = sysError("fsync");
    target.reset();
    if (status) {
        ::unlinkat(parentFd, temp.c_str(), 0);
        return status->within("write '" + rel + "'");
    }
    return install(parentFd, temp, name, real);
}

Status Applier::applySymlink(const ScannedChange& sc, int parentFd, const std::string& name,
                             const std::optional<struct statx>& real)
{
    const std::string& rel = sc.change.path;
    auto target = readLinkBeneath(m_upper, rel);
    if (!target) return target.error();
    std::string temp = tempName();
    if (::symlinkat(target->c_str(), parentFd, temp.c_str()) != 0)
        return sysError("create symlink beside '" + rel + "'");
    return install(parentFd, temp, name, real);
}

// Moves the finished temporary over `name`: readers see the old entry or the new one, never
// a half-written file.
Status Applier::install(int parentFd, const std::string& temp, const std::string& name,
                        const std::optional<struct statx>& real)
{
    std::optional<struct statx> current = real;
    if (current && S_ISDIR(current->stx_mode)) {
        // The session turned a directory into a file or symlink.
        if (auto e = removeTree(parentFd, name)) {
            ::unlinkat(parentFd, temp.c_str(), 0);
            return e;
        }
        current.reset();
    }
    int rc = current
                 ? ::renameat(parentFd, temp.c_str(), parentFd, name.c_str())
                 : ::renameat2(parentFd, temp.c_str(), parentFd, name.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && !current && errno == EINVAL)
        rc = ::renameat(parentFd, temp.c_str(), parentFd, name.c_str());
    if (rc != 0) {
        int err = errno;
        ::unlinkat(parentFd, temp.c_str(), 0);
        if (err == EEXIST)
            return conflictError("'" + name + "' appeared in the project during the apply");
        return sysError("move '" + name + "' into place", err);
    }
    return {};
}

Status Applier::applyDirectory(const ScannedChange& sc, int parentFd, const std::string& name,
                               const std::optional<struct statx>& real)
{
    const std::string& rel = sc.change.path;
    if (real && !S_ISDIR(real->stx_mode)) {
        // The session replaced a file or symlink by a directory. Removing the symlink itself
        // (unlinkat never follows) is what keeps its target untouched.
        if (::unlinkat(parentFd, name.c_str(), 0) != 0)
            return sysError("remove '" + rel + "' from the project");
    }
    if (!real || !S_ISDIR(real->stx_mode)) {
        if (::mkdirat(parentFd, name.c_str(), 0700) != 0)
            return errno == EEXIST ? Status{conflictError(
                                         "'" + rel + "' appeared in the project during the apply")}
                                   : Status{sysError("create directory '" + rel + "'")};
    }
    m_dirModes.emplace_back(rel, sc.upperMode & 0777);
    return {};
}

void Applier::finishDirectoryModes()
{
    std::sort(m_dirModes.begin(), m_dirModes.end(),
              [](const auto& a, const auto& b) { return depth(a.first) > depth(b.first); });
    for (const auto& [rel, mode] : m_dirModes) {
        UniqueFd dir(openBeneath(m_project, rel, O_RDONLY | O_DIRECTORY));
        if (!dir.valid() || ::fchmod(dir.get(), mode) != 0)
            m_report.skipped.push_back({rel, std::string("applied, but setting its mode failed: ") +
                                                 std::strerror(errno)});
    }
}

// Takes what was applied out of the upper layer, keeping the overlay's view equal to what it
// was: an opaque directory hides the real one, so it may lose its opacity (and with it the
// upper copies of applied entries inside) only once no real entry it hides is left over.
void Applier::tidyUpper()
{
    auto rescan = scanWorkspace(m_upper, m_project);
    if (!rescan) {
        m_report.skipped.push_back(
            {"", "applied, but could not tidy the session's layer: " + rescan.error().describe()});
        return;
    }
    std::vector<std::string> stillOpaque;
    for (const auto& dir : rescan->opaqueDirs) {
        bool hiding =
            std::any_of(rescan->changes.begin(), rescan->changes.end(), [&](const auto& c) {
                return c.change.kind == ChangeKind::Deleted && !c.whiteout &&
                       isUnder(c.change.path, dir);
            });
        UniqueFd realDir(openBeneath(m_project, dir, O_PATH | O_DIRECTORY));
        UniqueFd upperDir(openBeneath(m_upper, dir, O_RDONLY | O_DIRECTORY));
        bool cleared = !hiding && realDir.valid() && upperDir.valid();
        // Only touch the markers present: an unprivileged caller may not even probe trusted.*.
        for (const char* attr : {"user.overlay.opaque", "trusted.overlay.opaque"})
            if (cleared && ::fgetxattr(upperDir.get(), attr, nullptr, 0) >= 0 &&
                ::fremovexattr(upperDir.get(), attr) != 0 && errno != ENODATA)
                cleared = false;
        if (!cleared) stillOpaque.push_back(dir);
    }
    auto keep = [&](const std::string& rel) {
        return std::any_of(stillOpaque.begin(), stillOpaque.end(),
                           [&](const std::string& d) { return isUnder(rel, d); });
    };

    std::vector<std::string> applied = m_report.applied;
    std::sort(applied.begin(), applied.end(),
              [](const std::string& a, const std::string& b) { return pathLess(b, a); });
    std::vector<std::string> ancestors;
    for (const auto& rel : applied) {
        for (std::string dir = splitParent(rel).first; !dir.empty(); dir = splitParent(dir).first)
            ancestors.push_back(dir);
        if (keep(rel)) continue;
        auto [parent, name] = splitParent(rel);
        UniqueFd upperParent(openBeneath(m_upper, parent, O_RDONLY | O_DIRECTORY));
        auto st = upperParent.valid() ? statAt(upperParent.get(), name) : std::nullopt;
        if (!st) continue; // an opaque directory's deletion has no upper entry
        // A directory still holding unapplied changes stays (rmdir refuses a non-empty one).
        ::unlinkat(upperParent.get(), name.c_str(), S_ISDIR(st->stx_mode) ? AT_REMOVEDIR : 0);
    }
    // Containers emptied by the apply go too, deepest first, unless they are still a change.
    std::sort(ancestors.begin(), ancestors.end(),
              [](const std::string& a, const std::string& b) { return pathLess(b, a); });
    ancestors.erase(std::unique(ancestors.begin(), ancestors.end()), ancestors.end());
    for (const auto& dir : ancestors) {
        if (keep(dir)) continue;
        UniqueFd realDir(openBeneath(m_project, dir, O_PATH | O_DIRECTORY));
        UniqueFd upperDir(openBeneath(m_upper, dir, O_RDONLY | O_DIRECTORY));
        if (!realDir.valid() || !upperDir.valid() || isOpaque(upperDir.get())) continue;
        auto [parent, name] = splitParent(dir);
        UniqueFd upperParent(openBeneath(m_upper, parent, O_RDONLY | O_DIRECTORY));
        if (upperParent.valid()) ::unlinkat(upperParent.get(), name.c_str(), AT_REMOVEDIR);
    }
}

} // namespace

Result<ApplyReport> applyChanges(const std::filesystem::path& upper,
                                 const std::filesystem::path& project, const ApplyOptions& options)
{
    auto upperFd = openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();
    auto projectFd = openRoot(project, "project directory");
    if (!projectFd) return projectFd.error();
    auto scan = scanWorkspace(upperFd->get(), projectFd->get());
    if (!scan) return scan.error();
    auto selected = selectChanges(scan->changes, options.paths);
    if (!selected) return selected.error();

    // A selected entry inside an added directory brings that directory along.
    std::map<std::string, std::size_t> directories;
    for (std::size_t i = 0; i < scan->changes.size(); ++i) {
        const Change& c = scan->changes[i].change;
        if (c.type == EntryType::Directory && c.kind != ChangeKind::Deleted)
            directories.emplace(c.path, i);
    }
    std::vector<std::size_t> order = *selected;
    for (auto index : *selected) {
        std::string parent = splitParent(scan->changes[index].change.path).first;
        for (; !parent.empty(); parent = splitParent(parent).first)
            if (auto it = directories.find(parent); it != directories.end())
                order.push_back(it->second);
    }
    std::sort(order.begin(), order.end()); // scan order: a directory before its contents
    order.erase(std::unique(order.begin(), order.end()), order.end());

    // Files that run later stay in the session unless the user named them and said yes.
    if (options.includeRunLater && options.paths.empty())
        return inputError("name the files that run later to apply them (expected paths beside "
                          "the run-later option)");
    std::vector<ApplyIssue> held;
    if (!options.includeRunLater) {
        const RunLaterRules rules = options.runLater ? *options.runLater : RunLaterRules();
        const fs::path home = options.home.empty() ? homeDirectory() : options.home;
        std::erase_if(order, [&](std::size_t index) {
            const Change& c = scan->changes[index].change;
            if (c.kind == ChangeKind::Deleted) return false; // a deletion runs nothing
            auto m = rules.match(c.path, c.type == EntryType::Directory, project, home);
            if (m) held.push_back({c.path, m->reason});
            return m.has_value();
        });
    }

    Applier applier(upperFd->get(), projectFd->get(), options);
    applier.hold(std::move(held));
    std::size_t done = 0;
    for (auto index : order) {
        applier.apply(scan->changes[index]);
        if (options.progress) options.progress(++done, order.size());
    }
    if (options.dryRun) return applier.takeReport();
    applier.finishDirectoryModes();
    applier.tidyUpper();
    return applier.takeReport();
}

} // namespace sb
