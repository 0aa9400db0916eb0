#include "supervision/ExecInterceptor.h"

#include "sandbox/Seccomp.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <linux/seccomp.h>
#include <sstream>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

// Linux 6.6; Debian 12's headers predate it.
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

namespace sb {

// The target's memory, read with process_vm_readv: no /proc/PID/mem to open and close for each
// exec (a path walk that instantiates the new process's /proc entries, ~25 µs here).
ssize_t readTargetMemory(pid_t pid, void* buf, std::size_t len, std::uint64_t address)
{
    iovec local{buf, len};
    iovec remote{reinterpret_cast<void*>(address), len};
    ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n == 0) errno = EFAULT; // nothing readable there
    return n;
}

namespace {

// What the kernel itself accepts, so no exec it would run is refused here: one argument of up
// to MAX_ARG_STRLEN (32 pages, its NUL included), and all of them (with the environment) within
// a quarter of the stack limit and never more than 6 MiB (fs/exec.c). The count needs no bound
// of its own: every argument costs at least its pointer and NUL.
constexpr size_t kMaxString = 32 * 4096 - 1;
constexpr size_t kMaxTotal = 6 * 1024 * 1024;
constexpr std::uint64_t kPage = 4096; // the smallest page: a read within one cannot half-fail

// Bytes from `address` to the end of its page, at most `limit`: such a read either succeeds
// whole or fails at once, so one pread does where a fixed size could run into a hole.
size_t toPageEnd(std::uint64_t address, size_t limit)
{
    return std::min<size_t>(limit, kPage - (address & (kPage - 1)));
}

ssize_t readRemote(pid_t pid, void* buf, size_t len, std::uint64_t address)
{
    return readTargetMemory(pid, buf, len, address);
}

// Reads a NUL-terminated string at `address` in the target, at most `limit` bytes.
bool readString(pid_t pid, std::uint64_t address, size_t limit, std::string& out)
{
    out.clear();
    char buf[kPage];
    while (out.size() < limit) {
        std::uint64_t at = address + out.size();
        size_t want = toPageEnd(at, sizeof buf);
        ssize_t n = readRemote(pid, buf, want, at);
        if (n <= 0) return false;
        const char* end = static_cast<const char*>(std::memchr(buf, '\0', static_cast<size_t>(n)));
        out.append(buf, end != nullptr ? static_cast<size_t>(end - buf) : static_cast<size_t>(n));
        if (end != nullptr) {
            if (out.size() <= limit) return true;
            break; // longer than the kernel would take: say so (errno), never fail silently
        }
    }
    errno = E2BIG;
    return false;
}

// Reads the strings at `pointers`, appending them to `out`: one process_vm_readv for up to
// kBatch of them, a window of each (to its page end, at most kWindow bytes: most arguments are
// shorter), so an exec of `git commit -m text` costs one read, not four. A string longer than
// its window is read on from there; one the batch did not reach (a bad pointer stops it) is
// read alone, which gives its exact error.
bool readStrings(pid_t pid, const std::uint64_t* pointers, size_t count, size_t& total,
                 std::vector<std::string>& out)
{
    constexpr size_t kBatch = 64, kWindow = 256;
    char buf[kBatch * kWindow];
    iovec remote[kBatch];
    for (size_t first = 0; first < count; first += kBatch) {
        size_t batch = std::min(count - first, kBatch), size = 0;
        for (size_t k = 0; k < batch; ++k) {
            size_t len = toPageEnd(pointers[first + k], kWindow);
            remote[k] = {reinterpret_cast<void*>(pointers[first + k]), len};
            size += len;
        }
        iovec local{buf, size};
        ssize_t n = ::process_vm_readv(pid, &local, 1, remote, batch, 0);
        size_t got = n > 0 ? static_cast<size_t>(n) : 0, at = 0;
        for (size_t k = 0; k < batch; ++k) {
            size_t len = remote[k].iov_len;
            std::string arg;
            if (at + len > got) { // each window lies in one page: it was read whole or not at all
                if (!readString(pid, pointers[first + k], kMaxString, arg)) return false;
            } else {
                const char* s = buf + at;
                const char* end = static_cast<const char*>(std::memchr(s, '\0', len));
                arg.assign(s, end != nullptr ? static_cast<size_t>(end - s) : len);
                std::string rest;
                if (end == nullptr &&
                    !readString(pid, pointers[first + k] + len, kMaxString - len, rest))
                    return false;
                arg += rest;
            }
            at += len;
            if ((total += arg.size() + 1 + sizeof(void*)) > kMaxTotal) {
                errno = E2BIG;
                return false;
            }
            out.push_back(std::move(arg));
        }
    }
    return true;
}

std::optional<std::vector<std::string>> readArgv(pid_t pid, std::uint64_t address)
{
    std::vector<std::string> argv;
    if (address == 0) return argv;
    size_t total = 0;
    std::uint64_t pointers[kPage / 8];
    for (size_t i = 0;;) {
        // The pointer array a page at a time (commonly all of it in one read).
        std::uint64_t at = address + i * 8;
        size_t want = toPageEnd(at, sizeof pointers);
        ssize_t n = readRemote(pid, pointers, want, at);
        if (n < 8) return std::nullopt;
        size_t limit = static_cast<size_t>(n) / 8, count = 0;
        while (count < limit && pointers[count] != 0)
            ++count;
        if (!readStrings(pid, pointers, count, total, argv)) return std::nullopt;
        if (count < limit) return argv; // the NULL that ends the array
        i += count;
    }
}

std::string readLink(const char* path)
{
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path, buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

} // namespace

ExecInterceptor::ExecInterceptor(int listenerFd) : m_fd(listenerFd)
{
    // The exec waits while we look at it: with synchronous wake-ups the kernel hands the CPU
    // over directly, the supervisor on the exec's CPU and back, instead of waking a thread on
    // another CPU each way (an interrupt between CPUs, costly in a VM). Older kernels (< 6.6)
    // refuse the flag and keep the usual wake-ups; nothing else changes.
    (void)::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
}

ExecInterceptor::~ExecInterceptor()
{
    if (m_fd >= 0) ::close(m_fd);
}

namespace {

// The address an outbound call names, read from the target: connect's and sendto's own
// argument, or the msg_name of sendmsg's header (of sendmmsg's first: only a first message
// opens a TCP Fast Open connection).
void readOutboundAddress(const seccomp_notif& notif, OutboundCall& call)
{
    const auto& a = notif.data.args;
    std::uint64_t address = 0, length = 0;
    switch (call.call) {
    case OutboundCall::Call::Connect:
        address = a[1], length = a[2];
        break;
    case OutboundCall::Call::SendTo:
        address = a[4], length = a[5];
        break;
    case OutboundCall::Call::SendMsg:
    case OutboundCall::Call::SendMmsg:
        if (call.call == OutboundCall::Call::SendMmsg && static_cast<unsigned>(a[2]) == 0) return;
        msghdr header{};
        if (readTargetMemory(call.pid, &header, sizeof header, a[1]) !=
            static_cast<ssize_t>(sizeof header))
            return;
        address = reinterpret_cast<std::uint64_t>(header.msg_name);
        length = header.msg_namelen;
        break;
    }
    const std::size_t wanted = std::min<std::uint64_t>(length, sizeof call.address);
    if (address == 0 || wanted < sizeof(sa_family_t)) return;
    const ssize_t n = readTargetMemory(call.pid, &call.address, wanted, address);
    if (n > 0) call.addressLength = static_cast<socklen_t>(n);
}

} // namespace

Result<std::optional<ExecInterceptor::Notification>> ExecInterceptor::receive()
{
    using Received = std::optional<Notification>;
    seccomp_notif notif{};
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_RECV, &notif) != 0) {
        if (errno == ENOENT || errno == EINTR)
            return Received(); // the target went away before we looked
        return sysError("receive a notification of the sandbox's filter");
    }
    const int nr = notif.data.nr;
    if (const char* refused = reportedSyscallName(nr)) {
        RefusedCall call{notif.id, static_cast<pid_t>(notif.pid), refused};
        return Received(std::move(call));
    }
    if (nr != SYS_execve && nr != SYS_execveat) {
        OutboundCall call;
        call.notificationId = notif.id;
        call.pid = static_cast<pid_t>(notif.pid);
        call.call = nr == SYS_connect   ? OutboundCall::Call::Connect
                    : nr == SYS_sendto  ? OutboundCall::Call::SendTo
                    : nr == SYS_sendmsg ? OutboundCall::Call::SendMsg
                                        : OutboundCall::Call::SendMmsg;
        call.fd = static_cast<int>(notif.data.args[0]);
        // sendmsg's flags are its third argument, sendto's and sendmmsg's their fourth.
        if (call.call != OutboundCall::Call::Connect)
            call.flags =
                static_cast<int>(notif.data.args[call.call == OutboundCall::Call::SendMsg ? 2 : 3]);
        readOutboundAddress(notif, call);
        if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &notif.id) != 0) return Received();
        return Received(std::move(call));
    }
    ExecRequest req;
    req.notificationId = notif.id;
    req.pid = static_cast<pid_t>(notif.pid);
    bool at = notif.data.nr == SYS_execveat;
    std::string path;
    bool pathRead = readString(req.pid, notif.data.args[at ? 1 : 0], 4096, path);
    auto argv = pathRead ? readArgv(req.pid, notif.data.args[at ? 2 : 1]) : std::nullopt;
    int readErrno = pathRead && argv ? 0 : (errno != 0 ? errno : EFAULT);
    if (readErrno == 0) {
        if (!path.empty() && path.front() == '/' && path.find("/.") == std::string::npos &&
            path.find("//") == std::string::npos && path.back() != '/') {
            req.program = std::move(path); // already normal: the common case needs no rewriting
        } else {
            std::filesystem::path program = path;
            if (at && program.is_relative() && static_cast<int>(notif.data.args[0]) != AT_FDCWD) {
                char link[64];
                std::snprintf(link, sizeof link, "/proc/%u/fd/%d", notif.pid,
                              static_cast<int>(notif.data.args[0]));
                program = std::filesystem::path(readLink(link)) / program;
            } else if (program.is_relative()) {
                req.cwd = cwdOf(req.pid);
                program = std::filesystem::path(req.cwd) / program;
            }
            req.program = program.lexically_normal().string();
        }
    }
    // Only now is it certain that what we read belonged to the process that asked.
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &notif.id) != 0) return Received();
    if (readErrno != 0) {
        // Bad pointers get what the kernel would say; memory we may not read, a refusal: never
        // let an exec through unseen.
        (void)deny(notif.id, readErrno == EFAULT || readErrno == E2BIG ? readErrno : EPERM);
        return Received();
    }
    req.argv = std::move(*argv);
    return Received(std::move(req));
}

std::string ExecInterceptor::cwdOf(pid_t pid)
{
    char proc[32] = "/proc/"; // on every exec's path: no printf
    char* end = std::to_chars(proc + 6, proc + sizeof proc - 5, pid).ptr;
    std::memcpy(end, "/cwd", 5);
    return readLink(proc);
}

namespace {

// The innermost namespace's number of a process the supervisor names `pid` (NSpid's last).
pid_t innermostPid(pid_t pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
        if (!line.starts_with("NSpid:")) continue;
        std::istringstream ids(line.substr(6));
        pid_t last = 0;
        for (pid_t id; ids >> id;)
            last = id;
        return last;
    }
    return 0;
}

} // namespace

ExecInterceptor::SandboxIds ExecInterceptor::sandboxIdsOf(pid_t pid)
{
    SandboxIds ids{innermostPid(pid), 0};
    // stat: "PID (COMM) STATE PPID PGRP SESSION …"; COMM may hold spaces and parentheses.
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text); // one line

    const std::size_t close = text.rfind(')');
    if (close == std::string::npos) return ids;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    pid_t ppid = 0, pgrp = 0, session = 0;
    if (rest >> state >> ppid >> pgrp >> session && session > 0)
        ids.session = innermostPid(session); // the supervisor's number of the session leader
    return ids;
}

Status ExecInterceptor::allow(std::uint64_t id)
{
    seccomp_notif_resp resp{};
    resp.id = id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT)
        return sysError("let a stopped call go on");
    return {};
}

Status ExecInterceptor::deny(std::uint64_t id, int error)
{
    seccomp_notif_resp resp{};
    resp.id = id;
    resp.error = -error;
    if (::ioctl(m_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT)
        return sysError("refuse a stopped call");
    return {};
}

} // namespace sb
