// The sandbox's passwd and group with its own uid renamed (E2B's `user`).
#include "sandbox/SandboxUser.h"

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(SandboxUser, PasswdRenamesTheSandboxUidAndKeepsTheRest)
{
    const std::string system = "root:x:0:0:root:/root:/bin/bash\n"
                               "user:x:1500:1500:someone else:/home/user:/bin/bash\n"
                               "dev:x:1000:1000:Dev:/home/dev:/bin/zsh\n"
                               "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
    EXPECT_EQ(passwdWithUser(system, "user", 1000, 1000, "/home/user"),
              "root:x:0:0:root:/root:/bin/bash\n"
              "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
              "user:x:1000:1000:user:/home/user:/bin/zsh\n");
    // Under root the sandbox is the overflow uid: its nologin shell does not come along.
    EXPECT_EQ(passwdWithUser(system, "user", 65534, 65534, "/home/user"),
              "root:x:0:0:root:/root:/bin/bash\n"
              "dev:x:1000:1000:Dev:/home/dev:/bin/zsh\n"
              "user:x:65534:65534:user:/home/user:/bin/sh\n");
    EXPECT_EQ(passwdWithUser("", "user", 7, 8, "/h"), "user:x:7:8:user:/h:/bin/sh\n");
}

TEST(SandboxUser, GroupRenamesTheSandboxGid)
{
    const std::string system = "root:x:0:\nuser:x:1500:\ndev:x:1000:dev\nnogroup:x:65534:\n";
    EXPECT_EQ(groupWithUser(system, "user", 1000), "root:x:0:\nnogroup:x:65534:\nuser:x:1000:\n");
    EXPECT_EQ(groupWithUser("malformed\n", "user", 5), "malformed\nuser:x:5:\n");
}

} // namespace
} // namespace sb
