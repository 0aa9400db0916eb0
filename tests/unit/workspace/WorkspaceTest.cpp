// The reviewable workspace over hand-made overlay upper layers: whiteouts are 0/0 character
// devices, opaque directories carry user.overlay.opaque=y, as the sandbox's overlay makes them.
#include "workspace/Workspace.h"

#include "TestSupport.h"
#include "base/Session.h"
#include "workspace/WorkspaceTestSupport.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using sb::ChangeKind;
using sb::EntryType;

namespace {

std::int64_t nowNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

std::int64_t ctimeOf(const fs::path& p)
{
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec;
}

// Timestamps come from a coarse clock: keep "before the session" and "after" well apart.
void settle()
{
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

std::string describe(const std::vector<sb::Change>& changes)
{
    std::string out;
    for (const auto& c : changes) {
        const char* kind = c.kind == ChangeKind::Added      ? "A"
                           : c.kind == ChangeKind::Modified ? "M"
                                                            : "D";
        const char* type = c.type == EntryType::File        ? "f"
                           : c.type == EntryType::Directory ? "d"
                           : c.type == EntryType::Symlink   ? "l"
                                                            : "o";
        out += std::string(kind) + type + " " + c.path + "\n";
    }
    return out;
}

bool hasIssue(const std::vector<sb::ApplyIssue>& issues, const std::string& path,
              const std::string& reasonPart = {})
{
    for (const auto& i : issues)
        if (i.path == path && i.reason.find(reasonPart) != std::string::npos) return true;
    return false;
}

// What a conflict is, for the window to say in its own language (issue 37, item 11).
sb::ApplyIssue::Why whyOf(const std::vector<sb::ApplyIssue>& issues, const std::string& path)
{
    for (const auto& i : issues)
        if (i.path == path) return i.why;
    return sb::ApplyIssue::Why::Other;
}

std::string subjectOf(const std::vector<sb::ApplyIssue>& issues, const std::string& path)
{
    for (const auto& i : issues)
        if (i.path == path) return i.subject;
    return {};
}

class Workspace : public sbtest::LayerTest {
  protected:
    std::string changes()
    {
        auto list = sb::listChanges(upper, project);
        EXPECT_TRUE(list) << list.error().describe();
        return list ? describe(*list) : "error";
    }

    sb::ApplyReport apply(std::vector<std::string> paths = {}, bool force = false,
                          std::int64_t start = 0)
    {
        sb::ApplyOptions options;
        options.paths = std::move(paths);
        options.force = force;
        options.sessionStartNs = start != 0 ? start : nowNs();
        auto report = sb::applyChanges(upper, project, options);
        EXPECT_TRUE(report) << report.error().describe();
        return report ? *report : sb::ApplyReport{};
    }

    bool upperIsEmpty() { return fs::is_empty(upper); }
};

} // namespace

TEST_F(Workspace, ClassifiesAddedModifiedDeletedAndNestedDirectories)
{
    real("a.txt", "a");
    real("b.txt", "b");
    real("dir/c.txt", "c");
    real("keep.txt", "k");
    real("olddir/x", "x");
    real("olddir/deep/y", "y");
    up("a.txt", "A");
    up("new.txt", "new");
    whiteout("b.txt");
    up("dir/c.txt", "C");
    up("dir/sub/new", "n");
    whiteout("olddir");
    EXPECT_EQ(changes(), "Mf a.txt\n"
                         "Df b.txt\n"
                         "Mf dir/c.txt\n"
                         "Ad dir/sub\n"
                         "Af dir/sub/new\n"
                         "Af new.txt\n"
                         "Dd olddir\n");
    auto list = sb::listChanges(upper, project);
    ASSERT_TRUE(list);
    EXPECT_EQ(list->front().size, 1u) << "the session's a.txt is 1 byte";
}

TEST_F(Workspace, OpaqueDirectoryHidesTheRealContents)
{
    real("od/a", "a");
    real("od/b", "b");
    real("od/sub/c", "c");
    real("other", "o");
    opaque("od");
    up("od/a", "A");
    up("od/n", "N");
    EXPECT_EQ(changes(), "Mf od/a\n"
                         "Df od/b\n"
                         "Af od/n\n"
                         "Dd od/sub\n");
}

TEST_F(Workspace, RenameIsAnAddAndAWhiteout)
{
    real("old.txt", "content");
    up("new.txt", "content");
    whiteout("old.txt");
    EXPECT_EQ(changes(), "Af new.txt\nDf old.txt\n");
}

TEST_F(Workspace, TinyUpperOverLargeProjectListsOnlyTheChange)
{
    for (int d = 0; d < 40; ++d)
        for (int f = 0; f < 50; ++f)
            real("d" + std::to_string(d) + "/f" + std::to_string(f), "x");
    up("d7/f3", "changed");
    EXPECT_EQ(changes(), "Mf d7/f3\n");
}

TEST_F(Workspace, MissingUpperOrProjectIsAClearError)
{
    auto list = sb::listChanges(root / "nope", project);
    ASSERT_FALSE(list);
    EXPECT_EQ(list.error().code, sb::ErrorCode::NotFound);
    EXPECT_NE(list.error().describe().find((root / "nope").string()), std::string::npos);

    auto applied = sb::applyChanges(upper, root / "gone", {});
    ASSERT_FALSE(applied);
    EXPECT_NE(applied.error().describe().find("project"), std::string::npos);
}

TEST_F(Workspace, DiffOfAModifiedTextFileIsAnExactHunk)
{
    real("src/main.c", "one\ntwo\nthree\n");
    up("src/main.c", "one\nTWO\nthree\nfour\n");
    auto diff = sb::unifiedDiff(upper, project, {});
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(*diff, "diff --git a/src/main.c b/src/main.c\n"
                     "--- a/src/main.c\n"
                     "+++ b/src/main.c\n"
                     "@@ -1,3 +1,4 @@\n"
                     " one\n"
                     "-two\n"
                     "+TWO\n"
                     " three\n"
                     "+four\n");
}

TEST_F(Workspace, DiffOfAddedDeletedBinaryAndSymlink)
{
    real("gone.txt", "bye\n");
    whiteout("gone.txt");
    up("added.txt", "hi\n");
    real("blob", std::string("a\0b", 3));
    up("blob", std::string("a\0c", 3));
    real("link", "");
    fs::remove(project / "link");
    fs::create_symlink("old-target", project / "link");
    fs::create_symlink("new-target", upper / "link");

    auto diff = sb::unifiedDiff(upper, project, {});
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(*diff, "diff --git a/added.txt b/added.txt\n"
                     "new file mode 100644\n"
                     "--- /dev/null\n"
                     "+++ b/added.txt\n"
                     "@@ -0,0 +1 @@\n"
                     "+hi\n"
                     "diff --git a/blob b/blob\n"
                     "Binary files a/blob and b/blob differ\n"
                     "diff --git a/gone.txt b/gone.txt\n"
                     "deleted file mode 100644\n"
                     "--- a/gone.txt\n"
                     "+++ /dev/null\n"
                     "@@ -1 +0,0 @@\n"
                     "-bye\n"
                     "diff --git a/link b/link\n"
                     "--- a/link\n"
                     "+++ b/link\n"
                     "@@ -1 +1 @@\n"
                     "-old-target\n"
                     "\\ No newline at end of file\n"
                     "+new-target\n"
                     "\\ No newline at end of file\n");

    auto one = sb::unifiedDiff(upper, project, {"added.txt"});
    ASSERT_TRUE(one);
    EXPECT_EQ(one->rfind("diff --git a/added.txt b/added.txt\n", 0), 0u);
    EXPECT_EQ(one->find("gone.txt"), std::string::npos);

    auto bad = sb::unifiedDiff(upper, project, {"not-changed.txt"});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("not-changed.txt"), std::string::npos);
}

// Issue 26, item 4: every change `changes` lists shows in the diff, in git's words.
TEST_F(Workspace, DiffShowsEmptyFilesModesSpecialFilesFoldersAndTypeChanges)
{
    real("gone-empty", "");
    whiteout("gone-empty");
    up("new-empty", "");
    real("exe.sh", "echo hi\n");
    up("exe.sh", "echo hi\n");
    fs::permissions(project / "exe.sh", fs::perms(0644));
    fs::permissions(upper / "exe.sh", fs::perms(0755));
    ASSERT_EQ(::mkfifo((upper / "pipe").c_str(), 0644), 0);
    fs::create_directories(upper / "made");
    fs::permissions(upper / "made", fs::perms(0755));
    real("was-file", "text\n");
    fs::create_directories(upper / "was-file"); // a folder over a file: a change of type
    fs::permissions(upper / "was-file", fs::perms(0755));

    auto diff = sb::unifiedDiff(upper, project, {});
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(*diff, "diff --git a/exe.sh b/exe.sh\n"
                     "old mode 100644\n"
                     "new mode 100755\n"
                     "diff --git a/gone-empty b/gone-empty\n"
                     "deleted file mode 100644\n"
                     "diff --git a/made b/made\n"
                     "new file mode 040755\n"
                     "diff --git a/new-empty b/new-empty\n"
                     "new file mode 100644\n"
                     "diff --git a/pipe b/pipe\n"
                     "new file mode 010644\n"
                     "(a FIFO: no content)\n"
                     "diff --git a/was-file b/was-file\n"
                     "deleted file mode 100644\n"
                     "--- a/was-file\n"
                     "+++ /dev/null\n"
                     "@@ -1 +0,0 @@\n"
                     "-text\n"
                     "diff --git a/was-file b/was-file\n"
                     "new file mode 040755\n");
    auto listed = sb::listChanges(upper, project);
    ASSERT_TRUE(listed);
    for (const sb::Change& c : *listed)
        EXPECT_NE(diff->find("diff --git a/" + c.path + " "), std::string::npos) << c.path;
}

TEST_F(Workspace, ApplyWritesModifiedAddedAndDeletedAndEmptiesUpper)
{
    real("a.txt", "old");
    real("b.txt", "doomed");
    real("tree/x", "x");
    real("tree/sub/y", "y");
    up("a.txt", "new");
    up("dir/sub/c.txt", "added");
    whiteout("b.txt");
    whiteout("tree");
    auto report = apply();
    EXPECT_TRUE(report.conflicts.empty());
    EXPECT_TRUE(report.skipped.empty());
    EXPECT_EQ(report.applied.size(), 6u); // a.txt, b.txt, dir, dir/sub, dir/sub/c.txt, tree
    EXPECT_EQ(sbtest::readFile(project / "a.txt"), "new");
    EXPECT_EQ(sbtest::readFile(project / "dir/sub/c.txt"), "added");
    EXPECT_FALSE(fs::exists(fs::symlink_status(project / "b.txt")));
    EXPECT_FALSE(fs::exists(fs::symlink_status(project / "tree")));
    EXPECT_EQ(changes(), "");
    EXPECT_TRUE(upperIsEmpty());
}

TEST_F(Workspace, ApplyReplacesAtomicallyWithANewInodeAndNoLeftovers)
{
    real("f", "old content");
    struct stat before {};
    ASSERT_EQ(::stat((project / "f").c_str(), &before), 0);
    // An open reader keeps the old inode alive: it must still see the complete old content.
    int reader = ::open((project / "f").c_str(), O_RDONLY);
    ASSERT_GE(reader, 0);
    std::string big(1 << 20, 'z');
    up("f", big);
    auto report = apply();
    ASSERT_EQ(report.applied, std::vector<std::string>{"f"});
    struct stat after {};
    ASSERT_EQ(::stat((project / "f").c_str(), &after), 0);
    EXPECT_NE(before.st_ino, after.st_ino) << "replaced by rename, not rewritten in place";
    EXPECT_EQ(sbtest::readFile(project / "f"), big);
    char buf[32] = {};
    EXPECT_EQ(::read(reader, buf, sizeof buf), 11);
    EXPECT_EQ(std::string(buf), "old content");
    ::close(reader);
    for (const auto& entry : fs::directory_iterator(project))
        EXPECT_EQ(entry.path().filename(), "f") << "temporary file left behind";
}

TEST_F(Workspace, ApplyStripsSetuidAndKeepsExecutableBits)
{
    up("tool", "#!/bin/sh\n");
    ASSERT_EQ(::chmod((upper / "tool").c_str(), 04755), 0);
    apply();
    struct stat st {};
    ASSERT_EQ(::stat((project / "tool").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0755u);
    EXPECT_EQ(st.st_uid, ::getuid());
}

TEST_F(Workspace, ApplySkipsAFifoWithAReason)
{
    ASSERT_EQ(::mkfifo((upper / "pipe").c_str(), 0644), 0);
    up("ok.txt", "ok");
    auto report = apply();
    EXPECT_TRUE(hasIssue(report.skipped, "pipe", "FIFO"));
    EXPECT_EQ(report.applied, std::vector<std::string>{"ok.txt"});
    EXPECT_FALSE(fs::exists(fs::symlink_status(project / "pipe")));
    EXPECT_EQ(changes(), "Ao pipe\n") << "a skipped entry stays for review";
}

TEST_F(Workspace, ApplyCreatesSymlinksAsSymlinks)
{
    sbtest::TempDir outside;
    sbtest::writeFile(outside / "secret", "do not copy");
    fs::create_symlink(outside / "secret", upper / "link");
    apply();
    ASSERT_TRUE(fs::is_symlink(project / "link"));
    EXPECT_EQ(fs::read_symlink(project / "link"), outside / "secret");
    EXPECT_EQ(sbtest::readFile(outside / "secret"), "do not copy");
}

TEST_F(Workspace, ApplyNeverWritesThroughASymlinkedDirectoryInTheProject)
{
    sbtest::TempDir outside;
    fs::create_symlink(outside.path(), project / "out"); // e.g. out -> ~/.ssh
    up("out/x", "planted");
    up("out/sub/y", "planted");
    EXPECT_EQ(changes(), "Md out\nAd out/sub\nAf out/sub/y\nAf out/x\n");

    // The session replaced the symlink by a directory (the only way its upper layer holds one
    // there): applying replaces the symlink itself; its target stays intact.
    auto report = apply({}, false, nowNs());
    EXPECT_TRUE(report.conflicts.empty());
    EXPECT_TRUE(fs::is_empty(outside.path())) << "written outside the project";
    EXPECT_FALSE(fs::is_symlink(project / "out"));
    EXPECT_EQ(sbtest::readFile(project / "out/x"), "planted");
}

TEST_F(Workspace, ApplyRefusesADirectorySwappedForASymlinkAfterTheStart)
{
    real("src/a.txt", "original");
    settle();
    std::int64_t start = nowNs();
    settle();
    up("src/a.txt", "agent's edit");
    sbtest::TempDir outside;
    sbtest::writeFile(outside / "a.txt", "outside");
    fs::remove_all(project / "src");
    fs::create_symlink(outside.path(), project / "src");

    auto report = apply({}, false, start);
    EXPECT_TRUE(report.applied.empty());
    EXPECT_TRUE(hasIssue(report.conflicts, "src"));
    EXPECT_TRUE(hasIssue(report.skipped, "src/a.txt", "not applied"));
    EXPECT_EQ(sbtest::readFile(outside / "a.txt"), "outside");
    EXPECT_TRUE(fs::is_symlink(project / "src"));
    EXPECT_EQ(sbtest::readFile(upper / "src/a.txt"), "agent's edit") << "kept for review";
}

TEST_F(Workspace, ApplyRacingADirectorySymlinkSwapNeverEscapes)
{
    // A hostile process keeps exchanging the real directory with a symlink to outside while
    // applies run: whatever the classification saw, the write itself must not follow it.
    sbtest::TempDir outside;
    real("src/keep", "k");
    fs::create_symlink(outside.path(), project / "alt");
    std::atomic<bool> stop{false};
    std::thread swapper([&] {
        while (!stop)
            ::renameat2(AT_FDCWD, (project / "src").c_str(), AT_FDCWD, (project / "alt").c_str(),
                        RENAME_EXCHANGE);
    });
    int written = 0;
    for (int i = 0; i < 150; ++i) {
        up("src/a.txt", "attempt " + std::to_string(i));
        sb::ApplyOptions options;
        options.sessionStartNs = INT64_MAX; // only the symlink guard stands in the way
        auto report = sb::applyChanges(upper, project, options);
        ASSERT_TRUE(report) << report.error().describe();
        written += static_cast<int>(report->applied.size());
        fs::remove_all(upper);
        fs::create_directories(upper);
    }
    stop = true;
    swapper.join();
    EXPECT_TRUE(fs::is_empty(outside.path())) << "written through the swapped-in symlink";
    RecordProperty("applied", written);
}

TEST_F(Workspace, ApplyReportsAConflictWhenTheRealFileChangedAndForceOverrides)
{
    real("f.txt", "base");
    real("g.txt", "base");
    settle();
    std::int64_t start = nowNs();
    settle();
    up("f.txt", "agent");
    up("g.txt", "agent");
    real("f.txt", "user edit");
    ASSERT_GT(ctimeOf(project / "f.txt"), start);

    auto report = apply({}, false, start);
    EXPECT_TRUE(hasIssue(report.conflicts, "f.txt", "changed in the project"));
    EXPECT_EQ(whyOf(report.conflicts, "f.txt"), sb::ApplyIssue::Why::ChangedInProject);
    EXPECT_EQ(report.applied, std::vector<std::string>{"g.txt"});
    EXPECT_EQ(sbtest::readFile(project / "f.txt"), "user edit");
    EXPECT_EQ(changes(), "Mf f.txt\n");

    report = apply({"f.txt"}, true, start);
    EXPECT_EQ(report.applied, std::vector<std::string>{"f.txt"});
    EXPECT_EQ(sbtest::readFile(project / "f.txt"), "agent");
    EXPECT_EQ(changes(), "");
}

TEST_F(Workspace, ApplyConflictsOnDeletionsAndAddsTouchedSinceTheStart)
{
    real("tree/deep/file", "base");
    real("plain", "base");
    settle();
    std::int64_t start = nowNs();
    settle();
    whiteout("tree");
    up("fresh", "agent");
    real("tree/deep/file", "user edit"); // only the nested file is newer
    real("fresh", "user made it too");
    ASSERT_GT(ctimeOf(project / "tree/deep/file"), start);

    auto report = apply({}, false, start);
    EXPECT_TRUE(hasIssue(report.conflicts, "tree", "tree/deep/file"));
    EXPECT_TRUE(hasIssue(report.conflicts, "fresh", "since the session started"));
    EXPECT_EQ(whyOf(report.conflicts, "tree"), sb::ApplyIssue::Why::ChangedInsideInProject);
    EXPECT_EQ(subjectOf(report.conflicts, "tree"), "tree/deep/file");
    EXPECT_EQ(whyOf(report.conflicts, "fresh"), sb::ApplyIssue::Why::ChangedInProject);
    EXPECT_EQ(sbtest::readFile(project / "tree/deep/file"), "user edit");
    EXPECT_EQ(sbtest::readFile(project / "fresh"), "user made it too");
}

// Issue 26, item 5: a change of type the agent made is no conflict; a conflict is a change of
// the real entry since the session began.
TEST_F(Workspace, ATypeChangeTheSessionMadeApplies)
{
    real("d/inner", "x");
    real("was-link-target", "t");
    fs::create_symlink("was-link-target", project / "lnk");
    real("p2l", "p");
    settle();
    const std::int64_t start = nowNs();
    settle();
    up("d", "now a file"); // the agent removed the directory and wrote a file in its place
    up("lnk", "a file where a link was");
    fs::create_symlink("t", upper / "p2l");
    auto report = apply({}, false, start);
    EXPECT_TRUE(report.conflicts.empty()) << report.conflicts.front().reason;
    EXPECT_EQ(sbtest::readFile(project / "d"), "now a file");
    EXPECT_FALSE(fs::is_symlink(project / "lnk"));
    EXPECT_EQ(sbtest::readFile(project / "lnk"), "a file where a link was");
    EXPECT_EQ(sbtest::readFile(project / "was-link-target"), "t") << "the link's target untouched";
    EXPECT_EQ(fs::read_symlink(project / "p2l"), "t");
}

TEST_F(Workspace, ReplacingADirectoryWithNewerContentsIsAConflict)
{
    real("d/inner", "x");
    settle();
    const std::int64_t start = nowNs();
    settle();
    up("d", "now a file");
    real("d/inner", "the user's edit");
    auto report = apply({}, false, start);
    EXPECT_TRUE(hasIssue(report.conflicts, "d", "d/inner"));
    EXPECT_TRUE(fs::is_directory(project / "d"));

    report = apply({}, true, start);
    EXPECT_EQ(report.applied, std::vector<std::string>{"d"});
    EXPECT_EQ(sbtest::readFile(project / "d"), "now a file");
}

TEST_F(Workspace, ApplyOpaqueDirectoryMakesTheRealOneMatch)
{
    real("od/a", "a");
    real("od/b", "b");
    real("od/sub/c", "c");
    opaque("od");
    up("od/a", "A");
    up("od/n", "N");
    auto report = apply();
    EXPECT_TRUE(report.conflicts.empty());
    EXPECT_EQ(sbtest::readFile(project / "od/a"), "A");
    EXPECT_EQ(sbtest::readFile(project / "od/n"), "N");
    EXPECT_FALSE(fs::exists(project / "od/b"));
    EXPECT_FALSE(fs::exists(project / "od/sub"));
    EXPECT_EQ(changes(), "");
    EXPECT_TRUE(upperIsEmpty());
}

TEST_F(Workspace, PartialApplyOfAnOpaqueDirectoryKeepsTheViewIntact)
{
    real("od/a", "a");
    real("od/b", "b");
    opaque("od");
    up("od/a", "A");
    auto report = apply({"od/a"});
    EXPECT_EQ(report.applied, std::vector<std::string>{"od/a"});
    EXPECT_EQ(sbtest::readFile(project / "od/a"), "A");
    // od/b is still hidden by the session: the opaque directory (and its od/a) must stay.
    EXPECT_EQ(changes(), "Mf od/a\nDf od/b\n");
    apply({"od"});
    EXPECT_EQ(changes(), "");
    EXPECT_FALSE(fs::exists(project / "od/b"));
}

TEST_F(Workspace, ApplySelectionByFileOrDirectoryAndItsValidation)
{
    real("keep.txt", "k");
    up("keep.txt", "K");
    up("newdir/sub/f", "f");
    up("newdir/g", "g");
    auto report = apply({"newdir/sub/f"}); // brings its added directories along
    EXPECT_EQ(report.applied, (std::vector<std::string>{"newdir", "newdir/sub", "newdir/sub/f"}));
    EXPECT_EQ(changes(), "Mf keep.txt\nAf newdir/g\n");
    report = apply({"newdir/"});
    EXPECT_EQ(report.applied, std::vector<std::string>{"newdir/g"});
    EXPECT_EQ(changes(), "Mf keep.txt\n");

    for (std::string bad : {"../etc/passwd", "/etc/passwd", "a/./b", "missing.txt", ""}) {
        sb::ApplyOptions options;
        options.paths = {bad};
        auto result = sb::applyChanges(upper, project, options);
        ASSERT_FALSE(result) << bad;
        if (!bad.empty()) {
            EXPECT_NE(result.error().message.find(bad), std::string::npos)
                << result.error().message;
        }
    }
    EXPECT_EQ(sbtest::readFile(project / "keep.txt"), "k") << "a bad selection applies nothing";
}

TEST_F(Workspace, ApplyDeletesADirectoryTreeWithoutFollowingItsSymlinks)
{
    sbtest::TempDir outside;
    sbtest::writeFile(outside / "precious", "keep me");
    real("gen/a", "a");
    fs::create_symlink(outside.path(), project / "gen/link");
    fs::create_symlink(outside / "precious", project / "gen/filelink");
    whiteout("gen");
    auto report = apply();
    EXPECT_EQ(report.applied, std::vector<std::string>{"gen"});
    EXPECT_FALSE(fs::exists(fs::symlink_status(project / "gen")));
    EXPECT_EQ(sbtest::readFile(outside / "precious"), "keep me");
}

TEST_F(Workspace, DiscardAllLeavesTheProjectUntouched)
{
    real("a.txt", "a");
    real("b.txt", "b");
    up("a.txt", "A");
    up("new/x", "x");
    whiteout("b.txt");
    auto discarded = sb::discardChanges(upper, {});
    ASSERT_TRUE(discarded) << discarded.error().describe();
    EXPECT_EQ(*discarded, (std::vector<std::string>{"a.txt", "b.txt", "new/x"}));
    EXPECT_EQ(changes(), "");
    EXPECT_EQ(sbtest::readFile(project / "a.txt"), "a");
    EXPECT_EQ(sbtest::readFile(project / "b.txt"), "b");
}

TEST_F(Workspace, DiscardOneWhiteoutRestoresTheRealFileInTheView)
{
    real("a.txt", "a");
    real("b.txt", "b");
    up("a.txt", "A");
    whiteout("b.txt");
    auto discarded = sb::discardChanges(upper, {"b.txt"});
    ASSERT_TRUE(discarded) << discarded.error().describe();
    EXPECT_EQ(*discarded, std::vector<std::string>{"b.txt"});
    EXPECT_EQ(changes(), "Mf a.txt\n");
    EXPECT_EQ(sbtest::readFile(project / "b.txt"), "b");

    auto bad = sb::discardChanges(upper, {"b.txt"});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("b.txt"), std::string::npos);
    EXPECT_FALSE(sb::discardChanges(upper, {"../a.txt"}));
    EXPECT_FALSE(sb::discardChanges(root / "missing", {}));
}

TEST(WorkspaceSession, EditingIsRefusedWhileTheSessionRuns)
{
    sbtest::IsolatedXdg xdg;
    sbtest::TempDir project;
    auto session = sb::createSession(project.path(), {"true"});
    ASSERT_TRUE(session) << session.error().describe();
    auto lock = sb::lockSession(*session);
    ASSERT_TRUE(lock) << lock.error().describe();
    auto refused = sb::checkWorkspaceEditable(*session);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, sb::ErrorCode::Conflict);
    EXPECT_NE(refused->message.find("running"), std::string::npos);
    lock->reset();
    EXPECT_FALSE(sb::checkWorkspaceEditable(*session).has_value());
}
