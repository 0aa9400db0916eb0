// Reading an overlay upper layer as a list of changes, and discarding entries from it.
#include "base/Session.h"
#include "base/WriteTemporary.h"
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <unistd.h>

namespace sb {
namespace ws {
namespace {

std::uint64_t sizeOf(const struct statx& st)
{
    return S_ISREG(st.stx_mode) || S_ISLNK(st.stx_mode) ? st.stx_size : 0;
}

// A change as the scan finds it; whether it runs later is markRunLater's to say.
Change changeOf(std::string path, ChangeKind kind, EntryType type, std::uint64_t size)
{
    Change change;
    change.path = std::move(path);
    change.kind = kind;
    change.type = type;
    change.size = size;
    return change;
}

// Whether two descriptors' files hold the same bytes (their sizes are equal).
bool sameBytes(int a, int b)
{
    constexpr std::size_t kChunk = 64 * 1024;
    std::vector<char> left(kChunk), right(kChunk);
    for (;;) {
        const ssize_t n = ::read(a, left.data(), kChunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        std::size_t got = 0;
        while (got < static_cast<std::size_t>(n)) {
            const ssize_t m = ::read(b, right.data() + got, static_cast<std::size_t>(n) - got);
            if (m < 0 && errno == EINTR) continue;
            if (m <= 0) return false;
            got += static_cast<std::size_t>(m);
        }
        if (std::memcmp(left.data(), right.data(), got) != 0) return false;
        if (n == 0) return true;
    }
}

// An upper entry that only its timestamps (or owner) set apart from the project's (`touch`,
// an editor that saved without a change, a chmod back): no change. Cheap checks first: type,
// permission bits and size; then a symlink's target or a file's bytes.
bool sameAsProject(int upperDir, int realDir, const std::string& name, const struct statx& us,
                   const struct statx& rs)
{
    if (us.stx_mode != rs.stx_mode || us.stx_size != rs.stx_size) return false;
    if (S_ISLNK(us.stx_mode)) {
        char a[4096], b[4096];
        const ssize_t n = ::readlinkat(upperDir, name.c_str(), a, sizeof a);
        const ssize_t m = ::readlinkat(realDir, name.c_str(), b, sizeof b);
        return n >= 0 && n == m && std::memcmp(a, b, static_cast<std::size_t>(n)) == 0;
    }
    if (!S_ISREG(us.stx_mode)) return false;
    const UniqueFd upper(::openat(upperDir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    const UniqueFd real(::openat(realDir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    return upper.valid() && real.valid() && sameBytes(upper.get(), real.get());
}

struct Scanner {
    Scan& out;

    // One upper directory against its real counterpart (realDir < 0: none, or not a directory).
    // Inside an opaque directory the overlay never looks at the real side again, so every real
    // entry the upper one lacks is hidden, i.e. deleted; `opaque` carries that down the tree.
    Status scanDir(int upperDir, int realDir, bool opaque, const std::string& prefix)
    {
        auto names = listDir(upperDir);
        if (!names) return names.error().within("read upper directory '" + prefix + "'");
        if (opaque && realDir >= 0) {
            auto realNames = listDir(realDir);
            if (!realNames)
                return realNames.error().within("read project directory '" + prefix + "'");
            for (const auto& name : *realNames) {
                if (std::binary_search(names->begin(), names->end(), name)) continue;
                auto rs = statAt(realDir, name);
                if (!rs) continue; // vanished meanwhile: nothing left to delete
                out.changes.push_back({changeOf(joinPath(prefix, name), ChangeKind::Deleted,
                                                entryType(rs->stx_mode), sizeOf(*rs)),
                                       false, true, 0});
            }
        }
        for (const auto& name : *names) {
            if (auto e = scanEntry(upperDir, realDir, opaque, prefix, name)) return e;
        }
        return {};
    }

    Status scanEntry(int upperDir, int realDir, bool opaque, const std::string& prefix,
                     const std::string& name)
    {
        std::string rel = joinPath(prefix, name);
        // A live session may remove entries while we read: gone is simply no change.
        auto us = statAt(upperDir, name);
        if (!us)
            return errno == ENOENT ? Status{} : Status{sysError("stat upper entry '" + rel + "'")};
        std::optional<struct statx> rs;
        if (realDir >= 0) rs = statAt(realDir, name);

        if (isWhiteout(*us)) {
            // A whiteout over nothing (the user removed the real entry too) changes nothing.
            if (rs)
                out.changes.push_back(
                    {changeOf(rel, ChangeKind::Deleted, entryType(rs->stx_mode), sizeOf(*rs)), true,
                     opaque, 0});
            return {};
        }
        if (!S_ISDIR(us->stx_mode)) {
            // A file request's temporary file is never a change of the session's (an upload in
            // progress, or what a killed one left before the supervisor removed it).
            if (!rs && S_ISREG(us->stx_mode) && isWriteTemporaryName(name)) return {};
            if (rs && !opaque && sameAsProject(upperDir, realDir, name, *us, *rs)) return {};
            out.changes.push_back({changeOf(rel, rs ? ChangeKind::Modified : ChangeKind::Added,
                                            entryType(us->stx_mode), sizeOf(*us)),
                                   false, opaque, us->stx_mode});
            return {};
        }

        UniqueFd upperChild(
            ::openat(upperDir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!upperChild.valid())
            return errno == ENOENT ? Status{}
                                   : Status{sysError("open upper directory '" + rel + "'")};
        bool childOpaque = isOpaque(upperChild.get());
        if (childOpaque) out.opaqueDirs.push_back(rel);
        UniqueFd realChild;
        if (rs && S_ISDIR(rs->stx_mode))
            realChild.reset(
                ::openat(realDir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        // A directory over a real directory is only a container of changes; over nothing it
        // is added; over a file or symlink it replaces that (the overlay does not merge them).
        if (!rs)
            out.changes.push_back({changeOf(rel, ChangeKind::Added, EntryType::Directory, 0), false,
                                   opaque, us->stx_mode});
        else if (!S_ISDIR(rs->stx_mode))
            out.changes.push_back({changeOf(rel, ChangeKind::Modified, EntryType::Directory, 0),
                                   false, opaque, us->stx_mode});
        return scanDir(upperChild.get(), realChild.get(), opaque || childOpaque, rel);
    }
};

// What discarding `rel` takes away, for the caller's report: every non-directory entry, and
// directories that are a change by themselves (empty, or hiding the real one).
Status collectEntries(int parentFd, const std::string& name, const std::string& rel,
                      std::vector<std::string>& out)
{
    auto st = statAt(parentFd, name);
    if (!st) return sysError("stat upper entry '" + rel + "'");
    if (!S_ISDIR(st->stx_mode)) {
        out.push_back(rel);
        return {};
    }
    UniqueFd dir(::openat(parentFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) return sysError("open upper directory '" + rel + "'");
    auto names = listDir(dir.get());
    if (!names) return names.error();
    if (names->empty() || isOpaque(dir.get())) out.push_back(rel);
    for (const auto& child : *names)
        if (auto e = collectEntries(dir.get(), child, joinPath(rel, child), out)) return e;
    return {};
}

// Removes the file requests' temporary files in `dir` and the folders beneath it.
void removeTemporariesIn(int dir, int depth)
{
    auto names = listDir(dir);
    if (!names || depth > 256) return;
    for (const auto& name : *names) {
        auto st = statAt(dir, name);
        if (!st) continue;
        if (S_ISREG(st->stx_mode) && isWriteTemporaryName(name)) {
            ::unlinkat(dir, name.c_str(), 0);
        } else if (S_ISDIR(st->stx_mode)) {
            UniqueFd child(
                ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (child.valid()) removeTemporariesIn(child.get(), depth + 1);
        }
    }
}

} // namespace

Result<Scan> scanWorkspace(int upperFd, int projectFd)
{
    Scan scan;
    Scanner scanner{scan};
    // An opaque upper root would hide the whole project: honour it like any opaque directory.
    bool rootOpaque = isOpaque(upperFd);
    if (rootOpaque) scan.opaqueDirs.push_back("");
    if (auto e = scanner.scanDir(upperFd, projectFd, rootOpaque, "")) return *e;
    std::sort(scan.changes.begin(), scan.changes.end(),
              [](const ScannedChange& a, const ScannedChange& b) {
                  return pathLess(a.change.path, b.change.path);
              });
    return scan;
}

} // namespace ws

using namespace ws;

Result<std::vector<Change>> listChanges(const std::filesystem::path& upper,
                                        const std::filesystem::path& project)
{
    auto upperFd = openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();
    auto projectFd = openRoot(project, "project directory");
    if (!projectFd) return projectFd.error();
    auto scan = scanWorkspace(upperFd->get(), projectFd->get());
    if (!scan) return scan.error();
    std::vector<Change> changes;
    changes.reserve(scan->changes.size());
    for (auto& c : scan->changes)
        changes.push_back(std::move(c.change));
    return changes;
}

Status removeWriteTemporaries(const std::filesystem::path& upper)
{
    auto upperFd = openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();
    removeTemporariesIn(upperFd->get(), 0);
    return {};
}

Result<std::vector<std::string>> discardChanges(const std::filesystem::path& upper,
                                                const std::vector<std::string>& paths)
{
    auto upperFd = openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();

    // Validate the whole selection before removing anything.
    std::vector<std::string> targets;
    if (paths.empty()) {
        auto names = listDir(upperFd->get());
        if (!names) return names.error();
        targets = std::move(*names);
    }
    for (const auto& requested : paths) {
        auto p = normalizeRequest(requested);
        if (!p) return p.error();
        auto [parent, name] = splitParent(*p);
        UniqueFd parentFd(openBeneath(upperFd->get(), parent, O_RDONLY | O_DIRECTORY));
        if (!parentFd.valid() || !statAt(parentFd.get(), name))
            return Error{ErrorCode::NotFound, 0,
                         "'" + *p +
                             "' is not in the workspace, nothing to discard (an entry "
                             "hidden by a replaced directory returns by discarding that "
                             "directory)"};
        targets.push_back(*p);
    }
    std::sort(targets.begin(), targets.end(), pathLess);
    // A requested directory already covers anything requested inside it.
    std::vector<std::string> roots;
    for (const auto& t : targets)
        if (roots.empty() || !isUnder(t, roots.back())) roots.push_back(t);

    std::vector<std::string> discarded;
    for (const auto& rel : roots) {
        auto [parent, name] = splitParent(rel);
        auto parentFd = openDirBeneath(upperFd->get(), parent);
        if (!parentFd) return parentFd.error();
        if (auto e = collectEntries(parentFd->get(), name, rel, discarded)) return *e;
        if (auto e = removeTree(parentFd->get(), name)) return e->within("discard '" + rel + "'");
    }
    std::sort(discarded.begin(), discarded.end(), pathLess);
    return discarded;
}

Status checkWorkspaceEditable(const SessionInfo& session)
{
    if (sessionIsLive(session))
        return Error{ErrorCode::Conflict, 0,
                     "session " + session.id +
                         " is still running; its overlay is mounted, so its changes can be "
                         "applied or discarded only after it ends"};
    return {};
}

} // namespace sb
