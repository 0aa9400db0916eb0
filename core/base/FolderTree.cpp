#include "base/FolderTree.h"

#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace sb {
namespace {

// `name` in `dirFd` and all it holds; `shown` names it in errors.
Status removeAt(int dirFd, const std::string& name, const std::string& shown)
{
    if (::unlinkat(dirFd, name.c_str(), 0) == 0 || errno == ENOENT) return {};
    if (errno != EISDIR) return sysError("remove " + shown);
    // A folder (unlinkat said so), not a link; opening it below says whether this helped.
    (void)!::fchmodat(dirFd, name.c_str(), 0700, 0);
    int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return sysError("open " + shown);
    DIR* dir = ::fdopendir(fd);
    if (dir == nullptr) {
        ::close(fd);
        return sysError("list " + shown);
    }
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string child = entry->d_name;
        if (child != "." && child != "..") names.push_back(child);
    }
    Status failed;
    for (const std::string& child : names)
        if (!failed) failed = removeAt(::dirfd(dir), child, shown + "/" + child);
    ::closedir(dir);
    if (failed) return failed;
    if (::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
        return sysError("remove " + shown);
    return {};
}

} // namespace

Status removeFolderTree(const std::filesystem::path& path)
{
    return removeAt(AT_FDCWD, path.string(), path.string());
}

bool mayHoldFiles(const std::filesystem::path& path)
{
    std::error_code ec;
    std::filesystem::directory_iterator entries(path, ec);
    if (ec) return ec != std::errc::no_such_file_or_directory;
    return entries != std::filesystem::directory_iterator();
}

} // namespace sb
