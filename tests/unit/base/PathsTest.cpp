#include "base/Paths.h"

#include "TestSupport.h"
#include "base/Session.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <optional>
#include <set>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

TEST(Paths, FollowXdgVariables)
{
    sbtest::IsolatedXdg xdg;
    EXPECT_EQ(sb::stateDirectory(), xdg.root() / "XDG_STATE_HOME" / "sandbench");
    EXPECT_EQ(sb::dataDirectory(), xdg.root() / "XDG_DATA_HOME" / "sandbench");
    EXPECT_EQ(sb::runtimeDirectory(), xdg.root() / "XDG_RUNTIME_DIR" / "sandbench");
}

// Where the file system takes the hint (ext4 does), the sessions folder asks its allocator to
// spread session folders over the disk (see spreadSessionFolders); elsewhere nothing changes.
TEST(Session, SessionFoldersAreMarkedAsTopsOfHierarchiesWhereTheFileSystemCan)
{
    sbtest::IsolatedXdg xdg;
    sbtest::TempDir project;
    auto topdirFlag = [](const std::filesystem::path& dir) -> std::optional<bool> {
        int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int flags = 0;
        bool read = fd >= 0 && ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        if (fd >= 0) ::close(fd);
        if (!read) return std::nullopt;
        return (flags & FS_TOPDIR_FL) != 0;
    };
    // Does this file system keep the flag at all? Ask it on a folder of our own.
    sbtest::TempDir probe;
    bool supported = false;
    if (int fd = ::open(probe.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
        int flags = 0;
        if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
            flags |= FS_TOPDIR_FL;
            supported = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        }
        ::close(fd);
    }
    supported = supported && topdirFlag(probe.path()) == true;

    // Where it is refused, sessions are made all the same.
    auto created = sb::createSession(project.path(), {"true"}, "spread-1");
    ASSERT_TRUE(created) << created.error().describe();
    if (!supported) return;
    EXPECT_EQ(topdirFlag(sb::sessionsDirectory()), true);
    // The spare's thread makes the next folder, and checks the hint first too.
    int fd = ::open(sb::sessionsDirectory().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    int flags = 0;
    ASSERT_EQ(::ioctl(fd, FS_IOC_GETFLAGS, &flags), 0);
    flags &= ~FS_TOPDIR_FL;
    ASSERT_EQ(::ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
    ::close(fd);
    ASSERT_EQ(topdirFlag(sb::sessionsDirectory()), false);
    sb::prepareSpareSession();
    EXPECT_EQ(topdirFlag(sb::sessionsDirectory()), true);
}

TEST(Session, CreateLoadAndLock)
{
    sbtest::IsolatedXdg xdg;
    sbtest::TempDir project;
    auto created = sb::createSession(project.path(), {"bash", "-c", "true"}, "s-1");
    ASSERT_TRUE(created) << created.error().describe();
    struct stat st {};
    ASSERT_EQ(::stat(created->directory().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << "the session folder holds the agent's work: private";

    auto again = sb::createSession(project.path(), {"true"}, "s-1");
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().message.find("already exists"), std::string::npos);

    auto lock = sb::lockSession(*created);
    ASSERT_TRUE(lock);
    auto loaded = sb::loadSession("s-1");
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->state, sb::SessionState::Running);
    EXPECT_EQ(loaded->command, (std::vector<std::string>{"bash", "-c", "true"}));
    lock->reset();
    // The supervisor is gone without marking the end: the session is interrupted.
    EXPECT_EQ(sb::loadSession("s-1")->state, sb::SessionState::Interrupted);
}

// A running session makes the next one's folder; the next start takes it by a rename. One
// spare at most, never listed, never taken by an id already in use.
TEST(Session, TheNextSessionTakesTheSpareFolder)
{
    sbtest::IsolatedXdg xdg;
    sbtest::TempDir project;
    auto first = sb::createSession(project.path(), {"true"}, "first");
    ASSERT_TRUE(first) << first.error().describe();
    auto entries = [] {
        std::set<std::string> names;
        for (const auto& e : fs::directory_iterator(sb::sessionsDirectory()))
            names.insert(e.path().filename().string());
        return names;
    };
    EXPECT_EQ(entries(), std::set<std::string>{"first"}) << "no spare before a session made one";

    sb::prepareSpareSession();
    sb::prepareSpareSession(); // one is enough, and no half-made one is left behind
    auto withSpare = entries();
    ASSERT_EQ(withSpare.size(), 2u);
    withSpare.erase("first");
    ASSERT_EQ(withSpare.size(), 1u);
    const fs::path spare = sb::sessionsDirectory() / *withSpare.begin();
    withSpare.insert("first");
    EXPECT_FALSE(sb::isValidSessionId(spare.filename())) << "a spare is never a session";
    struct stat spareStat {};
    ASSERT_EQ(::stat(spare.c_str(), &spareStat), 0);
    EXPECT_EQ(sb::listSessions().size(), 1u);

    // An id in use: refused, and the spare stays as it was.
    auto again = sb::createSession(project.path(), {"true"}, "first");
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().message.find("already exists"), std::string::npos);
    EXPECT_EQ(entries(), withSpare);

    auto second = sb::createSession(project.path(), {"true"}, "second");
    ASSERT_TRUE(second) << second.error().describe();
    EXPECT_EQ(entries(), (std::set<std::string>{"first", "second"})) << "the spare was taken";
    struct stat taken {};
    ASSERT_EQ(::stat(second->directory().c_str(), &taken), 0);
    EXPECT_EQ(taken.st_ino, spareStat.st_ino);
    EXPECT_EQ(taken.st_mode & 0777, 0700u);
    for (const fs::path& p : {second->upperDir(), second->workDir(), second->lockFile()})
        EXPECT_TRUE(fs::exists(p)) << p;
    EXPECT_TRUE(fs::is_empty(second->upperDir()));
    auto lock = sb::lockSession(*second);
    ASSERT_TRUE(lock);
    EXPECT_EQ(sb::loadSession("second")->state, sb::SessionState::Running);
    lock->reset();
    EXPECT_EQ(sb::listSessions().size(), 2u);
}

TEST(Session, RejectsBadIds)
{
    for (const char* bad : {"", "..", "a/b", "x y", "ü", "-x", "--help", ".hidden"})
        EXPECT_FALSE(sb::isValidSessionId(bad)) << bad;
    for (const char* good : {"x", "a-b", "a.b_c", "_x", "9-"})
        EXPECT_TRUE(sb::isValidSessionId(good)) << good;
    EXPECT_TRUE(sb::isValidSessionId(sb::newSessionId()));
    auto dash = sb::checkNewSessionId("-x");
    ASSERT_TRUE(dash);
    EXPECT_NE(dash->message.find("not starting with '-'"), std::string::npos) << dash->message;
    auto missing = sb::loadSession("../etc");
    ASSERT_FALSE(missing);
}
