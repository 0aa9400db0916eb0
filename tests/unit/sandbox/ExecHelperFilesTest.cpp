// The exec helper's file requests (sandbox/ExecHelperFiles.h), here on a plain folder: inside a
// sandbox the same code sees the sandbox's files. What they must never do: hang on a FIFO,
// leave a half-written file, follow a link out of a folder they remove, replace a folder.
#include "sandbox/ExecHelperFiles.h"

#include "TestSupport.h"
#include "base/Bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Helper {
    sbtest::TempDir dir;
    sb::Files files{dir.path()};
    std::uint64_t next = 1;

    json ask(const std::string& op, json request, std::vector<int>* fds = nullptr)
    {
        std::vector<int> got;
        request["id"] = next++;
        json reply = files.handle(op, request, got);
        if (fds)
            *fds = got;
        else
            for (int fd : got)
                ::close(fd);
        return reply;
    }
    // A whole write: open, fill the descriptor, commit.
    json write(const std::string& path, const std::string& data, json extra = json::object())
    {
        std::vector<int> fds;
        extra["path"] = path;
        const std::uint64_t id = next;
        json opened = ask("open_write", extra, &fds);
        if (!opened["ok"].get<bool>()) return opened;
        EXPECT_EQ(fds.size(), 1u);
        EXPECT_EQ(::write(fds[0], data.data(), data.size()), static_cast<ssize_t>(data.size()));
        ::close(fds[0]);
        if (!opened.value("commit", false)) return opened;
        std::vector<int> none;
        return files.handle("commit", {{"id", id}}, none);
    }
};

} // namespace

TEST(ExecHelperFiles, WritesAreAtomicKeepTheModeAndMakeFolders)
{
    Helper h;
    const std::string path = (h.dir / "a/b/c.txt").string();
    ASSERT_TRUE(h.write(path, "one\n")["ok"].get<bool>());
    EXPECT_EQ(sbtest::readFile(path), "one\n");
    ::chmod(path.c_str(), 0750);
    // Until the commit the old content stays, and nothing else is left behind after it.
    std::vector<int> fds;
    const std::uint64_t id = h.next;
    ASSERT_TRUE(h.ask("open_write", {{"path", path}}, &fds)["ok"].get<bool>());
    ASSERT_EQ(::write(fds[0], "two\n", 4), 4);
    ::close(fds[0]);
    EXPECT_EQ(sbtest::readFile(path), "one\n");
    std::vector<int> none;
    ASSERT_TRUE(h.files.handle("commit", {{"id", id}}, none)["ok"].get<bool>());
    EXPECT_EQ(sbtest::readFile(path), "two\n");
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0750u);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(h.dir / "a/b"))
        ++entries;
    EXPECT_EQ(entries, 1u) << "a temporary file was left";
    // Appending.
    ASSERT_TRUE(h.write(path, "three\n", {{"append", true}})["ok"].get<bool>());
    EXPECT_EQ(sbtest::readFile(path), "two\nthree\n");
}

TEST(ExecHelperFiles, AnAbortedWriteLeavesTheFileAlone)
{
    Helper h;
    const std::string path = (h.dir / "keep.txt").string();
    sbtest::writeFile(path, "kept\n");
    std::vector<int> fds;
    const std::uint64_t id = h.next;
    ASSERT_TRUE(h.ask("open_write", {{"path", path}}, &fds)["ok"].get<bool>());
    ASSERT_EQ(::write(fds[0], "half", 4), 4);
    ::close(fds[0]);
    std::vector<int> none;
    ASSERT_TRUE(h.files.handle("abort", {{"id", id}}, none)["ok"].get<bool>());
    EXPECT_EQ(sbtest::readFile(path), "kept\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(h.dir.path()))
        ++entries;
    EXPECT_EQ(entries, 1u);
}

TEST(ExecHelperFiles, FifosAndFoldersAreRefusedNotWaitedOn)
{
    Helper h;
    const std::string fifo = (h.dir / "pipe").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    json read = h.ask("open_read", {{"path", fifo}});
    EXPECT_FALSE(read["ok"].get<bool>());
    EXPECT_NE(read["message"].get<std::string>().find("not a regular file"), std::string::npos);
    json write = h.ask("open_write", {{"path", fifo}});
    EXPECT_FALSE(write["ok"].get<bool>());
    fs::create_directories(h.dir / "folder");
    EXPECT_EQ(h.ask("open_write", {{"path", (h.dir / "folder").string()}})["errno"], EISDIR);
    EXPECT_EQ(h.ask("open_read", {{"path", (h.dir / "missing").string()}})["errno"], ENOENT);
}

TEST(ExecHelperFiles, ReadHandsOverTheFileAndItsSize)
{
    Helper h;
    const std::string path = (h.dir / "big.bin").string();
    std::string data(3 * 1024 * 1024, '\0');
    for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<char>(i * 7);
    sbtest::writeFile(path, data);
    std::vector<int> fds;
    json reply = h.ask("open_read", {{"path", path}}, &fds);
    ASSERT_TRUE(reply["ok"].get<bool>());
    EXPECT_EQ(reply["size"], data.size());
    ASSERT_EQ(fds.size(), 1u);
    std::string back(data.size(), '\0');
    EXPECT_EQ(::pread(fds[0], back.data(), back.size(), 0), static_cast<ssize_t>(data.size()));
    ::close(fds[0]);
    EXPECT_EQ(back, data);
}

TEST(ExecHelperFiles, ListsAreSortedBoundedAndSayWhatTheyLeftOut)
{
    Helper h;
    for (int i = 0; i < 30; ++i)
        sbtest::writeFile(h.dir / "d" / ("f" + std::to_string(100 + i)), "x");
    fs::create_symlink("f100", h.dir / "d/link");
    json all = h.ask("list", {{"path", (h.dir / "d").string()}});
    ASSERT_TRUE(all["ok"].get<bool>());
    EXPECT_EQ(all["entries"].size(), 31u);
    EXPECT_EQ(all["entries"][0]["path"], "f100");
    EXPECT_EQ(all["entries"][30]["type"], "symlink");
    EXPECT_EQ(all["entries"][30]["target"], "f100");
    EXPECT_FALSE(all["truncated"].get<bool>());
    json some = h.ask("list", {{"path", (h.dir / "d").string()}, {"max", 5}});
    EXPECT_EQ(some["entries"].size(), 5u);
    EXPECT_TRUE(some["truncated"].get<bool>());
    json recursive = h.ask("list", {{"path", h.dir.path().string()}, {"recursive", true}});
    EXPECT_EQ(recursive["entries"].size(), 32u);
    EXPECT_EQ(recursive["entries"][1]["path"], "d/f100");
}

TEST(ExecHelperFiles, RemoveNeverFollowsALinkOutOfTheFolder)
{
    Helper h;
    sbtest::TempDir outside;
    sbtest::writeFile(outside / "precious.txt", "keep\n");
    sbtest::writeFile(h.dir / "tree/a/b.txt", "x");
    fs::create_directory_symlink(outside.path(), h.dir / "tree/a/out");
    ASSERT_TRUE(h.ask("remove", {{"path", (h.dir / "tree").string()}, {"recursive", true}})["ok"]
                    .get<bool>());
    EXPECT_FALSE(fs::exists(h.dir / "tree"));
    EXPECT_EQ(sbtest::readFile(outside / "precious.txt"), "keep\n");
    // Without recursive, a folder with something in it stays.
    sbtest::writeFile(h.dir / "full/x", "x");
    EXPECT_EQ(h.ask("remove", {{"path", (h.dir / "full").string()}})["errno"], ENOTEMPTY);
}

TEST(ExecHelperFiles, RenameAndMkdirAndStat)
{
    Helper h;
    sbtest::writeFile(h.dir / "a", "a");
    sbtest::writeFile(h.dir / "b", "b");
    EXPECT_EQ(h.ask("rename", {{"path", (h.dir / "a").string()},
                               {"to", (h.dir / "b").string()},
                               {"overwrite", false}})["errno"],
              EEXIST);
    EXPECT_TRUE(
        h.ask("rename", {{"path", (h.dir / "a").string()}, {"to", (h.dir / "c").string()}})["ok"]
            .get<bool>());
    EXPECT_TRUE(h.ask("mkdir", {{"path", (h.dir / "x/y/z").string()}, {"parents", true}})["ok"]
                    .get<bool>());
    EXPECT_EQ(h.ask("mkdir", {{"path", (h.dir / "x").string()}})["errno"], EEXIST);
    // A mode is exact (no umask) and also given to a folder that was there: a client fills a
    // folder first and makes it read-only last.
    EXPECT_TRUE(h.ask("mkdir",
                      {{"path", (h.dir / "x/y").string()}, {"parents", true}, {"mode", 0555}})["ok"]
                    .get<bool>());
    EXPECT_EQ(fs::status(h.dir / "x/y").permissions() & fs::perms::mask, fs::perms(0555));
    EXPECT_TRUE(h.ask("mkdir",
                      {{"path", (h.dir / "x/y").string()}, {"parents", true}, {"mode", 0700}})["ok"]
                    .get<bool>());
    EXPECT_EQ(fs::status(h.dir / "x/y").permissions() & fs::perms::mask, fs::perms(0700));
    // A symlink, its missing parents made; one where a file is refused.
    EXPECT_TRUE(
        h.ask("symlink", {{"path", (h.dir / "links/to-x").string()}, {"target", "../x"}})["ok"]
            .get<bool>());
    EXPECT_EQ(fs::read_symlink(h.dir / "links/to-x"), fs::path("../x"));
    EXPECT_EQ(h.ask("symlink", {{"path", (h.dir / "b").string()}, {"target", "x"}})["errno"],
              EEXIST);
    fs::create_symlink("nowhere", h.dir / "dangling");
    json st = h.ask("stat", {{"path", (h.dir / "dangling").string()}});
    EXPECT_EQ(st["type"], "symlink");
    EXPECT_TRUE(st["broken"].get<bool>());
    // Names that are not UTF-8 travel as base64 and come back the same.
    const std::string odd = (h.dir / "caf\xe9").string();
    json request = json::object();
    sb::putBytes(request, "path", odd);
    request["id"] = 99;
    std::vector<int> fds;
    ASSERT_TRUE(h.files.handle("open_write", request, fds)["ok"].get<bool>());
    for (int fd : fds)
        ::close(fd);
    std::vector<int> none;
    ASSERT_TRUE(h.files.handle("commit", {{"id", 99}}, none)["ok"].get<bool>());
    EXPECT_TRUE(fs::exists(odd));
}
