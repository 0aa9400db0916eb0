// unifiedDiff: each changed entry compared by Debian's diff(1), fed through descriptors we
// opened without following symlinks, so diff never resolves a path of ours itself.
#include "workspace/WorkspaceInternal.h"

#include <cerrno>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sb {

using namespace ws;

namespace {

// One side of a comparison: absent (/dev/null) or a readable descriptor.
struct Side {
    Fd fd;
    std::string label;
    bool present() const { return fd.valid(); }
};

Result<Fd> memoryFile(const std::string& content)
{
    Fd fd(::memfd_create("sandbench-diff", MFD_CLOEXEC));
    if (!fd.valid()) return sysError("memfd_create");
    std::size_t done = 0;
    while (done < content.size()) {
        ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sysError("write memfd");
        done += static_cast<std::size_t>(n);
    }
    ::lseek(fd.get(), 0, SEEK_SET);
    return fd;
}

// A symlink compares as its target, with no trailing newline (as git shows it).
Result<Fd> openSide(int rootFd, const std::string& rel, const struct statx& st)
{
    if (S_ISREG(st.stx_mode)) {
        Fd fd(openBeneath(rootFd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
        if (!fd.valid()) return sysError("open '" + rel + "'");
        return fd;
    }
    auto target = readLinkBeneath(rootFd, rel);
    if (!target) return target.error();
    return memoryFile(*target);
}

std::string readAll(int fd)
{
    std::string out;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

// Runs `diff -u` with the old side on fd 3 and the new one on fd 4, no shell, C locale so
// its wording ("Binary files … differ", "\ No newline…") is stable.
Status runDiff(const Side& oldSide, const Side& newSide, std::string& out)
{
    // Park the inputs at 10+ so the dup2s onto 3 and 4 cannot clobber one another.
    Fd oldFd(oldSide.present() ? ::fcntl(oldSide.fd.get(), F_DUPFD_CLOEXEC, 10) : -1);
    Fd newFd(newSide.present() ? ::fcntl(newSide.fd.get(), F_DUPFD_CLOEXEC, 10) : -1);
    auto errFile = memoryFile("");
    if (!errFile) return errFile.error();
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) return sysError("pipe");
    Fd readEnd(pipeFds[0]);
    Fd writeEnd(pipeFds[1]);

    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, writeEnd.get(), 1);
    ::posix_spawn_file_actions_adddup2(&actions, errFile->get(), 2);
    if (oldFd.valid()) ::posix_spawn_file_actions_adddup2(&actions, oldFd.get(), 3);
    if (newFd.valid()) ::posix_spawn_file_actions_adddup2(&actions, newFd.get(), 4);

    std::string oldPath = oldFd.valid() ? "/dev/fd/3" : "/dev/null";
    std::string newPath = newFd.valid() ? "/dev/fd/4" : "/dev/null";
    std::vector<std::string> args = {"diff",        "-u", "--label", oldSide.label, "--label",
                                     newSide.label, "--", oldPath,   newPath};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string lcAll = "LC_ALL=C", pathVar = "PATH=/usr/bin:/bin";
    char* envp[] = {lcAll.data(), pathVar.data(), nullptr};

    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, "/usr/bin/diff", &actions, nullptr, argv.data(), envp);
    if (rc == ENOENT) rc = ::posix_spawnp(&pid, "diff", &actions, nullptr, argv.data(), envp);
    ::posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return sysError("run diff (diffutils)", rc);
    writeEnd.reset();
    std::string text = readAll(readEnd.get());
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
        ::lseek(errFile->get(), 0, SEEK_SET);
        return Error{ErrorCode::System, 0,
                     "diff " + newSide.label + ": " + readAll(errFile->get())};
    }
    out += text;
    return {};
}

// The files and symlinks of a deleted real directory, each to be shown against /dev/null.
Status collectDeletedTree(int projectFd, const std::string& rel, std::vector<std::string>& out)
{
    auto dir = openDirBeneath(projectFd, rel);
    if (!dir) return dir.error();
    auto names = listDir(dir->get());
    if (!names) return names.error();
    for (const auto& name : *names) {
        auto st = statAt(dir->get(), name);
        if (!st) continue;
        std::string child = joinPath(rel, name);
        if (S_ISDIR(st->stx_mode)) {
            if (auto e = collectDeletedTree(projectFd, child, out)) return e;
        } else if (S_ISREG(st->stx_mode) || S_ISLNK(st->stx_mode)) {
            out.push_back(child);
        }
    }
    return {};
}

std::optional<struct statx> statBeneath(int rootFd, const std::string& rel)
{
    auto [parent, name] = splitParent(rel);
    Fd parentFd(openBeneath(rootFd, parent, O_PATH | O_DIRECTORY));
    if (!parentFd.valid()) return std::nullopt;
    return statAt(parentFd.get(), name);
}

bool hasContent(const std::optional<struct statx>& st)
{
    if (!st.has_value()) return false;
    const auto mode = st.value().stx_mode;
    return S_ISREG(mode) || S_ISLNK(mode);
}

// Diffs one path: the real entry (if it has content) against the upper one (likewise).
Status diffPath(int upperFd, int projectFd, const std::string& rel, bool oldExists, bool newExists,
                std::string& out)
{
    auto oldStat = oldExists ? statBeneath(projectFd, rel) : std::nullopt;
    auto newStat = newExists ? statBeneath(upperFd, rel) : std::nullopt;
    Side oldSide{Fd(), "/dev/null"}, newSide{Fd(), "/dev/null"};
    if (hasContent(oldStat)) {
        auto fd = openSide(projectFd, rel, *oldStat);
        if (!fd) return fd.error();
        oldSide = Side{std::move(*fd), "a/" + rel};
    }
    if (hasContent(newStat)) {
        auto fd = openSide(upperFd, rel, *newStat);
        if (!fd) return fd.error();
        newSide = Side{std::move(*fd), "b/" + rel};
    }
    if (!oldSide.present() && !newSide.present()) return {};
    return runDiff(oldSide, newSide, out);
}

} // namespace

Result<std::string> unifiedDiff(const std::filesystem::path& upper,
                                const std::filesystem::path& project,
                                const std::vector<std::string>& paths,
                                const RunLaterRules* runLater, const std::filesystem::path& home)
{
    auto upperFd = openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();
    auto projectFd = openRoot(project, "project directory");
    if (!projectFd) return projectFd.error();
    auto scan = scanWorkspace(upperFd->get(), projectFd->get());
    if (!scan) return scan.error();
    auto selected = selectChanges(scan->changes, paths);
    if (!selected) return selected.error();

    std::string out;
    for (auto index : *selected) {
        const Change& c = scan->changes[index].change;
        if (runLater && c.kind != ChangeKind::Deleted)
            if (auto m = runLater->match(c.path, c.type == EntryType::Directory, project, home))
                out += "!! " + c.path + " runs later (" + m->reason + "): apply holds it back\n";
        Status status;
        if (c.kind == ChangeKind::Deleted && c.type == EntryType::Directory) {
            std::vector<std::string> files;
            status = collectDeletedTree(projectFd->get(), c.path, files);
            for (std::size_t i = 0; !status && i < files.size(); ++i)
                status = diffPath(upperFd->get(), projectFd->get(), files[i], true, false, out);
        } else {
            status = diffPath(upperFd->get(), projectFd->get(), c.path, c.kind != ChangeKind::Added,
                              c.kind != ChangeKind::Deleted, out);
        }
        // One unreadable entry should not hide the rest of the review.
        if (status) out += "Cannot diff " + c.path + ": " + status->describe() + "\n";
    }
    return out;
}

} // namespace sb
