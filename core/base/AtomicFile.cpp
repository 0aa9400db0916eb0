#include "base/AtomicFile.h"

#include "base/UniqueFd.h"

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sb {
namespace {

// A fresh hidden name beside `file`, created exclusively with `mode` (the umask applies).
Result<int> createTemporary(const fs::path& file, mode_t mode, std::string& path)
{
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, ".%08x", static_cast<unsigned>(random()));
        path = (file.parent_path() / ("." + file.filename().string() + suffix)).string();
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) return fd;
        if (errno != EEXIST)
            return sysError("create a temporary file beside '" + file.string() + "'");
    }
    return sysError("create a temporary file beside '" + file.string() + "'", EEXIST);
}

Status writeAll(int fd, std::string_view text, const std::string& path)
{
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sysError("write '" + path + "'");
        done += static_cast<std::size_t>(n);
    }
    return std::nullopt;
}

} // namespace

Status writeFileAtomically(const fs::path& file, std::string_view text,
                           const AtomicWriteOptions& options)
{
    const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
    UniqueFd ownDir;
    int dirFd = options.dirFd;
    if (dirFd < 0 && options.durable) {
        ownDir.reset(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!ownDir) return sysError("open folder '" + dir.string() + "'");
        dirFd = ownDir.get();
    }
    struct stat st {};
    const bool exists = ::stat(file.c_str(), &st) == 0;
    if (!exists && errno != ENOENT) return sysError("stat '" + file.string() + "'");
    if (exists && !S_ISREG(st.st_mode))
        return inputError("'" + file.string() + "' is not a regular file; it was left as it is");

    std::string tempPath;
    auto created =
        createTemporary(file, exists ? (st.st_mode & 07777) : options.newFileMode, tempPath);
    if (!created) return created.error();
    const int fd = *created;
    Status failure = writeAll(fd, text, tempPath);
    // The umask may have taken bits of the old mode away: the file keeps what it had.
    if (!failure && exists && ::fchmod(fd, st.st_mode & 07777) != 0)
        failure = sysError("chmod '" + tempPath + "'");
    if (!failure && exists && ::geteuid() == 0 && (st.st_uid != 0 || st.st_gid != 0) &&
        ::fchown(fd, st.st_uid, st.st_gid) != 0)
        failure = sysError("chown '" + tempPath + "'");
    if (!failure && options.durable && ::fsync(fd) != 0)
        failure = sysError("fsync '" + tempPath + "'");
    if (::close(fd) != 0 && !failure) failure = sysError("close '" + tempPath + "'");
    if (!failure && ::rename(tempPath.c_str(), file.c_str()) != 0)
        failure = sysError("rename '" + tempPath + "' to '" + file.string() + "'");
    if (failure) {
        ::unlink(tempPath.c_str());
        return failure;
    }
    // The rename itself is durable only once the folder is.
    if (options.durable && ::fsync(dirFd) != 0) return sysError("fsync '" + dir.string() + "'");
    return std::nullopt;
}

std::string readWholeFile(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace sb
