#include "ExecInterceptor.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sb {
namespace {

constexpr size_t kMaxArgs = 4096;
constexpr size_t kMaxString = 64 * 1024;
constexpr size_t kMaxTotal = 1024 * 1024;
constexpr std::uint64_t kPage = 4096; // the smallest page: a read within one cannot half-fail

// Bytes from `address` to the end of its page, at most `limit`: such a read either succeeds
// whole or fails at once, so one pread does where a fixed size could run into a hole.
size_t toPageEnd(std::uint64_t address, size_t limit)
{
    return std::min<size_t>(limit, kPage - (address & (kPage - 1)));
}

// Reads a NUL-terminated string at `address` in the target, at most `limit` bytes.
bool readString(int mem, std::uint64_t address, size_t limit, std::string& out)
{
    out.clear();
    char buf[kPage];
    while (out.size() < limit) {
        std::uint64_t at = address + out.size();
        size_t want = toPageEnd(at, sizeof buf);
        ssize_t n = ::pread(mem, buf, want, static_cast<off_t>(at));
        if (n <= 0) return false;
        const char* end = static_cast<const char*>(std::memchr(buf, '\0', static_cast<size_t>(n)));
        out.append(buf, end != nullptr ? static_cast<size_t>(end - buf) : static_cast<size_t>(n));
        if (end != nullptr) return out.size() <= limit;
    }
    return false;
}

std::optional<std::vector<std::string>> readArgv(int mem, std::uint64_t address)
{
    std::vector<std::string> argv;
    if (address == 0) return argv;
    size_t total = 0;
    std::uint64_t pointers[kPage / 8];
    for (size_t i = 0; i < kMaxArgs;) {
        // The pointer array a page at a time (commonly all of it in one read).
        std::uint64_t at = address + i * 8;
        size_t want = toPageEnd(at, sizeof pointers);
        ssize_t n = ::pread(mem, pointers, want, static_cast<off_t>(at));
        if (n < 8) return std::nullopt;
        for (size_t k = 0; k < static_cast<size_t>(n) / 8 && i < kMaxArgs; ++k, ++i) {
            if (pointers[k] == 0) return argv;
            std::string arg;
            if (!readString(mem, pointers[k], kMaxString, arg) || (total += arg.size()) > kMaxTotal)
                return std::nullopt;
            argv.push_back(std::move(arg));
        }
    }
    return std::nullopt;
}

std::string readLink(const char* path)
{
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path, buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

} // namespace

ExecInterceptor::~ExecInterceptor()
{
    if (m_fd >= 0) ::close(m_fd);
}

Result<std::optional<ExecRequest>> ExecInterceptor::receive()
{
    seccomp_notif notif{};
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_RECV, &notif) != 0) {
        if (errno == ENOENT || errno == EINTR)
            return std::optional<ExecRequest>(); // the target went away before we looked
        return sysError("receive an exec notification");
    }
    ExecRequest req;
    req.notificationId = notif.id;
    req.pid = static_cast<pid_t>(notif.pid);
    bool at = notif.data.nr == SYS_execveat;
    char proc[64];
    int prefix = std::snprintf(proc, sizeof proc, "/proc/%u/", notif.pid);
    std::snprintf(proc + prefix, sizeof proc - static_cast<size_t>(prefix), "mem");
    int mem = ::open(proc, O_RDONLY | O_CLOEXEC);
    if (mem < 0) {
        (void)deny(notif.id, EPERM); // unreadable: never let it through unseen
        return std::optional<ExecRequest>();
    }
    std::string path;
    bool pathRead = readString(mem, notif.data.args[at ? 1 : 0], 4096, path);
    auto argv = readArgv(mem, notif.data.args[at ? 2 : 1]);
    ::close(mem);
    std::snprintf(proc + prefix, sizeof proc - static_cast<size_t>(prefix), "cwd");
    req.cwd = readLink(proc);
    // Only now is it certain the memory we read belonged to the process that asked.
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &notif.id) != 0)
        return std::optional<ExecRequest>();
    if (!pathRead || !argv) {
        (void)deny(notif.id, EFAULT); // what the kernel would say about such pointers
        return std::optional<ExecRequest>();
    }
    if (!path.empty() && path.front() == '/' && path.find("/.") == std::string::npos &&
        path.find("//") == std::string::npos && path.back() != '/') {
        req.program = std::move(path); // already normal: the common case needs no rewriting
    } else {
        std::filesystem::path program = path;
        if (at && program.is_relative() && static_cast<int>(notif.data.args[0]) != AT_FDCWD) {
            std::snprintf(proc + prefix, sizeof proc - static_cast<size_t>(prefix), "fd/%d",
                          static_cast<int>(notif.data.args[0]));
            program = std::filesystem::path(readLink(proc)) / program;
        } else if (program.is_relative()) {
            program = std::filesystem::path(req.cwd) / program;
        }
        req.program = program.lexically_normal().string();
    }
    req.argv = std::move(*argv);
    return std::optional<ExecRequest>(std::move(req));
}

Status ExecInterceptor::allow(std::uint64_t id)
{
    seccomp_notif_resp resp{};
    resp.id = id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT)
        return sysError("allow exec");
    return {};
}

Status ExecInterceptor::deny(std::uint64_t id, int error)
{
    seccomp_notif_resp resp{};
    resp.id = id;
    resp.error = -error;
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT)
        return sysError("deny exec");
    return {};
}

} // namespace sb
