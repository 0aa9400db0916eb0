// Importing root file systems: a plain tar, a folder, `docker save` and OCI archives with their
// layers and whiteouts; hostile archives (climbing and absolute paths, device nodes, setuid
// files, writes through links, hard links out) imported safely with a report; failures that
// leave nothing behind. The archives are written here with libarchive.
#include "TestSupport.h"
#include "image/ImageStore.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace fs = std::filesystem;
using sbtest::TempDir;

namespace {

// A tar archive written entry by entry (gzip-compressed on request).
class Tar {
  public:
    explicit Tar(const fs::path& file, bool gzip = false) : m_a(archive_write_new())
    {
        archive_write_set_format_pax_restricted(m_a);
        if (gzip) archive_write_add_filter_gzip(m_a);
        archive_write_open_filename(m_a, file.c_str());
    }
    ~Tar() { close(); }
    void close()
    {
        if (!m_a) return;
        archive_write_close(m_a);
        archive_write_free(m_a);
        m_a = nullptr;
    }
    Tar& file(const std::string& path, const std::string& content, unsigned mode = 0644)
    {
        return add(path, AE_IFREG, mode, content);
    }
    Tar& dir(const std::string& path, unsigned mode = 0755) { return add(path, AE_IFDIR, mode); }
    Tar& symlink(const std::string& path, const std::string& target)
    {
        return add(path, AE_IFLNK, 0777, {},
                   [&](archive_entry* e) { archive_entry_set_symlink(e, target.c_str()); });
    }
    Tar& hardlink(const std::string& path, const std::string& target)
    {
        return add(path, AE_IFREG, 0644, {}, [&](archive_entry* e) {
            archive_entry_set_hardlink(e, target.c_str());
            archive_entry_set_size(e, 0);
        });
    }
    Tar& device(const std::string& path, unsigned type)
    {
        return add(path, type, 0666, {},
                   [](archive_entry* e) { archive_entry_set_rdev(e, makedev(8, 0)); });
    }

  private:
    template <class Extra = void (*)(archive_entry*)>
    Tar& add(
        const std::string& path, unsigned type, unsigned mode, const std::string& content = {},
        Extra extra = [](archive_entry*) {})
    {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, path.c_str());
        archive_entry_set_filetype(e, type);
        archive_entry_set_perm(e, mode);
        archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
        archive_entry_set_mtime(e, 1700000000, 0);
        extra(e);
        archive_write_header(m_a, e);
        if (!content.empty()) archive_write_data(m_a, content.data(), content.size());
        archive_entry_free(e);
        return *this;
    }
    archive* m_a;
};

bool hasNote(const sb::ImageInfo& info, const std::string& part)
{
    for (const std::string& n : info.notes)
        if (n.find(part) != std::string::npos) return true;
    return false;
}

std::string notesOf(const sb::ImageInfo& info)
{
    std::string all;
    for (const std::string& n : info.notes)
        all += n + "\n";
    return all;
}

bool present(const fs::path& p)
{
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

// No half-imported image and no temporary folder left in `images`.
std::vector<std::string> leftovers(const fs::path& images)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(images, ec))
        if (e.path().filename().string().front() == '.') out.push_back(e.path().filename());
    return out;
}

} // namespace

TEST(ImageImport, PlainRootFilesystemArchive)
{
    TempDir t;
    Tar(t / "root.tar")
        .dir("./bin")
        .file("./bin/busybox", std::string(5000, 'b'), 0755)
        .symlink("./bin/sh", "busybox")
        .dir("./usr/bin")
        .symlink("./usr/bin/env", "/bin/busybox") // absolute: resolved inside, once the root
        .file("./etc/os-release", "ID=test\n")
        .hardlink("./etc/os-release.link", "./etc/os-release")
        .dir("./proc", 0555);
    auto info = sb::importImage("busy", t / "root.tar", false, t / "images");
    ASSERT_TRUE(info) << info.error().describe();
    EXPECT_EQ(info->format, "root file system archive");
    EXPECT_TRUE(info->notes.empty()) << notesOf(*info);
    const fs::path root = t / "images/busy/rootfs";
    EXPECT_EQ(info->root, root);
    EXPECT_EQ(fs::file_size(root / "bin/busybox"), 5000u);
    EXPECT_TRUE((fs::status(root / "bin/busybox").permissions() & fs::perms::owner_exec) !=
                fs::perms::none);
    EXPECT_EQ(fs::read_symlink(root / "bin/sh"), "busybox");
    EXPECT_EQ(fs::read_symlink(root / "usr/bin/env"), "/bin/busybox");
    EXPECT_EQ(fs::hard_link_count(root / "etc/os-release"), 2u);
    EXPECT_EQ(sbtest::readFile(root / "etc/os-release.link"), "ID=test\n");
    EXPECT_GE(info->files, 7u);
    EXPECT_EQ(info->bytes, 5000u + 8u);

    auto listed = sb::listImages(t / "images");
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ((*listed)[0].name, "busy");
    EXPECT_EQ((*listed)[0].source, (t / "root.tar").string());
    EXPECT_EQ((*listed)[0].files, info->files);
    // A folder without write permission (proc) does not keep the image from being removed.
    EXPECT_FALSE(sb::removeImage("busy", t / "images"));
    EXPECT_FALSE(present(t / "images/busy"));
}

TEST(ImageImport, HostileArchiveIsImportedSafelyWithAReport)
{
    TempDir t;
    fs::create_directories(t / "outside");
    sbtest::writeFile(t / "outside/secret", "mine\n");
    const std::string outside = (t / "outside").string();
    Tar(t / "bad.tar")
        .file("../escape", "x")
        .file("/absolute", "x")
        .file("ok/../../climb", "x")
        .device("dev/sda", AE_IFBLK)
        .device("dev/tty0", AE_IFCHR)
        .device("run/fifo", AE_IFIFO)
        .file("usr/bin/su", "su", 04755)
        .file("usr/bin/wall", "wall", 02755)
        .symlink("out", outside)
        .file("out/planted", "planted") // through the link: must not reach `outside`
        .symlink("up", "../../../../..")
        .hardlink("hl-abs", outside + "/secret")
        .hardlink("hl-up", "../outside/secret")
        .hardlink("hl-through", "out/secret") // `out` links to the outside folder
        .file("fine", "fine\n");
    auto info = sb::importImage("bad", t / "bad.tar", false, t / "images");
    ASSERT_TRUE(info) << info.error().describe();
    const fs::path root = t / "images/bad/rootfs";
    const std::string notes = notesOf(*info);

    EXPECT_FALSE(present(t / "escape"));
    EXPECT_FALSE(present(t / "images/escape"));
    EXPECT_FALSE(present(t / "climb"));
    EXPECT_FALSE(present("/absolute"));
    EXPECT_TRUE(hasNote(*info, "skipped '../escape': a path that climbs out")) << notes;
    EXPECT_TRUE(hasNote(*info, "skipped '/absolute': an absolute path")) << notes;

    EXPECT_FALSE(present(root / "dev/sda"));
    EXPECT_FALSE(present(root / "dev/tty0"));
    EXPECT_FALSE(present(root / "run/fifo"));
    EXPECT_TRUE(hasNote(*info, "'dev/sda': a device node")) << notes;
    EXPECT_TRUE(hasNote(*info, "'run/fifo': a FIFO")) << notes;

    EXPECT_EQ(fs::status(root / "usr/bin/su").permissions() & fs::perms::set_uid, fs::perms::none);
    EXPECT_EQ(fs::status(root / "usr/bin/wall").permissions() & fs::perms::set_gid,
              fs::perms::none);
    EXPECT_TRUE(hasNote(*info, "cleared setuid/setgid on 'usr/bin/su'")) << notes;

    // Nothing written through the link, nothing linked to the outside file.
    EXPECT_TRUE(fs::is_symlink(root / "out"));
    EXPECT_FALSE(present(t / "outside/planted"));
    EXPECT_TRUE(hasNote(*info, "skipped 'out/planted': 'out' is a link")) << notes;
    EXPECT_EQ(fs::hard_link_count(t / "outside/secret"), 1u);
    EXPECT_FALSE(present(root / "hl-abs"));
    EXPECT_FALSE(present(root / "hl-up"));
    EXPECT_TRUE(hasNote(*info, "'hl-abs': a hard link to an absolute path")) << notes;
    EXPECT_FALSE(present(root / "hl-through"));
    EXPECT_TRUE(hasNote(*info, "'hl-through': a hard link through 'out'")) << notes;
    EXPECT_TRUE(hasNote(*info, "kept the link 'up'")) << notes;
    EXPECT_EQ(sbtest::readFile(root / "fine"), "fine\n");
    EXPECT_EQ(sbtest::readFile(t / "outside/secret"), "mine\n");
}

TEST(ImageImport, FolderIsCopiedWithoutFollowingItsLinks)
{
    TempDir t;
    fs::create_directories(t / "src/bin");
    fs::create_directories(t / "target");
    sbtest::writeFile(t / "target/host-file", "host\n");
    sbtest::writeFile(t / "src/bin/tool", "#!/bin/sh\n");
    fs::permissions(t / "src/bin/tool", fs::perms::owner_all | fs::perms::set_uid);
    fs::create_directory_symlink(t / "target", t / "src/linked");
    ASSERT_EQ(::mkfifo((t / "src/pipe").c_str(), 0600), 0);
    auto info = sb::importImage("folder", t / "src", false, t / "images");
    ASSERT_TRUE(info) << info.error().describe();
    EXPECT_EQ(info->format, "folder");
    const fs::path root = t / "images/folder/rootfs";
    EXPECT_EQ(sbtest::readFile(root / "bin/tool"), "#!/bin/sh\n");
    EXPECT_EQ(fs::status(root / "bin/tool").permissions() & fs::perms::set_uid, fs::perms::none);
    EXPECT_TRUE(fs::is_symlink(root / "linked"));
    EXPECT_FALSE(present(root / "linked/host-file") && !fs::is_symlink(root / "linked"));
    EXPECT_FALSE(present(root / "pipe"));
    EXPECT_TRUE(hasNote(*info, "'pipe': a FIFO")) << notesOf(*info);
}

TEST(ImageImport, DockerSaveLayersApplyInOrderWithWhiteouts)
{
    TempDir t;
    Tar(t / "l1.tar")
        .file("etc/a", "a1")
        .file("etc/b", "b1")
        .file("opt/keep/x", "x")
        .file("opt/gone/y", "y")
        .file("dir/sub/z", "z")
        .file("dir/old", "old");
    Tar(t / "l2.tar.gz", true)
        .file("etc/.wh.a", "")
        .file("etc/b", "b2")
        .file("opt/.wh.gone", "")
        .file("dir/.wh..wh..opq", "")
        .file("dir/new", "new");
    Tar outer(t / "saved.tar");
    outer
        .file("manifest.json",
              R"([{"Config":"c.json","RepoTags":["t:1"],"Layers":["1/layer.tar","2/layer.tar"]}])")
        .file("c.json", "{}")
        .file("1/layer.tar", sbtest::readFile(t / "l1.tar"))
        .file("2/layer.tar", sbtest::readFile(t / "l2.tar.gz"));
    outer.close();
    auto info = sb::importImage("saved", t / "saved.tar", false, t / "images");
    ASSERT_TRUE(info) << info.error().describe();
    EXPECT_EQ(info->format, "docker save");
    const fs::path root = t / "images/saved/rootfs";
    EXPECT_FALSE(present(root / "etc/a"));
    EXPECT_FALSE(present(root / "etc/.wh.a"));
    EXPECT_EQ(sbtest::readFile(root / "etc/b"), "b2");
    EXPECT_TRUE(present(root / "opt/keep/x"));
    EXPECT_FALSE(present(root / "opt/gone"));
    EXPECT_FALSE(present(root / "dir/sub"));
    EXPECT_FALSE(present(root / "dir/old"));
    EXPECT_EQ(sbtest::readFile(root / "dir/new"), "new");
    EXPECT_FALSE(present(root / "manifest.json")); // the container's files are not the image's
    EXPECT_TRUE(leftovers(t / "images").empty());
}

TEST(ImageImport, OciLayoutPicksThisMachinesManifest)
{
    TempDir t;
    const std::string layer(64, 'a'), manifest(64, 'b'), other(64, 'c'), index(64, 'd');
    Tar(t / "layer.tar").file("usr/lib/os-release", "ID=oci\n");
    Tar outer(t / "oci.tar");
    outer.file("oci-layout", R"({"imageLayoutVersion":"1.0.0"})")
        .file("index.json", R"({"manifests":[{"digest":"sha256:)" + index + R"("}]})")
        .file("blobs/sha256/" + index,
              R"({"manifests":[{"digest":"sha256:)" + other +
                  R"(","platform":{"os":"linux","architecture":"arm64"}},{"digest":"sha256:)" +
                  manifest + R"(","platform":{"os":"linux","architecture":"amd64"}}]})")
        .file("blobs/sha256/" + other, R"({"layers":[]})")
        .file("blobs/sha256/" + manifest, R"({"layers":[{"digest":"sha256:)" + layer + R"("}]})")
        .file("blobs/sha256/" + layer, sbtest::readFile(t / "layer.tar"));
    outer.close();
    auto info = sb::importImage("oci", t / "oci.tar", false, t / "images");
    ASSERT_TRUE(info) << info.error().describe();
    EXPECT_EQ(info->format, "OCI layout");
    EXPECT_EQ(sbtest::readFile(t / "images/oci/rootfs/usr/lib/os-release"), "ID=oci\n");
}

TEST(ImageImport, FailuresSayWhyAndLeaveNothing)
{
    TempDir t;
    sbtest::writeFile(t / "not-an-archive", std::string(3000, 'z'));
    auto bad = sb::importImage("x", t / "not-an-archive", false, t / "images");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().describe().find("not-an-archive"), std::string::npos)
        << bad.error().describe();

    // Cut in the middle of a file's content.
    Tar(t / "whole.tar.gz", true).file("big", std::string(200000, 'q')).file("after", "a");
    const std::string whole = sbtest::readFile(t / "whole.tar.gz");
    sbtest::writeFile(t / "cut.tar.gz", whole.substr(0, whole.size() / 2));
    auto cut = sb::importImage("cut", t / "cut.tar.gz", false, t / "images");
    ASSERT_FALSE(cut);
    EXPECT_NE(cut.error().describe().find("cut.tar.gz"), std::string::npos)
        << cut.error().describe();

    auto missing = sb::importImage("m", t / "nowhere.tar", false, t / "images");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().describe().find("does not exist"), std::string::npos);

    // A docker save manifest naming a layer that is not there.
    Tar(t / "broken-save.tar").file("manifest.json", R"([{"Layers":["../../etc/passwd"]}])");
    auto broken = sb::importImage("b", t / "broken-save.tar", false, t / "images");
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().describe().find("not a path inside the archive"), std::string::npos)
        << broken.error().describe();

    EXPECT_TRUE(leftovers(t / "images").empty());
    auto listed = sb::listImages(t / "images");
    ASSERT_TRUE(listed);
    EXPECT_TRUE(listed->empty());

    for (const char* name : {"", "Upper", "-dash", "a/b", "..", "sp ace"})
        EXPECT_TRUE(sb::checkImageName(name)) << name;
    EXPECT_FALSE(sb::checkImageName("debian-12.slim_x"));
    auto badName = sb::importImage("../x", t / "whole.tar.gz", false, t / "images");
    ASSERT_FALSE(badName);
    EXPECT_NE(badName.error().describe().find("image name '../x'"), std::string::npos);
    EXPECT_TRUE(sb::removeImage("nothing", t / "images"));
}

TEST(ImageImport, ReplaceNeedsToBeAskedFor)
{
    TempDir t;
    Tar(t / "one.tar").file("v", "1");
    Tar(t / "two.tar").file("v", "2");
    ASSERT_TRUE(sb::importImage("v", t / "one.tar", false, t / "images"));
    auto again = sb::importImage("v", t / "two.tar", false, t / "images");
    ASSERT_FALSE(again);
    EXPECT_NE(again.error().describe().find("--replace"), std::string::npos);
    EXPECT_EQ(sbtest::readFile(t / "images/v/rootfs/v"), "1");
    ASSERT_TRUE(sb::importImage("v", t / "two.tar", true, t / "images"));
    EXPECT_EQ(sbtest::readFile(t / "images/v/rootfs/v"), "2");
    EXPECT_TRUE(leftovers(t / "images").empty());
}
