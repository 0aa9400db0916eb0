// A process inside a sandbox must not drive a session even where it can reach the socket: the
// server refuses a peer of another pid namespace. Real namespaces, a real server and socket.
#include "control/PeerCheck.h"

#include "control/ControlHarness.h"

#include <csignal>
#include <sched.h>
#include <sys/wait.h>

using namespace sbtest;

TEST(PeerCheck, ThisProcessRunsInThePidNamespaceProcWasMountedFor)
{
    auto self = sb::pidNamespaceDepth("self");
    ASSERT_TRUE(self) << self.error().describe();
    EXPECT_GE(*self, 1);
    auto parent = sb::pidNamespaceDepth(std::to_string(::getppid()));
    ASSERT_TRUE(parent) << parent.error().describe();
    EXPECT_EQ(*parent, *self);
    EXPECT_FALSE(sb::pidNamespaceDepth("999999999")) << "no such process";
}

TEST(PeerCheck, APeerInAPidNamespaceOfItsOwnIsRefusedAtOnce)
{
    IsolatedXdg xdg;
    ServerHarness h;
    const std::string socket = h.socketPath().string();
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    pid_t child = ::fork();
    if (child == 0) {
        // Only async-signal-safe calls: the parent has threads. A new user namespace lets an
        // unprivileged user make the pid namespace, as the sandbox does.
        ::close(report[0]);
        if (::unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) {
            (void)!::write(report[1], "u", 1);
            ::_exit(20);
        }
        pid_t inside = ::fork(); // pid 1 of the new namespace
        if (inside == 0) ::_exit(refusedAtOnce(socket.c_str()));
        int status = 0;
        if (inside < 0 || ::waitpid(inside, &status, 0) != inside || !WIFEXITED(status))
            ::_exit(13);
        ::_exit(WEXITSTATUS(status));
    }
    ::close(report[1]);
    char why = 0;
    const bool noNamespace = ::read(report[0], &why, 1) == 1;
    ::close(report[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (noNamespace) SB_SKIP("cannot make a user and pid namespace here (unshare failed)");
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "11: connect, 12: not refused, 13: wait";
    EXPECT_TRUE(h.logged("pid namespace of its own")) << "the refusal is logged with its reason";
    auto owner = sb::ControlClient::connectPath(h.socketPath(), "owner", sb::proto::Role::Viewer);
    EXPECT_TRUE(owner) << "a client of this namespace still gets in";
}
