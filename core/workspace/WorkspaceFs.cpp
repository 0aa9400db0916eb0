// Symlink-proof file-descriptor helpers and path handling shared by the workspace code.
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace sb::ws {

namespace {

// Without openat2 (kernels before 5.6) walk the components one by one with O_NOFOLLOW, which
// refuses the same symlinks; ".." never occurs because callers validate their paths.
int openByComponents(int dirfd, const std::string& rel, int flags, mode_t mode)
{
    UniqueFd current(::openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!current.valid()) return -1;
    std::string rest = rel;
    while (true) {
        auto slash = rest.find('/');
        if (slash == std::string::npos)
            return ::openat(current.get(), rest.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
        std::string part = rest.substr(0, slash);
        rest = rest.substr(slash + 1);
        if (part == "..") {
            errno = EXDEV;
            return -1;
        }
        UniqueFd next(
            ::openat(current.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.valid()) return -1;
        current = std::move(next);
    }
}

} // namespace

int openBeneath(int dirfd, const std::string& rel, int flags, mode_t mode)
{
    struct open_how how {};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const char* path = rel.empty() ? "." : rel.c_str();
    long fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd < 0 && errno == ENOSYS)
        return openByComponents(dirfd, rel.empty() ? "." : rel, flags, mode);
    return static_cast<int>(fd);
}

Result<UniqueFd> openDirBeneath(int root, const std::string& rel)
{
    UniqueFd fd(openBeneath(root, rel, O_RDONLY | O_DIRECTORY));
    if (!fd.valid()) return sysError("open directory '" + rel + "'");
    return fd;
}

Result<UniqueFd> openRoot(const std::filesystem::path& dir, const char* what)
{
    if (dir.empty() || !dir.is_absolute())
        return inputError(std::string(what) + " must be an absolute path, got '" + dir.string() +
                          "'");
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) {
        int err = errno;
        return Error{err == ENOENT ? ErrorCode::NotFound : ErrorCode::System, err,
                     std::string("open ") + what + " " + dir.string()};
    }
    return fd;
}

Result<std::string> readLinkBeneath(int root, const std::string& rel)
{
    UniqueFd link(openBeneath(root, rel, O_PATH | O_NOFOLLOW));
    if (!link.valid()) return sysError("open symlink '" + rel + "'");
    std::string target(4096, '\0');
    ssize_t n = ::readlinkat(link.get(), "", target.data(), target.size());
    if (n < 0) return sysError("read symlink '" + rel + "'");
    target.resize(static_cast<std::size_t>(n));
    return target;
}

std::optional<struct statx> statAt(int dirfd, const std::string& name)
{
    struct statx st {};
    if (::statx(dirfd, name.c_str(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
                STATX_TYPE | STATX_MODE | STATX_SIZE | STATX_CTIME | STATX_INO, &st) != 0)
        return std::nullopt;
    return st;
}

std::int64_t ctimeNs(const struct statx& st)
{
    return st.stx_ctime.tv_sec * 1'000'000'000LL + st.stx_ctime.tv_nsec;
}

EntryType entryType(mode_t mode)
{
    if (S_ISREG(mode)) return EntryType::File;
    if (S_ISDIR(mode)) return EntryType::Directory;
    if (S_ISLNK(mode)) return EntryType::Symlink;
    return EntryType::Other;
}

const char* describeType(mode_t mode)
{
    if (S_ISREG(mode)) return "a file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISLNK(mode)) return "a symlink";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "a special file";
}

bool isWhiteout(const struct statx& st)
{
    return S_ISCHR(st.stx_mode) && st.stx_rdev_major == 0 && st.stx_rdev_minor == 0;
}

bool isOpaque(int dirfd)
{
    // The sandbox mounts with "userxattr"; a layer made by a privileged overlay uses trusted.*.
    for (const char* name : {"user.overlay.opaque", "trusted.overlay.opaque"}) {
        char value[4] = {};
        ssize_t n = ::fgetxattr(dirfd, name, value, sizeof value);
        if (n == 1 && value[0] == 'y') return true;
    }
    return false;
}

Result<std::vector<std::string>> listDir(int dirfd)
{
    // A private descriptor: fdopendir takes ownership and moves the file offset.
    int own = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (own < 0) return sysError("open directory");
    DIR* dir = ::fdopendir(own);
    if (dir == nullptr) {
        int err = errno;
        ::close(own);
        return sysError("read directory", err);
    }
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* entry = ::readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..") names.push_back(std::move(name));
    }
    int err = errno;
    ::closedir(dir);
    if (err != 0) return sysError("read directory", err);
    std::sort(names.begin(), names.end());
    return names;
}

Status copyContent(int from, int to)
{
    while (true) {
        ssize_t n = ::copy_file_range(from, nullptr, to, nullptr, 1 << 30, 0);
        if (n == 0) return {};
        if (n > 0) continue;
        if (errno == EINTR) continue;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
            return sysError("copy");
        break; // not supported between these files: copy by hand from where it stopped
    }
    char buf[65536];
    while (true) {
        ssize_t n = ::read(from, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sysError("read");
        if (n == 0) return {};
        for (ssize_t done = 0; done < n;) {
            ssize_t w = ::write(to, buf + done, static_cast<std::size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return sysError("write");
            done += w;
        }
    }
}

Status removeTree(int parentFd, const std::string& name)
{
    auto st = statAt(parentFd, name);
    if (!st) return errno == ENOENT ? Status{} : Status{sysError("stat '" + name + "'")};
    if (S_ISDIR(st->stx_mode)) {
        UniqueFd dir(
            ::openat(parentFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!dir.valid()) return sysError("open directory '" + name + "'");
        auto names = listDir(dir.get());
        if (!names) return names.error();
        for (const auto& child : *names) {
            if (auto e = removeTree(dir.get(), child)) {
                e->message = name + "/" + e->message;
                return e;
            }
        }
        if (::unlinkat(parentFd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
            return sysError("remove directory '" + name + "'");
        return {};
    }
    if (::unlinkat(parentFd, name.c_str(), 0) != 0 && errno != ENOENT)
        return sysError("remove '" + name + "'");
    return {};
}

std::pair<std::string, std::string> splitParent(const std::string& rel)
{
    auto slash = rel.rfind('/');
    if (slash == std::string::npos) return {"", rel};
    return {rel.substr(0, slash), rel.substr(slash + 1)};
}

std::string joinPath(const std::string& dir, const std::string& name)
{
    return dir.empty() ? name : dir + "/" + name;
}

bool isUnder(const std::string& path, const std::string& dir)
{
    if (dir.empty()) return true;
    return path.size() >= dir.size() && path.compare(0, dir.size(), dir) == 0 &&
           (path.size() == dir.size() || path[dir.size()] == '/');
}

bool pathLess(const std::string& a, const std::string& b)
{
    // Compare as if '/' sorted before every other byte, so "a/b" comes right after "a"
    // and before "a-b": a directory is followed by its contents.
    auto key = [](char c) { return c == '/' ? 0 : static_cast<unsigned char>(c) + 1; };
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [&](char x, char y) { return key(x) < key(y); });
}

std::size_t depth(const std::string& rel)
{
    return static_cast<std::size_t>(std::count(rel.begin(), rel.end(), '/'));
}

Result<std::string> normalizeRequest(const std::string& path)
{
    std::string p = path;
    while (p.size() > 1 && p.back() == '/')
        p.pop_back();
    if (p.empty()) return inputError("empty path in the selection");
    if (p.front() == '/')
        return inputError("'" + path + "' is absolute; paths are relative to the project");
    if (p.find('\0') != std::string::npos) return inputError("path contains a NUL byte");
    std::size_t start = 0;
    while (start <= p.size()) {
        auto end = p.find('/', start);
        if (end == std::string::npos) end = p.size();
        std::string part = p.substr(start, end - start);
        if (part.empty() || part == "." || part == "..")
            return inputError("'" + path + "' is not a plain relative path (no '.', '..' or '//')");
        start = end + 1;
    }
    return p;
}

Result<std::vector<std::size_t>> selectChanges(const std::vector<ScannedChange>& changes,
                                               const std::vector<std::string>& paths)
{
    std::vector<bool> chosen(changes.size(), paths.empty());
    for (const auto& requested : paths) {
        auto p = normalizeRequest(requested);
        if (!p) return p.error();
        bool found = false;
        for (std::size_t i = 0; i < changes.size(); ++i) {
            if (isUnder(changes[i].change.path, *p)) {
                chosen[i] = true;
                found = true;
            }
        }
        if (!found)
            return Error{ErrorCode::NotFound, 0,
                         "'" + *p +
                             "' is not a change in this workspace (nor a directory holding one)"};
    }
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < changes.size(); ++i)
        if (chosen[i]) indices.push_back(i);
    return indices;
}

} // namespace sb::ws
