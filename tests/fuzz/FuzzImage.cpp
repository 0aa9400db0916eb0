// Image import (core/image): an archive from anywhere, unpacked as `image import` does it
// (a root file system tar, or a docker save / OCI archive whose layers apply with whiteouts).
// Checked beyond "no crash": a refusal says why and leaves nothing; an import writes only
// beneath its image (a folder beside it stays empty), and never a device node, a FIFO, a socket
// or a setuid or setgid file.
#include "FuzzCheck.h"
#include "base/FolderTree.h"
#include "image/ImageStore.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using sbfuzz::check;

// What an import may write: 8 MiB (a bomb is refused, not unpacked).
constexpr std::uint64_t kMaxBytes = 8 << 20;

// The run's own folder under $TMPDIR, removed at exit.
const fs::path& workFolder()
{
    static const struct Work {
        fs::path dir;
        Work()
        {
            std::string pattern = (fs::temp_directory_path() / "fuzz-image-XXXXXX").string();
            check(::mkdtemp(pattern.data()) != nullptr, "a work folder");
            dir = pattern;
        }
        ~Work() { (void)sb::removeFolderTree(dir); }
    } work;
    return work.dir;
}

bool empty(const fs::path& dir)
{
    std::error_code ec;
    return fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const fs::path& work = workFolder();
    const fs::path images = work / "images", outside = work / "outside";
    const fs::path archive = work / "input.tar";
    (void)sb::removeFolderTree(images);
    fs::create_directories(outside);
    {
        std::ofstream out(archive, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    auto imported = sb::importImage("fuzz", archive, false, images, kMaxBytes);
    check(empty(outside), "nothing lands beside the images");
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(work, ec)) {
        const std::string name = entry.path().filename().string();
        check(name == "images" || name == "outside" || name == "input.tar",
              "nothing lands beside the images folder");
    }
    if (!imported) {
        check(!imported.error().describe().empty(), "a refusal says why");
        check(!fs::exists(images) || empty(images), "a refused import leaves nothing");
        return 0;
    }
    for (const auto& entry : fs::directory_iterator(images, ec))
        check(entry.path().filename() == "fuzz", "one image, nothing else");
    for (auto it = fs::recursive_directory_iterator(images / "fuzz", ec); !ec && it != fs::end(it);
         it.increment(ec)) {
        const fs::file_status st = it->symlink_status(ec);
        check(fs::is_regular_file(st) || fs::is_directory(st) || fs::is_symlink(st),
              "only files, folders and links");
        check((st.permissions() & (fs::perms::set_uid | fs::perms::set_gid)) == fs::perms::none,
              "no setuid or setgid file");
        if (fs::is_symlink(st)) it.disable_recursion_pending();
    }
    return 0;
}
