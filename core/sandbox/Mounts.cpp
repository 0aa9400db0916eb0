#include "sandbox/Mounts.h"

#include "base/UniqueFd.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

// Phase one pivots into a scratch tmpfs where the old root stays reachable at /oldroot
// (even the host's /tmp, which the scratch tmpfs covered before the pivot). The new root is
// assembled at /newroot from binds of /oldroot/…; phase two pivots into it.
constexpr const char* kScratch = "/tmp";
const fs::path kOldRoot = "/oldroot";
const fs::path kNewRoot = "/newroot";
const fs::path kStaging = "/staging";
const char* const kNewProc = "/newroot/proc"; // init's pid namespace, mounted by mountProc

const char* const kSystemFolders[] = {"/usr", "/etc",   "/opt",   "/bin",   "/sbin",
                                      "/lib", "/lib32", "/lib64", "/libx32"};
const char* const kDevices[] = {"null", "zero", "full", "random", "urandom", "tty"};

fs::path under(const fs::path& root, const fs::path& absolute)
{
    return root / absolute.relative_path();
}

Status mountFs(const char* type, const fs::path& target, unsigned long flags,
               const std::string& options)
{
    if (::mount(type, target.c_str(), type, flags, options.empty() ? nullptr : options.c_str()) !=
        0)
        return sysError(std::string("mount ") + type + " on " + target.string());
    return {};
}

// Mount points are mostly new folders in a fresh tmpfs: mkdir first, and look at the path only
// when that fails (std::filesystem::create_directories stats each level before it creates one:
// two more system calls for every mount point of a start).
Status makeDirs(const fs::path& dir)
{
    if (::mkdir(dir.c_str(), 0777) == 0) return {};
    int err = errno;
    if (err == ENOENT && dir.has_relative_path()) {
        if (auto e = makeDirs(dir.parent_path())) return e;
        if (::mkdir(dir.c_str(), 0777) == 0) return {};
        err = errno;
    }
    struct stat st {};
    if (err == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return {};
    return sysError("create " + dir.string(), err == EEXIST ? ENOTDIR : err);
}

// A mount point for `source`: a folder, or an empty file when the source is not a folder
// (created first, its folders only when that fails, as makeDirs does).
Status makeMountPoint(const fs::path& target, const fs::path& source)
{
    struct stat st {};
    if (::stat(source.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
        auto create = [&target] {
            return ::open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        };
        int fd = create();
        if (fd < 0 && errno == ENOENT) {
            if (auto e = makeDirs(target.parent_path())) return e;
            fd = create();
        }
        // Under a read-only folder (a protection re-binding what is in it), the file that is
        // there already is the mount point.
        struct stat existing {};
        if (fd < 0 && (errno == EROFS || errno == EACCES) &&
            ::lstat(target.c_str(), &existing) == 0)
            return {};
        if (fd < 0) return sysError("create mount point " + target.string());
        ::close(fd);
        return {};
    }
    return makeDirs(target);
}

Status setMountAttributes(const fs::path& target, std::uint64_t set, bool recursive)
{
    mount_attr attr{};
    attr.attr_set = set;
    if (::mount_setattr(AT_FDCWD, target.c_str(), recursive ? AT_RECURSIVE : 0, &attr,
                        sizeof attr) != 0)
        return sysError("restrict mount " + target.string());
    return {};
}

// Binds `source` at `target` (a clone of the mount tree) and restricts it: nosuid, and nodev
// unless it is a device node (kDevices). With an idmap namespace the clone is not recursive:
// idmapping applies to one mount at a time.
enum class Nodes { Forbidden, Allowed };
Status bindMount(const fs::path& source, const fs::path& target, AccessMode mode, int idmapFd = -1,
                 Nodes devices = Nodes::Forbidden)
{
    if (auto e = makeMountPoint(target, source)) return e;
    unsigned treeFlags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (idmapFd < 0 ? AT_RECURSIVE : 0);
    const UniqueFd tree(::open_tree(AT_FDCWD, source.c_str(), treeFlags));
    if (!tree) return sysError("clone mount " + source.string());
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_NOSUID | (devices == Nodes::Forbidden ? MOUNT_ATTR_NODEV : 0);
    if (mode == AccessMode::ReadOnly) attr.attr_set |= MOUNT_ATTR_RDONLY;
    if (idmapFd >= 0) {
        attr.attr_set |= MOUNT_ATTR_IDMAP;
        attr.userns_fd = static_cast<std::uint64_t>(idmapFd);
    }
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | (idmapFd < 0 ? AT_RECURSIVE : 0), &attr,
                        sizeof attr) != 0)
        return sysError(std::string(idmapFd >= 0 ? "idmap" : "restrict") + " mount " +
                        source.string());
    if (::move_mount(tree.get(), "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
        return sysError("bind " + source.string() + " on " + target.string());
    return {};
}

Status pivotInto(const fs::path& root, const fs::path& putOld)
{
    if (::syscall(SYS_pivot_root, root.c_str(), putOld.c_str()) != 0)
        return sysError("pivot_root into " + root.string());
    if (::chdir("/") != 0) return sysError("chdir /");
    return {};
}

Status enterScratchRoot()
{
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return sysError("make mounts private");
    if (auto e = mountFs("tmpfs", kScratch, MS_NOSUID | MS_NODEV, "mode=0755,size=1m")) return e;
    for (const fs::path& dir : {kOldRoot, kNewRoot, kStaging})
        if (auto e = makeDirs(fs::path(kScratch) / dir.relative_path())) return e;
    return pivotInto(kScratch, fs::path(kScratch) / kOldRoot.relative_path());
}

Status bindSystemFolders(const fs::path& systemRoot)
{
    for (const char* folder : kSystemFolders) {
        fs::path host = under(under(kOldRoot, systemRoot), folder);
        struct stat st {};
        if (::lstat(host.c_str(), &st) != 0) continue;
        fs::path target = under(kNewRoot, folder);
        if (S_ISLNK(st.st_mode)) {
            std::error_code ec;
            fs::path link = fs::read_symlink(host, ec);
            if (ec || ::symlink(link.c_str(), target.c_str()) != 0)
                return sysError("recreate symlink " + std::string(folder));
        } else if (S_ISDIR(st.st_mode)) {
            if (auto e = bindMount(host, target, AccessMode::ReadOnly)) return e;
        }
    }
    return {};
}

Status mountDev(const SandboxIdentity& id)
{
    fs::path dev = under(kNewRoot, "/dev");
    if (auto e = makeDirs(dev)) return e;
    if (auto e = mountFs("tmpfs", dev, MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")) return e;
    // The only mounts of the sandbox where device nodes work.
    for (const char* name : kDevices)
        if (auto e = bindMount(under(kOldRoot, "/dev") / name, dev / name, AccessMode::ReadWrite,
                               -1, Nodes::Allowed))
            return e;
    if (auto e = makeDirs(dev / "pts")) return e;
    std::string ptsOptions = "newinstance,ptmxmode=0666,mode=0620";
    if (!id.privileged) ptsOptions += ",gid=" + std::to_string(id.gid);
    if (auto e = mountFs("devpts", dev / "pts", MS_NOSUID | MS_NOEXEC, ptsOptions)) return e;
    if (auto e = makeDirs(dev / "shm")) return e;
    if (auto e = mountFs("tmpfs", dev / "shm", MS_NOSUID | MS_NODEV, "mode=1777")) return e;
    const std::pair<const char*, const char*> links[] = {{"pts/ptmx", "ptmx"},
                                                         {"/proc/self/fd", "fd"},
                                                         {"/proc/self/fd/0", "stdin"},
                                                         {"/proc/self/fd/1", "stdout"},
                                                         {"/proc/self/fd/2", "stderr"}};
    for (const auto& [target, name] : links)
        if (::symlink(target, (dev / name).c_str()) != 0)
            return sysError("create /dev/" + std::string(name));
    return {};
}

Status mountProc()
{
    fs::path proc = under(kNewRoot, "/proc");
    if (auto e = makeDirs(proc)) return e;
    if (auto e = mountFs("proc", proc, MS_NOSUID | MS_NODEV | MS_NOEXEC, "")) return e;
    // Kernel tunables stay readable but not writable, even where a capability would allow it.
    if (auto e = bindMount(proc / "sys", proc / "sys", AccessMode::ReadOnly)) return e;
    return {};
}

std::string tmpfsOptions(const char* mode, const SandboxIdentity& id)
{
    return std::string("mode=") + mode + ",uid=" + std::to_string(id.uid) +
           ",gid=" + std::to_string(id.gid);
}

// bindMount for what the sandbox user works on: as root, its files show as the sandbox user's
// (an idmapped mount from their owner to it); without root the user is already their owner.
// `what` names the step when the owner cannot be read.
Status bindAsSandboxUser(const fs::path& host, const fs::path& target, AccessMode mode,
                         const SandboxIdentity& id, const std::string& what)
{
    if (!id.privileged) return bindMount(host, target, mode);
    struct stat st {};
    if (::stat(host.c_str(), &st) != 0) return sysError(what);
    auto ns = makeIdmapNamespace(st.st_uid, st.st_gid, id.uid, id.gid, kNewProc);
    if (!ns) return ns.error();
    const UniqueFd idmap(*ns);
    return bindMount(host, target, mode, idmap.get());
}

// Overlay layers reach the mount through simple staging paths, so no user path (with its
// commas or colons) ever lands in the overlay option string.
Status mountProjectOverlay(const SandboxConfig& config, const SandboxIdentity& id)
{
    fs::path lower = kStaging / "lower";
    fs::path session = kStaging / "session";
    fs::path hostProject = under(kOldRoot, config.project);
    // Root's sandbox user must be able to edit the project: the owner's files show as its.
    if (auto e = bindAsSandboxUser(hostProject, lower, AccessMode::ReadOnly, id,
                                   "stat " + config.project.string()))
        return e;
    if (auto e = bindMount(under(kOldRoot, config.sessionDir), session, AccessMode::ReadWrite))
        return e;
    fs::path target = under(kNewRoot, config.projectInside);
    if (auto e = makeDirs(target)) return e;
    // volatile: the upper layer is not synced at unmount. Without it, unmounting syncs the
    // whole file system the session folder is on, which dominated cold start. A crash of the
    // machine (not of Sandbench) can then lose the session's most recent writes.
    std::string options = "lowerdir=" + lower.string() +
                          ",upperdir=" + (session / "upper").string() +
                          ",workdir=" + (session / "work").string() + ",userxattr,volatile";
    return mountFs("overlay", target, MS_NOSUID | MS_NODEV, options);
}

Status bindExposure(const BindMount& bind, const SandboxIdentity& id)
{
    return bindAsSandboxUser(under(kOldRoot, bind.path), under(kNewRoot, bind.path), bind.mode, id,
                             "expose " + bind.path.string());
}

Status maskPath(const fs::path& path)
{
    fs::path target = under(kNewRoot, path);
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) return {}; // nothing there to hide
    if (S_ISDIR(st.st_mode))
        return mountFs("tmpfs", target, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0000");
    fs::path empty = kStaging / "empty";
    int fd = ::open(empty.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0000);
    if (fd >= 0) ::close(fd);
    return bindMount(empty, target, AccessMode::ReadOnly);
}

// Home, /tmp, the project and the exposures, parents before children.
Status mountWorkspace(const SandboxConfig& config, const SandboxIdentity& id)
{
    struct Step {
        fs::path path;
        int order; // among equal depths: tmpfs, then overlay, then binds
        const BindMount* bind;
    };
    std::vector<Step> steps = {
        {"/tmp", 0, nullptr}, {config.home, 0, nullptr}, {config.projectInside, 1, nullptr}};
    for (const BindMount& bind : config.binds)
        steps.push_back({bind.path, 2, &bind});
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
        auto depth = [](const fs::path& p) { return std::distance(p.begin(), p.end()); };
        return std::pair(depth(a.path), a.order) < std::pair(depth(b.path), b.order);
    });
    for (const Step& step : steps) {
        Status failed;
        if (step.bind != nullptr) {
            failed = bindExposure(*step.bind, id);
        } else if (step.order == 1) {
            failed = mountProjectOverlay(config, id);
        } else {
            fs::path target = under(kNewRoot, step.path);
            bool isTmp = step.path == "/tmp";
            failed = makeDirs(target);
            if (!failed)
                failed = mountFs("tmpfs", target, MS_NOSUID | MS_NODEV,
                                 tmpfsOptions(isTmp ? "1777" : "0700", id));
        }
        if (failed) return failed;
    }
    for (const BindMount& protection : config.protections)
        if (auto e = bindExposure(protection, id)) return e;
    for (const fs::path& mask : config.masks)
        if (auto e = maskPath(mask)) return e;
    for (const SandboxConfig::FileBind& file : config.files)
        if (auto e = bindMount(under(kOldRoot, file.source), under(kNewRoot, file.target),
                               AccessMode::ReadOnly))
            return e;
    return {};
}

Status enterNewRoot()
{
    if (auto e = setMountAttributes(kNewRoot, MOUNT_ATTR_RDONLY, false)) return e;
    if (::chdir(kNewRoot.c_str()) != 0) return sysError("chdir " + kNewRoot.string());
    if (::syscall(SYS_pivot_root, ".", ".") != 0) return sysError("pivot_root into the new root");
    // The scratch root now lies over the new one; detaching it takes the host's root and the
    // staging mounts along, in one unmount: each unmount waits for an RCU grace period.
    if (::umount2(".", MNT_DETACH) != 0) return sysError("detach the scratch and host roots");
    if (::chdir("/") != 0) return sysError("chdir /");
    return {};
}

// A file of the sandbox's /etc with the text given: a file of the staging folder bound over
// the one the system folders brought, or over where its link points (systemd-resolved's
// /run/systemd/resolve/stub-resolv.conf, made in the new root where the sandbox has none).
Status replaceEtcFile(const fs::path& path, const std::string& text)
{
    const fs::path file = kStaging / path.filename();
    const UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        return sysError("write the sandbox's " + path.string());
    fs::path target = path;
    for (int hops = 0; hops < 8; ++hops) {
        struct stat st {};
        const fs::path inside = under(kNewRoot, target);
        if (::lstat(inside.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
        std::error_code ec;
        const fs::path link = fs::read_symlink(inside, ec);
        if (ec) return sysError("read the link " + target.string());
        target = (link.is_absolute() ? link : target.parent_path() / link).lexically_normal();
    }
    if (auto e = bindMount(file, under(kNewRoot, target), AccessMode::ReadOnly))
        return e->within("replace the sandbox's " + path.string());
    return {};
}

} // namespace

Status buildRootFilesystem(const SandboxConfig& config, const SandboxIdentity& id,
                           const EtcFiles& etcFiles)
{
    if (auto e = enterScratchRoot()) return e;
    if (auto e = mountFs("tmpfs", kNewRoot, MS_NOSUID | MS_NODEV, "mode=0755")) return e;
    if (auto e = bindSystemFolders(config.systemRoot)) return e;
    for (const auto& [path, text] : etcFiles)
        if (auto e = replaceEtcFile(path, text)) return e;
    if (auto e = mountDev(id)) return e;
    if (auto e = mountProc()) // needs the host's /proc still visible at /oldroot
        return e;
    if (auto e = mountWorkspace(config, id)) return e;
    return enterNewRoot();
}

std::vector<fs::path> writableFolders(const SandboxConfig& config)
{
    std::vector<fs::path> out = {config.projectInside, "/tmp", config.home, "/dev"};
    for (const BindMount& bind : config.binds)
        if (bind.mode == AccessMode::ReadWrite) out.push_back(bind.path);
    return out;
}

} // namespace sb
