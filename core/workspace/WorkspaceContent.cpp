// readChange: both sides of one path for a viewer, read through descriptors opened beneath the
// project and upper roots, never following a symlink.
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace sb {

using namespace ws;

namespace {

Result<ChangeSide> readSide(int rootFd, const std::string& rel, std::size_t maxBytes)
{
    ChangeSide side;
    auto [parent, name] = splitParent(rel);
    UniqueFd parentFd(openBeneath(rootFd, parent, O_PATH | O_DIRECTORY));
    // A missing parent, or one that is a symlink or a file, means there is nothing here.
    if (!parentFd.valid()) return side;
    auto st = statAt(parentFd.get(), name);
    if (!st) return side;
    side.exists = true;
    side.type = entryType(st->stx_mode);
    if (S_ISLNK(st->stx_mode)) {
        auto target = readLinkBeneath(rootFd, rel);
        if (!target) return target.error();
        side.size = target->size();
        side.content = std::move(*target);
        return side;
    }
    if (!S_ISREG(st->stx_mode)) return side;
    side.size = st->stx_size;
    // O_NONBLOCK: an entry swapped for a FIFO meanwhile must not hang the viewer.
    UniqueFd fd(openBeneath(rootFd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
    if (!fd.valid()) return sysError("open '" + rel + "'");
    // One byte past what we keep tells a file that grew since the stat.
    const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(side.size, maxBytes));
    side.content.resize(keep + 1);
    std::size_t done = 0;
    while (done < side.content.size()) {
        ssize_t n = ::read(fd.get(), side.content.data() + done, side.content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sysError("read '" + rel + "'");
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    side.truncated = side.size > maxBytes || done > keep;
    side.content.resize(std::min(done, keep));
    return side;
}

// Where the session's view of `rel` comes from, walking the upper layer as overlayfs does: an
// upper entry of its own, nothing (a whiteout, or a file where a directory was), or the real
// entry when upper has nothing on the way and no opaque directory hides the project.
enum class Source { Upper, Absent, Real };

Result<Source> sessionSource(int upperFd, const std::string& rel)
{
    UniqueFd current(::fcntl(upperFd, F_DUPFD_CLOEXEC, 0));
    if (!current.valid()) return sysError("dup");
    bool hidden = isOpaque(upperFd);
    std::size_t start = 0;
    while (true) {
        auto slash = rel.find('/', start);
        bool last = slash == std::string::npos;
        std::string name = rel.substr(start, last ? std::string::npos : slash - start);
        auto st = statAt(current.get(), name);
        if (!st) return hidden ? Source::Absent : Source::Real;
        if (isWhiteout(*st)) return Source::Absent;
        if (last) return Source::Upper;
        if (!S_ISDIR(st->stx_mode)) return Source::Absent;
        UniqueFd child(
            ::openat(current.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!child.valid()) return sysError("open upper directory '" + rel.substr(0, slash) + "'");
        hidden = hidden || isOpaque(child.get());
        current = std::move(child);
        start = slash + 1;
    }
}

} // namespace

Result<ChangeContent> readChange(const std::filesystem::path& upper,
                                 const std::filesystem::path& project, const std::string& path,
                                 std::size_t maxBytes)
{
    auto rel = normalizeRequest(path);
    if (!rel) return rel.error();
    auto upperFd = openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();
    auto projectFd = openRoot(project, "project directory");
    if (!projectFd) return projectFd.error();

    ChangeContent out;
    auto before = readSide(projectFd->get(), *rel, maxBytes);
    if (!before) return before.error();
    out.before = std::move(*before);
    auto source = sessionSource(upperFd->get(), *rel);
    if (!source) return source.error();
    if (*source == Source::Real) {
        out.after = out.before;
    } else if (*source == Source::Upper) {
        auto after = readSide(upperFd->get(), *rel, maxBytes);
        if (!after) return after.error();
        out.after = std::move(*after);
    }
    return out;
}

} // namespace sb
