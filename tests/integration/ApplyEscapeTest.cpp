// Apply-time tricks: the agent cannot write outside the sandbox, so it leaves something in the
// workspace that it hopes `sandbench-cli apply` will carry out for it. Each test runs the real
// CLI end to end: a session in a real sandbox, then changes/apply as the user would.
#include "IntegrationSupport.h"

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using sbit::quote;

namespace {

using sbit::contains;
using sbit::dump;

class ApplyEscape : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
};

// Names in a folder, sorted, for before/after comparisons.
std::vector<std::string> listing(const fs::path& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        out.push_back(fs::relative(e.path(), dir).string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_F(ApplyEscape, SymlinkToHomeSshIsAppliedAsSymlinkAndNeverWrittenThrough)
{
    const fs::path ssh = sb.home() / ".ssh";
    sbtest::writeFile(ssh / "authorized_keys", "ssh-ed25519 AAAA trusted\n");
    const auto before = listing(ssh);
    // Inside, ~/.ssh does not exist (home is an empty tmpfs): the agent makes one there and
    // writes through its links, hoping apply repeats the writes on the host.
    auto r = sb.run("s", {"bash", "-c",
                          "ln -s " + quote(ssh.string()) + " link && ln -s " +
                              quote((ssh / "authorized_keys").string()) +
                              " keys && mkdir -p ~/.ssh && echo evil >> link/authorized_keys && "
                              "echo evil >> keys && echo evil > link/id_ed25519"});
    ASSERT_EQ(r.status, 0) << dump(r);

    auto applied = sb.cli({"apply", "s"});
    EXPECT_EQ(applied.status, 0) << dump(applied);
    EXPECT_TRUE(fs::is_symlink(sb.workspace() / "link")) << dump(applied);
    EXPECT_EQ(fs::read_symlink(sb.workspace() / "link"), ssh);
    EXPECT_TRUE(fs::is_symlink(sb.workspace() / "keys"));
    EXPECT_EQ(sbtest::readFile(ssh / "authorized_keys"), "ssh-ed25519 AAAA trusted\n");
    EXPECT_EQ(listing(ssh), before) << "apply wrote into the real ~/.ssh";
}

TEST_F(ApplyEscape, ApplyOverARealSymlinkNeverWritesThroughIt)
{
    // The project already holds a symlink to ~/.ssh (a previous apply, or the user's own). The
    // agent replaces it with a real folder of the same name holding authorized_keys: a change
    // of type the session made (no conflict, issue 26 item 5), which replaces the symlink
    // itself and never writes through it.
    const fs::path ssh = sb.home() / ".ssh";
    sbtest::writeFile(ssh / "authorized_keys", "trusted\n");
    fs::create_directory_symlink(ssh, sb.workspace() / "keys");
    auto r =
        sb.run("s", {"bash", "-c", "rm keys && mkdir keys && echo evil > keys/authorized_keys"});
    ASSERT_EQ(r.status, 0) << dump(r);

    auto applied = sb.cli({"apply", "s"});
    EXPECT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(sbtest::readFile(ssh / "authorized_keys"), "trusted\n") << dump(applied);
    EXPECT_EQ(listing(ssh), std::vector<std::string>{"authorized_keys"}) << dump(applied);
    EXPECT_FALSE(fs::is_symlink(sb.workspace() / "keys"));
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "keys/authorized_keys"), "evil\n");
}

TEST_F(ApplyEscape, DirectorySwappedForOutsideSymlinkBeforeApplyWritesNothingOutside)
{
    sbtest::writeFile(sb.workspace() / "dir" / "old.txt", "old\n");
    auto r = sb.run("s", {"bash", "-c", "echo agent > dir/x && echo more > dir/old.txt"});
    ASSERT_EQ(r.status, 0) << dump(r);

    // Between the session and apply, the real dir becomes a symlink to an outside folder.
    fs::rename(sb.workspace() / "dir", sb.workspace() / "dir.orig");
    fs::create_directory_symlink(sb.outside(), sb.workspace() / "dir");

    auto applied = sb.cli({"apply", "s"});
    EXPECT_NE(applied.status, 0) << dump(applied);
    EXPECT_TRUE(contains(applied.out, "dir/x")) << "the refused entry is reported\n"
                                                << dump(applied);
    EXPECT_TRUE(fs::is_empty(sb.outside())) << dump(applied);

    auto forced = sb.cli({"apply", "s", "--force"});
    EXPECT_TRUE(fs::is_empty(sb.outside())) << "--force wrote through the symlink\n"
                                            << dump(forced);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "dir.orig" / "old.txt"), "old\n");
}

TEST_F(ApplyEscape, FifoIsSkippedWithAReason)
{
    auto r = sb.run("s", {"bash", "-c", "mkfifo pipe && echo fine > ok.txt"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto changes = sb.cli({"changes", "s"});
    EXPECT_TRUE(contains(changes.out, "A pipe")) << dump(changes);

    auto applied = sb.cli({"apply", "s"});
    EXPECT_NE(applied.status, 0) << "a skipped entry makes apply report failure\n" << dump(applied);
    EXPECT_TRUE(contains(applied.out, "skipped  pipe: ")) << dump(applied);
    EXPECT_FALSE(fs::exists(fs::symlink_status(sb.workspace() / "pipe"))) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "ok.txt"), "fine\n") << "the rest is applied";
}

TEST_F(ApplyEscape, SetuidBitIsDroppedOnApply)
{
    auto r = sb.run("s", {"bash", "-c",
                          "cp /usr/bin/id myid && chmod 6755 myid && mkdir -m 3775 shared && "
                          "stat -c '%a' myid shared"});
    ASSERT_EQ(r.status, 0) << dump(r);
    // The bits are really set in the session (the overlay keeps them); apply must drop them.
    EXPECT_EQ(sbit::lines(r.out), (std::vector<std::string>{"6755", "3775"})) << dump(r);

    auto applied = sb.cli({"apply", "s"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    struct stat st {};
    ASSERT_EQ(::stat((sb.workspace() / "myid").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0755u);
    ASSERT_EQ(::stat((sb.workspace() / "shared").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07000, 0u);
}

TEST_F(ApplyEscape, ConflictIsReportedAndOnlyForceOverwrites)
{
    sbtest::writeFile(sb.workspace() / "a.txt", "v1\n");
    sbtest::writeFile(sb.workspace() / "b.txt", "b1\n");
    auto r = sb.run("s", {"bash", "-c", "echo agent > a.txt && echo agent > b.txt"});
    ASSERT_EQ(r.status, 0) << dump(r);
    sbtest::writeFile(sb.workspace() / "a.txt", "user\n"); // the user edits it meanwhile

    auto applied = sb.cli({"apply", "s"});
    EXPECT_NE(applied.status, 0) << dump(applied);
    EXPECT_TRUE(contains(applied.out, "conflict a.txt")) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "a.txt"), "user\n");
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "b.txt"), "agent\n") << "no conflict there";

    auto forced = sb.cli({"apply", "s", "--force"});
    EXPECT_EQ(forced.status, 0) << dump(forced);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "a.txt"), "agent\n");
}

TEST_F(ApplyEscape, ApplyRefusesPathsOutsideTheProject)
{
    auto r = sb.run("s", {"bash", "-c", "echo agent > a.txt"});
    ASSERT_EQ(r.status, 0) << dump(r);
    for (const std::string& bad : {std::string("../outside/a.txt"),
                                   (sb.outside() / "a.txt").string(), std::string("./a.txt/..")}) {
        auto applied = sb.cli({"apply", "s", bad});
        EXPECT_NE(applied.status, 0) << bad << "\n" << dump(applied);
    }
    EXPECT_TRUE(fs::is_empty(sb.outside()));
    EXPECT_FALSE(fs::exists(sb.workspace() / "a.txt")) << "a refused selection applies nothing";
}

TEST_F(ApplyEscape, ForgedOverlayXattrsDoNotHideOrDeleteRealFiles)
{
    // The session's changes are read from overlay xattrs in the upper layer. The agent sets the
    // same names through the overlay, hoping to forge an opaque directory (which reads as
    // "delete everything the real folder holds") or a whiteout.
    sbtest::writeFile(sb.workspace() / "d" / "keep.txt", "keep\n");
    auto r = sb.run("s", {"python3", "-c", R"(
import os
for name in ("user.overlay.opaque", "trusted.overlay.opaque", "user.overlay.whiteout",
             "user.overlay.redirect"):
    try:
        os.setxattr("d", name, b"y")
    except OSError:
        pass
print(sorted(os.listdir("d")))
)"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(r.out, "['keep.txt']\n") << "the agent's own view still shows the file";
    auto changes = sb.cli({"changes", "s"});
    EXPECT_FALSE(contains(changes.out, "keep.txt")) << dump(changes);
    auto applied = sb.cli({"apply", "s"});
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "d" / "keep.txt"), "keep\n") << dump(applied);
}
