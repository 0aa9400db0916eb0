#include "Paths.h"
#include "Session.h"
#include "TestSupport.h"

#include <sys/stat.h>

namespace fs = std::filesystem;

TEST(Paths, FollowXdgVariables)
{
    sbtest::IsolatedXdg xdg;
    EXPECT_EQ(sb::stateDirectory(), xdg.root() / "XDG_STATE_HOME" / "sandbench");
    EXPECT_EQ(sb::dataDirectory(), xdg.root() / "XDG_DATA_HOME" / "sandbench");
    EXPECT_EQ(sb::runtimeDirectory(), xdg.root() / "XDG_RUNTIME_DIR" / "sandbench");
}

TEST(Session, CreateLoadAndLock)
{
    sbtest::IsolatedXdg xdg;
    sbtest::TempDir project;
    auto created = sb::createSession(project.path(), {"bash", "-c", "true"}, "s-1");
    ASSERT_TRUE(created) << created.error().describe();
    struct stat st{};
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
    ::close(*lock);
    // The supervisor is gone without marking the end: the session is interrupted.
    EXPECT_EQ(sb::loadSession("s-1")->state, sb::SessionState::Interrupted);
}

TEST(Session, RejectsBadIds)
{
    for (const char* bad : {"", "..", "a/b", "x y", "ü"})
        EXPECT_FALSE(sb::isValidSessionId(bad)) << bad;
    EXPECT_TRUE(sb::isValidSessionId(sb::newSessionId()));
    auto missing = sb::loadSession("../etc");
    ASSERT_FALSE(missing);
}
