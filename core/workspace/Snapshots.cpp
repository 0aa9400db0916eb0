#include "workspace/Snapshots.h"

#include "base/AtomicFile.h"
#include "base/FolderTree.h"
#include "base/UniqueFd.h"
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <linux/fs.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace sb {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace ws;

namespace {

constexpr const char* kSnapshots = "snapshots";
constexpr const char* kInfoFile = "snapshot.json";

// overlayfs's own marks on a layer (opaque folders, redirects), as user.* (the sandbox mounts
// with userxattr) or trusted.* (a layer made by a privileged overlay).
Status copyOverlayXattrs(int from, int to, const std::string& what)
{
    char names[4096];
    const ssize_t length = ::flistxattr(from, names, sizeof names);
    if (length < 0) return errno == ENOTSUP ? Status{} : sysError("list the xattrs of " + what);
    for (const char* name = names; name < names + length; name += std::strlen(name) + 1) {
        const std::string_view n(name);
        if (n.rfind("user.overlay.", 0) != 0 && n.rfind("trusted.overlay.", 0) != 0) continue;
        char value[4096];
        const ssize_t size = ::fgetxattr(from, name, value, sizeof value);
        if (size < 0 || ::fsetxattr(to, name, value, static_cast<std::size_t>(size), 0) != 0)
            return sysError("copy " + std::string(n) + " of " + what);
    }
    return {};
}

Status copyFileData(int from, int to, std::uint64_t size, LayerCopyStats& stats,
                    const std::string& what)
{
    if (::ioctl(to, FICLONE, from) == 0) {
        ++stats.cloned;
        stats.bytes += size;
        return {};
    }
    if (auto e = copyContent(from, to)) return e->within(what);
    stats.bytes += size;
    return {};
}

// Owner (as root: the agent's files are the sandbox user's), mode and times, as they were.
Status copyMetadata(int to, const struct stat& st, const std::string& what)
{
    if (::geteuid() == 0 && ::fchown(to, st.st_uid, st.st_gid) != 0)
        return sysError("set the owner of " + what);
    if (::fchmod(to, st.st_mode & 07777) != 0) return sysError("set the mode of " + what);
    const timespec times[2] = {st.st_atim, st.st_mtim};
    if (::futimens(to, times) != 0) return sysError("set the times of " + what);
    return {};
}

// The entry `name` of the folder `fromDir` into the folder `toDir` as `newName`, as it is.
Status copyEntry(int fromDir, const std::string& name, int toDir, const std::string& newName,
                 const std::string& shown, LayerCopyStats& stats)
{
    struct stat st {};
    if (::fstatat(fromDir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return sysError("stat " + shown);
    if (S_ISDIR(st.st_mode)) {
        const UniqueFd from(
            ::openat(fromDir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!from) return sysError("open " + shown);
        if (::mkdirat(toDir, newName.c_str(), 0700) != 0) return sysError("create " + shown);
        const UniqueFd to(
            ::openat(toDir, newName.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!to) return sysError("open the copy of " + shown);
        auto children = listDir(from.get());
        if (!children) return children.error();
        for (const std::string& child : *children)
            if (auto e = copyEntry(from.get(), child, to.get(), child, shown + "/" + child, stats))
                return e;
        if (auto e = copyOverlayXattrs(from.get(), to.get(), shown)) return e;
        if (auto e = copyMetadata(to.get(), st, shown)) return e;
    } else if (S_ISREG(st.st_mode)) {
        const UniqueFd from(::openat(fromDir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        if (!from) return sysError("open " + shown);
        const UniqueFd to(::openat(toDir, newName.c_str(),
                                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!to) return sysError("create " + shown);
        if (auto e = copyFileData(from.get(), to.get(), static_cast<std::uint64_t>(st.st_size),
                                  stats, shown))
            return e;
        if (auto e = copyOverlayXattrs(from.get(), to.get(), shown)) return e;
        if (auto e = copyMetadata(to.get(), st, shown)) return e;
    } else if (S_ISLNK(st.st_mode)) {
        auto target = readLinkBeneath(fromDir, name);
        if (!target) return target.error();
        if (::symlinkat(target->c_str(), toDir, newName.c_str()) != 0)
            return sysError("create the link " + shown);
        if (::geteuid() == 0 &&
            ::fchownat(toDir, newName.c_str(), st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) != 0)
            return sysError("set the owner of " + shown);
    } else if (S_ISCHR(st.st_mode) && st.st_rdev == ::makedev(0, 0)) {
        // A whiteout: the path is deleted in the session (any user may make one, Linux 5.8+).
        if (::mknodat(toDir, newName.c_str(), S_IFCHR | 0000, ::makedev(0, 0)) != 0)
            return sysError("create the whiteout " + shown);
    } else {
        return Error{ErrorCode::InvalidInput, 0,
                     shown + " is " + describeType(st.st_mode) + ", which a layer does not hold"};
    }
    ++stats.entries;
    return {};
}

fs::path snapshotsDir(const fs::path& sessionDir)
{
    return sessionDir / kSnapshots;
}

SnapshotInfo readInfo(const fs::path& dir)
{
    SnapshotInfo info;
    info.name = dir.filename().string();
    info.upper = dir / "upper";
    std::ifstream in(dir / kInfoFile);
    const json j = json::parse(in, nullptr, false);
    if (!j.is_object()) return info;
    info.takenUnixMs = j.value("taken_unix_ms", std::int64_t{0});
    info.stats.entries = j.value("entries", std::uint64_t{0});
    info.stats.bytes = j.value("bytes", std::uint64_t{0});
    info.stats.cloned = j.value("cloned", std::uint64_t{0});
    return info;
}

} // namespace

Status copyLayer(const fs::path& from, const fs::path& to, LayerCopyStats& stats)
{
    const UniqueFd fromParent(
        ::open(from.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    const UniqueFd toParent(::open(to.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fromParent || !toParent) return sysError("open the folders of " + from.string());
    auto status = copyEntry(fromParent.get(), from.filename().string(), toParent.get(),
                            to.filename().string(), from.filename().string(), stats);
    if (status) (void)removeFolderTree(to);
    return status;
}

Status checkSnapshotName(const std::string& name)
{
    const bool valid =
        !name.empty() && name.size() <= 64 && name.front() != '.' &&
        std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
        });
    if (!valid)
        return inputError("snapshot name '" + name +
                          "': 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'");
    return {};
}

Result<SnapshotInfo> takeSnapshot(const fs::path& sessionDir, const fs::path& upper,
                                  const std::string& name)
{
    if (auto e = checkSnapshotName(name)) return *e;
    const fs::path dir = snapshotsDir(sessionDir) / name;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir, ec)))
        return inputError("the session has a snapshot named '" + name + "' already");
    fs::create_directories(dir, ec);
    if (ec) return Error{ErrorCode::System, ec.value(), "create " + dir.string()};
    SnapshotInfo info;
    info.name = name;
    info.upper = dir / "upper";
    info.takenUnixMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    if (auto e = copyLayer(upper, info.upper, info.stats)) {
        fs::remove_all(dir, ec);
        return e->within("snapshot '" + name + "'");
    }
    const json j = {{"name", name},
                    {"taken_unix_ms", info.takenUnixMs},
                    {"entries", info.stats.entries},
                    {"bytes", info.stats.bytes},
                    {"cloned", info.stats.cloned}};
    if (auto e = writeFileAtomically(dir / kInfoFile, j.dump(2) + "\n")) return *e;
    return info;
}

Result<std::vector<SnapshotInfo>> listSnapshots(const fs::path& sessionDir)
{
    std::vector<SnapshotInfo> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(snapshotsDir(sessionDir), ec))
        if (entry.is_directory() && fs::exists(entry.path() / kInfoFile))
            out.push_back(readInfo(entry.path()));
    std::sort(out.begin(), out.end(), [](const SnapshotInfo& a, const SnapshotInfo& b) {
        return std::pair(a.takenUnixMs, a.name) < std::pair(b.takenUnixMs, b.name);
    });
    return out;
}

Result<SnapshotInfo> findSnapshot(const fs::path& sessionDir, const std::string& name)
{
    if (auto e = checkSnapshotName(name)) return *e;
    const fs::path dir = snapshotsDir(sessionDir) / name;
    std::error_code ec;
    if (!fs::exists(dir / kInfoFile, ec))
        return Error{ErrorCode::NotFound, 0,
                     "no snapshot '" + name + "' (sandbench-cli snapshots SESSION lists them)"};
    return readInfo(dir);
}

Status restoreSnapshot(const fs::path& sessionDir, const fs::path& upper, const std::string& name)
{
    auto snapshot = findSnapshot(sessionDir, name);
    if (!snapshot) return snapshot.error();
    // The copy is made beside the layer, then takes its place: a failure leaves the layer as
    // it was.
    const fs::path incoming = upper.parent_path() / ".upper-restoring";
    (void)removeFolderTree(incoming);
    LayerCopyStats stats;
    if (auto e = copyLayer(snapshot->upper, incoming, stats))
        return e->within("restore '" + name + "'");
    const fs::path outgoing = upper.parent_path() / ".upper-replaced";
    (void)removeFolderTree(outgoing);
    if (::rename(upper.c_str(), outgoing.c_str()) != 0) return sysError("set the layer aside");
    if (::rename(incoming.c_str(), upper.c_str()) != 0) {
        Error e = sysError("put the snapshot's layer in place");
        (void)::rename(outgoing.c_str(), upper.c_str());
        return e;
    }
    (void)removeFolderTree(outgoing);
    return {};
}

} // namespace sb
