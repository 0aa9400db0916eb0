// unifiedDiff: every change `changes` lists, in git's style: a "diff --git" line, the modes of
// what was added, deleted or changed mode, then the content. A file on one side only is written
// out here; one on both sides is compared by Debian's diff(1), fed through descriptors we opened
// without following symlinks, so diff never resolves a path of ours itself. A special file
// (FIFO, socket, device) and a folder show their mode alone.
#include "base/Bytes.h"
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
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
    UniqueFd fd;
    std::string label;
    bool present() const { return fd.valid(); }
};

Result<UniqueFd> memoryFile(const std::string& content)
{
    UniqueFd fd(::memfd_create("sandbench-diff", MFD_CLOEXEC));
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
Result<UniqueFd> openSide(int rootFd, const std::string& rel, const struct statx& st)
{
    if (S_ISREG(st.stx_mode)) {
        UniqueFd fd(openBeneath(rootFd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
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
    UniqueFd oldFd(oldSide.present() ? ::fcntl(oldSide.fd.get(), F_DUPFD_CLOEXEC, 10) : -1);
    UniqueFd newFd(newSide.present() ? ::fcntl(newSide.fd.get(), F_DUPFD_CLOEXEC, 10) : -1);
    auto errFile = memoryFile("");
    if (!errFile) return errFile.error();
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) return sysError("pipe");
    UniqueFd readEnd(pipeFds[0]);
    UniqueFd writeEnd(pipeFds[1]);

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

// The entries of a deleted real directory but folders, each to be shown as deleted.
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
        } else {
            out.push_back(child);
        }
    }
    return {};
}

std::optional<struct statx> statBeneath(int rootFd, const std::string& rel)
{
    auto [parent, name] = splitParent(rel);
    UniqueFd parentFd(openBeneath(rootFd, parent, O_PATH | O_DIRECTORY));
    if (!parentFd.valid()) return std::nullopt;
    return statAt(parentFd.get(), name);
}

bool hasContent(mode_t mode)
{
    return S_ISREG(mode) || S_ISLNK(mode);
}

// git's way of writing a mode: type and permission bits, in octal (100644, 120000, 040755).
std::string modeText(mode_t mode)
{
    if (S_ISLNK(mode)) return "120000"; // a link's own permissions mean nothing
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06o", static_cast<unsigned>(mode & (S_IFMT | 07777)));
    return buf;
}

const char* specialKind(mode_t mode)
{
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "a special file";
}

Result<std::string> contentOf(int rootFd, const std::string& rel, const struct statx& st)
{
    auto fd = openSide(rootFd, rel, st);
    if (!fd) return fd.error();
    return readAll(fd->get());
}

// A file on one side only, written as diff -u would against /dev/null: every line added (or
// removed), "Binary files … differ" when it holds a NUL byte in its first 8000, as git judges.
Status oneSided(int rootFd, const std::string& rel, const struct statx& st, bool added,
                std::string& out)
{
    auto content = contentOf(rootFd, rel, st);
    if (!content) return content.error();
    if (content->empty()) return {};
    const std::string oldLabel = added ? "/dev/null" : quotedPath("a/" + rel);
    const std::string newLabel = added ? quotedPath("b/" + rel) : "/dev/null";
    if (content->find('\0') < 8000) {
        out += "Binary files " + oldLabel + " and " + newLabel + " differ\n";
        return {};
    }
    std::size_t lines =
        static_cast<std::size_t>(std::count(content->begin(), content->end(), '\n'));
    const bool unterminated = content->back() != '\n';
    if (unterminated) ++lines;
    const std::string range = lines == 1 ? "1" : "1," + std::to_string(lines);
    out += "--- " + oldLabel + "\n+++ " + newLabel + "\n";
    out += added ? "@@ -0,0 +" + range + " @@\n" : "@@ -" + range + " +0,0 @@\n";
    const char mark = added ? '+' : '-';
    std::size_t start = 0;
    while (start < content->size()) {
        std::size_t end = content->find('\n', start);
        if (end == std::string::npos) end = content->size();
        out += mark;
        out.append(*content, start, end - start);
        out += '\n';
        start = end + 1;
    }
    if (unterminated) out += "\\ No newline at end of file\n";
    return {};
}

// One path: git's header with the modes, then the content of the side(s) that have some.
Status diffPath(int upperFd, int projectFd, const std::string& rel, bool oldExists, bool newExists,
                std::string& out)
{
    struct statx oldSt {
    }, newSt{};
    if (oldExists) {
        auto st = statBeneath(projectFd, rel);
        oldExists = st.has_value();
        if (st) oldSt = *st;
    }
    if (newExists) {
        auto st = statBeneath(upperFd, rel);
        newExists = st.has_value();
        if (st) newSt = *st;
    }
    if (!oldExists && !newExists) return {};
    const mode_t oldMode = oldSt.stx_mode, newMode = newSt.stx_mode;
    const std::string oldLabel = quotedPath("a/" + rel), newLabel = quotedPath("b/" + rel);
    const std::string header = "diff --git " + oldLabel + " " + newLabel + "\n";
    out += header;
    // A change of type is a deletion and an addition, as git shows it.
    if (oldExists && newExists && (oldMode & S_IFMT) != (newMode & S_IFMT)) {
        out += "deleted file mode " + modeText(oldMode) + "\n";
        if (hasContent(oldMode))
            if (auto e = oneSided(projectFd, rel, oldSt, false, out)) return e;
        out += header;
        out += "new file mode " + modeText(newMode) + "\n";
        if (!hasContent(newMode)) return {};
        return oneSided(upperFd, rel, newSt, true, out);
    }
    if (!oldExists) out += "new file mode " + modeText(newMode) + "\n";
    if (!newExists) out += "deleted file mode " + modeText(oldMode) + "\n";
    if (oldExists && newExists && oldMode != newMode)
        out += "old mode " + modeText(oldMode) + "\nnew mode " + modeText(newMode) + "\n";
    const mode_t mode = newExists ? newMode : oldMode;
    if (!hasContent(mode)) {
        if (!S_ISDIR(mode)) out += "(" + std::string(specialKind(mode)) + ": no content)\n";
        return {};
    }
    if (!oldExists) return oneSided(upperFd, rel, newSt, true, out);
    if (!newExists) return oneSided(projectFd, rel, oldSt, false, out);
    // On both sides: the same content (a change of mode alone, seen without running diff(1)
    // when it is small enough to compare here), or diff(1)'s comparison.
    constexpr std::uint64_t kCompareHere = std::uint64_t{16} << 20;
    if (oldSt.stx_size == newSt.stx_size && newSt.stx_size <= kCompareHere) {
        auto oldContent = contentOf(projectFd, rel, oldSt);
        if (!oldContent) return oldContent.error();
        auto newContent = contentOf(upperFd, rel, newSt);
        if (!newContent) return newContent.error();
        if (*oldContent == *newContent) return {};
    }
    auto oldFd = openSide(projectFd, rel, oldSt);
    if (!oldFd) return oldFd.error();
    auto newFd = openSide(upperFd, rel, newSt);
    if (!newFd) return newFd.error();
    return runDiff(Side{std::move(*oldFd), oldLabel}, Side{std::move(*newFd), newLabel}, out);
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
            std::vector<std::string> files = {c.path}; // the folder, then what it held
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
