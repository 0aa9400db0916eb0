#include "sandbox/ExecHelperFiles.h"

#include "base/Bytes.h"
#include "base/FileMetadata.h"
#include "base/WriteTemporary.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

using json = nlohmann::json;

json failure(int err, const std::string& what)
{
    return {{"ok", false}, {"errno", err}, {"message", what + ": " + std::strerror(err)}};
}

const char* typeName(mode_t mode)
{
    if (S_ISREG(mode)) return "file";
    if (S_ISDIR(mode)) return "directory";
    if (S_ISLNK(mode)) return "symlink";
    return "other";
}

json statJson(const struct stat& st)
{
    return {{"type", typeName(st.st_mode)},
            {"size", st.st_size},
            {"mode", st.st_mode & 07777},
            {"uid", st.st_uid},
            {"gid", st.st_gid},
            {"mtime_ns", st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec}};
}

// The file's metadata (its "user.e2b." attributes, FileMetadata.h), not following a link;
// nothing where there are none or the file system keeps none. Attributes set inside the
// sandbox may hold anything: those that are not UTF-8 or larger than metadata can be are left
// out, so one odd file does not spoil a listing.
std::optional<json> readMetadata(const char* path)
{
    char names[8192];
    const ssize_t n = ::llistxattr(path, names, sizeof names);
    if (n <= 0) return std::nullopt;
    json metadata = json::object();
    for (std::string_view rest(names, static_cast<std::size_t>(n)); !rest.empty();) {
        const std::string name(rest.substr(0, rest.find('\0')));
        rest.remove_prefix(std::min(rest.size(), name.size() + 1));
        if (!name.starts_with(kFileMetadataXattrPrefix)) continue;
        char value[kMaxFileMetadataBytes];
        const ssize_t size = ::lgetxattr(path, name.c_str(), value, sizeof value);
        if (size < 0) continue;
        const std::string key = name.substr(kFileMetadataXattrPrefix.size());
        const std::string_view text(value, static_cast<std::size_t>(size));
        if (key.empty() || !isValidUtf8(key) || !isValidUtf8(text)) continue;
        metadata[key] = text;
    }
    if (metadata.empty()) return std::nullopt;
    return metadata;
}

void addMetadata(json& entry, const char* path)
{
    if (auto metadata = readMetadata(path)) entry["metadata"] = std::move(*metadata);
}

std::string tempName()
{
    unsigned char bytes[6] = {};
    if (::getrandom(bytes, sizeof bytes, 0) != sizeof bytes) ::arc4random_buf(bytes, sizeof bytes);
    return writeTemporaryName(bytes);
}

// mkdir -p of `dir` (relative paths from the working folder, the project).
int makeParents(const fs::path& dir, mode_t mode)
{
    if (dir.empty() || dir == "/" || dir == ".") return 0;
    if (::mkdir(dir.c_str(), mode) == 0) return 0;
    if (errno == EEXIST) return 0;
    if (errno != ENOENT) return errno;
    if (int e = makeParents(dir.parent_path(), mode)) return e;
    return ::mkdir(dir.c_str(), mode) == 0 || errno == EEXIST ? 0 : errno;
}

int removeTree(int parent, const std::string& name)
{
    if (::unlinkat(parent, name.c_str(), 0) == 0) return 0;
    if (errno != EISDIR && errno != EPERM) return errno;
    UniqueFd dir(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir) return errno;
    DIR* d = ::fdopendir(dir.get());
    if (d == nullptr) return errno;
    (void)dir.release(); // closedir's now
    int err = 0;
    while (dirent* e = ::readdir(d)) {
        std::string child = e->d_name;
        if (child == "." || child == "..") continue;
        if (int r = removeTree(::dirfd(d), child)) err = r;
    }
    ::closedir(d);
    if (err != 0) return err;
    return ::unlinkat(parent, name.c_str(), AT_REMOVEDIR) == 0 ? 0 : errno;
}

struct Lister {
    std::size_t max;
    std::size_t bytes = 0;
    bool truncated = false;
    json entries = json::array();

    // Entries of `dir` (shown as `shown`), one level or all the way down, within the bounds.
    void list(const fs::path& dir, const std::string& shown, bool recursive, int depth)
    {
        DIR* d = ::opendir(dir.c_str());
        if (d == nullptr) return;
        std::vector<std::string> names;
        while (dirent* e = ::readdir(d)) {
            std::string name = e->d_name;
            if (name != "." && name != "..") names.push_back(std::move(name));
        }
        ::closedir(d);
        std::sort(names.begin(), names.end());
        for (const std::string& name : names) {
            if (entries.size() >= max || bytes >= kMaxListReplyBytes) {
                truncated = true;
                return;
            }
            struct stat st {};
            const fs::path full = dir / name;
            if (::lstat(full.c_str(), &st) != 0) continue;
            json entry = statJson(st);
            putBytes(entry, "path", shown.empty() ? name : shown + "/" + name);
            addMetadata(entry, full.c_str());
            if (S_ISLNK(st.st_mode)) {
                char target[4096];
                ssize_t n = ::readlink(full.c_str(), target, sizeof target);
                if (n > 0) putBytes(entry, "target", std::string(target, static_cast<size_t>(n)));
            }
            bytes += dumpJson(entry).size() + 1;
            entries.push_back(std::move(entry));
            if (recursive && S_ISDIR(st.st_mode) && depth < 64)
                list(full, shown.empty() ? name : shown + "/" + name, true, depth + 1);
            if (truncated) return;
        }
    }
};

} // namespace

Files::~Files()
{
    for (auto& [id, w] : m_writes)
        ::unlinkat(w.dir.get(), w.temp.c_str(), 0);
}

json Files::openRead(const std::string& path, std::vector<int>& fds)
{
    // O_NONBLOCK: a FIFO must not hang the helper; it is refused below.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd) return failure(errno, path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return failure(errno, path);
    if (!S_ISREG(st.st_mode))
        return failure(S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
                       path + " is " + (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file"));
    ::fcntl(fd.get(), F_SETFL, 0);
    fds.push_back(fd.release());
    json out = statJson(st);
    out["ok"] = true;
    return out;
}

json Files::openWrite(std::uint64_t id, const std::string& path, const json& r,
                      std::vector<int>& fds)
{
    const fs::path target = path;
    const bool append = r.value("append", false);
    const json metadata = r.value("metadata", json());
    if (!metadata.is_null()) {
        if (append) return failure(EINVAL, "metadata are set by a write that replaces " + path);
        if (auto e = checkFileMetadata(metadata)) return failure(EINVAL, e->message);
    }
    std::optional<mode_t> mode;
    if (r.contains("mode") && r["mode"].is_number_unsigned())
        mode = static_cast<mode_t>(r["mode"].get<unsigned>() & 07777);
    if (r.value("parents", true))
        if (int e = makeParents(target.parent_path(), 0755))
            return failure(e, target.parent_path());
    if (append) {
        UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC,
                           mode.value_or(0644)));
        if (!fd) return failure(errno, path);
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
            return failure(EINVAL, path + " is not a regular file");
        fds.push_back(fd.release());
        return {{"ok", true}, {"commit", false}};
    }
    // A folder or special file is never replaced by a write.
    struct stat existing {};
    const bool exists = ::stat(path.c_str(), &existing) == 0;
    if (exists && !S_ISREG(existing.st_mode))
        return failure(S_ISDIR(existing.st_mode) ? EISDIR : EINVAL,
                       path + " is " +
                           (S_ISDIR(existing.st_mode) ? "a folder" : "not a regular file"));
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    UniqueFd dir(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir) return failure(errno, parent);
    const std::string temp = tempName();
    const int fd = ::openat(dir.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return failure(errno, path);
    PendingWrite w{std::move(dir), temp, target.filename(),
                   mode.value_or(exists ? existing.st_mode & 07777 : 0644), metadata};
    if (auto old = m_writes.find(id); old != m_writes.end()) finishWrite(id, false);
    m_writes[id] = std::move(w);
    fds.push_back(fd);
    return {{"ok", true}, {"commit", true}};
}

json Files::finishWrite(std::uint64_t id, bool commit)
{
    auto it = m_writes.find(id);
    if (it == m_writes.end()) return failure(ENOENT, "no write in progress");
    PendingWrite w = std::move(it->second);
    m_writes.erase(it);
    json out = {{"ok", true}};
    if (commit) {
        const UniqueFd fd(::openat(w.dir.get(), w.temp.c_str(), O_WRONLY | O_CLOEXEC));
        bool ok = fd && ::fchmod(fd.get(), w.mode) == 0;
        // Metadata before the rename: a file system that cannot keep them leaves the target
        // as it was.
        if (ok && w.metadata.is_object())
            for (const auto& [key, value] : w.metadata.items()) {
                const std::string name = std::string(kFileMetadataXattrPrefix) + key;
                const auto& text = value.get_ref<const std::string&>();
                if (::fsetxattr(fd.get(), name.c_str(), text.data(), text.size(), 0) != 0) {
                    ok = false;
                    break;
                }
            }
        ok = ok && ::fsync(fd.get()) == 0;
        int e = errno;
        if (ok && ::renameat(w.dir.get(), w.temp.c_str(), w.dir.get(), w.name.c_str()) != 0)
            ok = false, e = errno;
        if (!ok) out = failure(e, w.name);
    }
    if (!commit || !out["ok"].get<bool>()) ::unlinkat(w.dir.get(), w.temp.c_str(), 0);
    return out;
}

json Files::handle(const std::string& op, const json& r, std::vector<int>& fds)
{
    const std::uint64_t id = r.value("id", std::uint64_t{0});
    auto path = getBytes(r, "path");
    if (op == "commit" || op == "abort") return finishWrite(id, op == "commit");
    if (!path || path->empty() || path->find('\0') != std::string::npos)
        return failure(EINVAL, "a request without a path");
    if (op == "open_read") return openRead(*path, fds);
    if (op == "open_write") return openWrite(id, *path, r, fds);
    if (op == "stat") {
        struct stat st {};
        if (::lstat(path->c_str(), &st) != 0) return failure(errno, *path);
        json out = statJson(st);
        addMetadata(out, path->c_str());
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = ::readlink(path->c_str(), target, sizeof target);
            if (n > 0) putBytes(out, "target", std::string(target, static_cast<size_t>(n)));
            struct stat followed {};
            out["broken"] = ::stat(path->c_str(), &followed) != 0;
        }
        out["ok"] = true;
        return out;
    }
    if (op == "list") {
        struct stat st {};
        if (::stat(path->c_str(), &st) != 0) return failure(errno, *path);
        if (!S_ISDIR(st.st_mode)) return failure(ENOTDIR, *path);
        Lister l{std::min<std::size_t>(r.value("max", kMaxListEntries), kMaxListEntries)};
        l.list(*path, "", r.value("recursive", false), 0);
        return {{"ok", true}, {"entries", std::move(l.entries)}, {"truncated", l.truncated}};
    }
    if (op == "mkdir") {
        if (r.value("parents", false)) {
            if (int e = makeParents(*path, 0755)) return failure(e, *path);
            struct stat st {};
            if (::stat(path->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
                return failure(EEXIST, *path + " exists and is not a folder");
        } else if (::mkdir(path->c_str(), 0755) != 0) {
            return failure(errno, *path);
        }
        // An exact mode (the umask does not apply), also to a folder that was there: a client
        // sets a folder's mode after filling it, since 0555 would refuse its own writes.
        if (r.contains("mode") && r["mode"].is_number_integer() &&
            r["mode"].get<long long>() >= 0) {
            const UniqueFd dir(
                ::open(path->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!dir ||
                ::fchmod(dir.get(), static_cast<mode_t>(r["mode"].get<unsigned>() & 07777)) != 0)
                return failure(errno, *path);
        }
        return {{"ok", true}};
    }
    if (op == "remove") {
        const fs::path p = *path;
        const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
        const UniqueFd dir(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!dir) return failure(errno, parent);
        const std::string name = p.filename();
        int err = 0;
        if (r.value("recursive", false))
            err = removeTree(dir.get(), name);
        else if (::unlinkat(dir.get(), name.c_str(), 0) != 0)
            err = errno == EISDIR && ::unlinkat(dir.get(), name.c_str(), AT_REMOVEDIR) == 0 ? 0
                                                                                            : errno;
        return err ? failure(err, *path) : json{{"ok", true}};
    }
    if (op == "rename") {
        auto to = getBytes(r, "to");
        if (!to || to->empty()) return failure(EINVAL, "a rename without its target");
        unsigned flags = r.value("overwrite", true) ? 0 : RENAME_NOREPLACE;
        if (::renameat2(AT_FDCWD, path->c_str(), AT_FDCWD, to->c_str(), flags) != 0)
            return failure(errno, *path + " -> " + *to);
        return {{"ok", true}};
    }
    if (op == "symlink") {
        // A link the sandbox resolves as it resolves any other: it leads nowhere the sandbox
        // cannot see already.
        auto target = getBytes(r, "target");
        if (!target || target->empty()) return failure(EINVAL, "a symlink without its target");
        const fs::path link = *path;
        if (r.value("parents", true) && link.has_parent_path())
            if (int e = makeParents(link.parent_path(), 0755))
                return failure(e, link.parent_path());
        if (::symlink(target->c_str(), path->c_str()) != 0) return failure(errno, *path);
        return {{"ok", true}};
    }
    return failure(ENOSYS, "unknown request '" + op + "'");
}

} // namespace sb
