#include "ExecInterceptor.h"

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

// Reads a NUL-terminated string at `address` in the target, at most `limit` bytes.
std::optional<std::string> readString(int mem, std::uint64_t address, size_t limit)
{
    std::string out;
    char buf[512];
    while (out.size() < limit) {
        ssize_t n = ::pread(mem, buf, sizeof buf, static_cast<off_t>(address + out.size()));
        if (n <= 0) {
            // A string may end right before an unmapped page: retry byte by byte there.
            if (::pread(mem, buf, 1, static_cast<off_t>(address + out.size())) != 1)
                return std::nullopt;
            n = 1;
        }
        for (ssize_t i = 0; i < n; ++i) {
            if (buf[i] == '\0') return out;
            out.push_back(buf[i]);
        }
    }
    return std::nullopt;
}

std::optional<std::vector<std::string>> readArgv(int mem, std::uint64_t address)
{
    std::vector<std::string> argv;
    size_t total = 0;
    for (size_t i = 0; address != 0 && i < kMaxArgs; ++i) {
        std::uint64_t pointer = 0;
        if (::pread(mem, &pointer, sizeof pointer, static_cast<off_t>(address + i * 8)) != 8)
            return std::nullopt;
        if (pointer == 0) return argv;
        auto arg = readString(mem, pointer, kMaxString);
        if (!arg || (total += arg->size()) > kMaxTotal) return std::nullopt;
        argv.push_back(std::move(*arg));
    }
    return address == 0 ? std::optional(argv) : std::nullopt;
}

std::string readLink(const std::string& path)
{
    std::error_code ec;
    auto target = std::filesystem::read_symlink(path, ec);
    return ec ? std::string() : target.string();
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
    std::string proc = "/proc/" + std::to_string(notif.pid);
    int mem = ::open((proc + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
    if (mem < 0) {
        (void)deny(notif.id, EPERM); // unreadable: never let it through unseen
        return std::optional<ExecRequest>();
    }
    auto path = readString(mem, notif.data.args[at ? 1 : 0], 4096);
    auto argv = readArgv(mem, notif.data.args[at ? 2 : 1]);
    ::close(mem);
    req.cwd = readLink(proc + "/cwd");
    // Only now is it certain the memory we read belonged to the process that asked.
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &notif.id) != 0)
        return std::optional<ExecRequest>();
    if (!path || !argv) {
        (void)deny(notif.id, EFAULT); // what the kernel would say about such pointers
        return std::optional<ExecRequest>();
    }
    std::filesystem::path program = *path;
    if (at && program.is_relative() && static_cast<int>(notif.data.args[0]) != AT_FDCWD)
        program = std::filesystem::path(readLink(
                      proc + "/fd/" + std::to_string(static_cast<int>(notif.data.args[0])))) /
                  program;
    else if (program.is_relative())
        program = std::filesystem::path(req.cwd) / program;
    req.program = program.lexically_normal().string();
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
