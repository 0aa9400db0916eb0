// Landlock write restriction, checked in a forked child (the restriction cannot be undone).
#include "sandbox/Landlock.h"

#include "TestSupport.h"

#include <cerrno>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

int errnoOf(int rc)
{
    return rc < 0 ? errno : 0;
}

int openAndClose(const fs::path& path, int flags)
{
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    ::close(fd);
    return 0;
}

int readsAs(const fs::path& path, const std::string& expected)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    char buffer[64] = {};
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    int err = n < 0 ? errno : 0;
    ::close(fd);
    if (err != 0) return err;
    return std::string(buffer, static_cast<size_t>(n)) == expected ? 0 : EIO;
}

int listDirectory(const fs::path& path)
{
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return errno;
    ::closedir(dir);
    return 0;
}

// Forks, restricts writes in the child, runs `checks` there and returns what each answered
// (an errno, 0 for success); "restrict" holds the ABI, or -1 with the error on stderr.
using Checks = std::vector<std::pair<std::string, std::function<int()>>>;

std::map<std::string, int> inRestrictedChild(const std::vector<fs::path>& writable,
                                             const Checks& checks)
{
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    pid_t pid = ::fork();
    if (pid == 0) {
        std::ostringstream report;
        if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(125);
        auto abi = sb::restrictWritesTo(writable);
        if (!abi) {
            std::fprintf(stderr, "restrictWritesTo: %s\n", abi.error().describe().c_str());
            report << "restrict -1\n";
        } else {
            report << "restrict " << *abi << "\n";
            for (const auto& [name, check] : checks)
                report << name << " " << check() << "\n";
        }
        std::string text = report.str();
        // The pipe was opened before the restriction: Landlock checks rights at open time.
        ssize_t written = ::write(out[1], text.data(), text.size());
        ::_exit(written == static_cast<ssize_t>(text.size()) ? 0 : 1);
    }
    ::close(out[1]);
    std::string text;
    char buffer[1024];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;)
        text.append(buffer, static_cast<size_t>(n));
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::map<std::string, int> results;
    std::istringstream in(text);
    for (std::string name; in >> name;)
        in >> results[name];
    return results;
}

TEST(Landlock, WritesOnlyBeneathTheGivenDirectories)
{
    const int kernelAbi = sb::landlockAbi();
    if (kernelAbi == 0)
        SB_SKIP("the kernel has no Landlock (not built in, or not enabled with lsm=)");
    sbtest::TempDir writable;
    sbtest::TempDir other;
    sbtest::writeFile(other / "existing", "before");
    fs::create_directory(other / "subdir");

    const Checks checks = {
        {"create_writable", [&] { return openAndClose(writable / "new", O_CREAT | O_WRONLY); }},
        {"mkdir_writable", [&] { return errnoOf(::mkdir((writable / "d").c_str(), 0755)); }},
        {"rename_writable",
         [&] { return errnoOf(::rename((writable / "new").c_str(), (writable / "d/n").c_str())); }},
        {"create_other", [&] { return openAndClose(other / "new", O_CREAT | O_WRONLY); }},
        {"write_other", [&] { return openAndClose(other / "existing", O_WRONLY); }},
        {"truncate_other", [&] { return errnoOf(::truncate((other / "existing").c_str(), 0)); }},
        {"unlink_other", [&] { return errnoOf(::unlink((other / "existing").c_str())); }},
        {"mkdir_other", [&] { return errnoOf(::mkdir((other / "d").c_str(), 0755)); }},
        {"rmdir_other", [&] { return errnoOf(::rmdir((other / "subdir").c_str())); }},
        {"symlink_other", [&] { return errnoOf(::symlink("x", (other / "link").c_str())); }},
        {"read_other", [&] { return readsAs(other / "existing", "before"); }},
        {"list_other", [&] { return listDirectory(other.path()); }},
        {"devnull_unlisted", [] { return openAndClose("/dev/null", O_WRONLY); }},
    };
    auto got = inRestrictedChild({writable.path(), "/nonexistent/sandbench-landlock"}, checks);

    ASSERT_EQ(got["restrict"], kernelAbi) << "a missing directory in the list must be skipped";
    EXPECT_EQ(got["create_writable"], 0);
    EXPECT_EQ(got["mkdir_writable"], 0);
    EXPECT_EQ(got["rename_writable"], 0) << "moving between directories needs REFER";
    EXPECT_EQ(got["create_other"], EACCES);
    EXPECT_EQ(got["write_other"], EACCES);
    // truncate(2) is only covered from ABI 3 on.
    EXPECT_EQ(got["truncate_other"], kernelAbi >= 3 ? EACCES : 0);
    EXPECT_EQ(got["unlink_other"], EACCES);
    EXPECT_EQ(got["mkdir_other"], EACCES);
    EXPECT_EQ(got["rmdir_other"], EACCES);
    EXPECT_EQ(got["symlink_other"], EACCES);
    EXPECT_EQ(got["read_other"], 0) << "reads stay allowed everywhere";
    EXPECT_EQ(got["list_other"], 0);
    EXPECT_EQ(got["devnull_unlisted"], EACCES) << "device files count as files: pass /dev";
    if (kernelAbi >= 3) {
        EXPECT_EQ(sbtest::readFile(other / "existing"), "before") << "nothing written outside";
    }
}

TEST(Landlock, DevAndSingleFilesCanBeMadeWritable)
{
    const int kernelAbi = sb::landlockAbi();
    if (kernelAbi == 0)
        SB_SKIP("the kernel has no Landlock (not built in, or not enabled with lsm=)");
    sbtest::TempDir dir;
    sbtest::writeFile(dir / "allowed", "a");
    sbtest::writeFile(dir / "sibling", "b");

    const Checks checks = {
        {"devnull", [] { return openAndClose("/dev/null", O_WRONLY); }},
        {"write_file", [&] { return openAndClose(dir / "allowed", O_WRONLY | O_TRUNC); }},
        {"write_sibling", [&] { return openAndClose(dir / "sibling", O_WRONLY); }},
        {"create_beside", [&] { return openAndClose(dir / "new", O_CREAT | O_WRONLY); }},
        {"exec",
         [] {
             pid_t child = ::fork();
             if (child == 0) {
                 std::string path = sbtest::trySyscallPath();
                 ::execl(path.c_str(), path.c_str(), "--noop", nullptr);
                 ::_exit(127);
             }
             int status = 0;
             ::waitpid(child, &status, 0);
             return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
         }},
    };
    auto got = inRestrictedChild({"/dev", dir / "allowed"}, checks);

    ASSERT_EQ(got["restrict"], kernelAbi);
    EXPECT_EQ(got["devnull"], 0);
    EXPECT_EQ(got["write_file"], 0);
    EXPECT_EQ(got["write_sibling"], EACCES);
    EXPECT_EQ(got["create_beside"], EACCES);
    EXPECT_EQ(got["exec"], 0) << "execution stays allowed everywhere";
}

} // namespace
