// Root file systems (issue 24): an image made here from Debian's busybox-static and the static
// syscall probe, imported from a folder and from a tar archive, is the sandbox's system: its
// /bin/busybox is there, this machine's /usr/bin/python3 is not, the system stays read-only and
// the seccomp filter holds as with this machine's system.
#include "IntegrationSupport.h"

namespace fs = std::filesystem;
using sbit::contains;
using sbit::dump;
using sbit::withOptions;

namespace {

const fs::path kBusybox = "/bin/busybox";

class ImageRoot : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    // A minimal root file system: busybox (static), sh, the probe, an /etc with a marker.
    fs::path makeRootFolder() const
    {
        const fs::path root = sb.outside() / "rootfs";
        fs::create_directories(root / "bin");
        fs::create_directories(root / "usr/bin");
        fs::create_directories(root / "etc");
        fs::copy_file(kBusybox, root / "bin/busybox");
        fs::create_symlink("busybox", root / "bin/sh");
        fs::copy_file(sbtest::staticTrySyscallPath(), root / "bin/try-syscall");
        sbtest::writeFile(root / "etc/os-release", "ID=sandbench-test\n");
        return root;
    }

    sbtest::RunResult import(const std::string& name, const fs::path& source) const
    {
        return sb.cli({"image", "import", name, source.string()});
    }

    // busybox sh -c SCRIPT in a sandbox whose system is `root`.
    sbtest::RunResult inImage(const std::string& root, const std::string& script) const
    {
        return sb.run({"/bin/busybox", "sh", "-c", script},
                      withOptions({"--root", root, "--network", "none"}));
    }
};

const char* kLook =
    "test -x /bin/busybox && echo has-busybox; "
    "test -e /usr/bin/python3 && echo has-python || echo no-python; "
    "cat /etc/os-release; "
    "busybox touch /usr/bin/new 2>/dev/null && echo wrote-usr || echo usr-read-only; "
    "echo ran";

} // namespace

TEST_F(ImageRoot, ImportedFromAFolderAndFromATarItIsTheSandboxsSystem)
{
    if (!fs::exists(kBusybox)) SB_SKIP("busybox-static is not installed (scripts/deps.sh)");
    ASSERT_TRUE(fs::exists("/usr/bin/python3")); // what the image must hide
    const fs::path folder = makeRootFolder();
    auto fromFolder = import("bb-folder", folder);
    ASSERT_EQ(fromFolder.status, 0) << dump(fromFolder);
    EXPECT_TRUE(contains(fromFolder.out, "imported bb-folder (folder)")) << fromFolder.out;

    const fs::path tarball = sb.outside() / "rootfs.tar";
    auto packed = sbtest::run({"tar", "-C", folder.string(), "-cf", tarball.string(), "."});
    ASSERT_EQ(packed.status, 0) << dump(packed);
    auto fromTar = import("bb-tar", tarball);
    ASSERT_EQ(fromTar.status, 0) << dump(fromTar);
    EXPECT_TRUE(contains(fromTar.out, "root file system archive")) << fromTar.out;

    auto listed = sb.cli({"image", "ls"});
    EXPECT_TRUE(contains(listed.out, "bb-folder") && contains(listed.out, "bb-tar")) << listed.out;
    auto doctor = sb.cli({"doctor"});
    EXPECT_TRUE(contains(doctor.out, "2 imported: bb-folder, bb-tar")) << doctor.out;

    for (const std::string& root :
         std::vector<std::string>{"image:bb-folder", "image:bb-tar", folder.string()}) {
        auto r = inImage(root, kLook);
        ASSERT_EQ(r.status, 0) << root << "\n" << dump(r);
        EXPECT_TRUE(contains(r.out, "has-busybox")) << root << "\n" << r.out;
        EXPECT_TRUE(contains(r.out, "no-python")) << root << "\n" << r.out;
        EXPECT_TRUE(contains(r.out, "ID=sandbench-test")) << root << "\n" << r.out;
        EXPECT_TRUE(contains(r.out, "usr-read-only")) << root << "\n" << r.out;
        EXPECT_TRUE(contains(r.err, "system folders from " + root)) << r.err;
    }
    // The workspace is there as always, and writable.
    auto w = inImage("image:bb-tar", "echo made > made-inside; busybox ls");
    ASSERT_EQ(w.status, 0) << dump(w);
    EXPECT_TRUE(contains(w.out, "README.md")) << w.out;
}

TEST_F(ImageRoot, TheFilterHoldsOverAnImage)
{
    if (!fs::exists(kBusybox)) SB_SKIP("busybox-static is not installed (scripts/deps.sh)");
    ASSERT_EQ(import("probe", makeRootFolder()).status, 0);
    auto r = sb.run({"/bin/try-syscall", "mount", "unshare_newuser", "ptrace", "bpf"},
                    withOptions({"--root", "image:probe", "--network", "none"}));
    ASSERT_EQ(r.status, 0) << dump(r);
    for (const char* probe : {"mount", "unshare_newuser", "ptrace", "bpf"})
        EXPECT_TRUE(contains(r.out, std::string(probe) + " EPERM")) << probe << "\n" << r.out;
}

// Wrong input, like any other policy mistake: status 2 and what is wrong.
TEST_F(ImageRoot, AMissingOrWrongRootRefusesToStartAndSaysWhy)
{
    auto missing = sb.run({"/bin/true"}, withOptions({"--root", "image:nothing-here"}));
    EXPECT_EQ(missing.status, 2) << dump(missing);
    EXPECT_TRUE(contains(missing.err, "filesystem.root")) << missing.err;
    EXPECT_TRUE(contains(missing.err, "no image named 'nothing-here'")) << missing.err;

    auto relative = sb.run({"/bin/true"}, withOptions({"--root", "some/folder"}));
    EXPECT_EQ(relative.status, 2) << dump(relative);
    EXPECT_TRUE(contains(relative.err, "neither \"image:NAME\" nor an absolute folder"))
        << relative.err;

    // A folder that is no root file system (the project, named by mistake).
    auto project = sb.run({"/bin/true"}, withOptions({"--root", sb.workspace().string()}));
    EXPECT_EQ(project.status, 2) << dump(project);
    EXPECT_TRUE(contains(project.err, "not a root file system")) << project.err;
}
