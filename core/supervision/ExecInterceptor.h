// The supervisor's end of the sandbox filter's listener: every execve/execveat in the sandbox
// stops in the kernel (seccomp user notification) until the supervisor allows or denies it, and
// so, in a supervised network, does every connect or send to an address (OutboundGate.h), and
// so do the few refused calls the filter reports (RefusedCall).
//
// The target's argv is read with process_vm_readv, and the notification is checked to be still
// valid after reading, so a pid reused in between is never judged by another process's memory.
// A second thread of the target can still rewrite the strings after they were read: exec
// approval supervises a fallible agent; the namespaces, mounts and syscall filter are the
// boundary (see README, "Security model").
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/types.h>
#include <variant>
#include <vector>

namespace sb {

struct ExecRequest {
    std::uint64_t notificationId = 0;
    pid_t pid = 0;       // in the supervisor's pid namespace
    std::string program; // absolute path inside the sandbox (lexically normalised)
    std::vector<std::string> argv;
    std::string cwd; // inside the sandbox; empty until cwdOf() when the program path needed none
};

// A connect, sendto, sendmsg or sendmmsg the filter stopped (SeccompRules.h), with the address
// it names as read from the target's memory.
struct OutboundCall {
    enum class Call { Connect, SendTo, SendMsg, SendMmsg };
    std::uint64_t notificationId = 0;
    pid_t pid = 0; // in the supervisor's pid namespace
    Call call = Call::Connect;
    int fd = -1;   // the socket, as the target numbers it
    int flags = 0; // of a send
    sockaddr_storage address{};
    socklen_t addressLength = 0; // 0: none given, or not readable (the kernel will say so)
};

// A call of the filter's deny list a program made deliberately (SeccompRules.h, reported): the
// supervisor records it and refuses it with EPERM.
struct RefusedCall {
    std::uint64_t notificationId = 0;
    pid_t pid = 0; // in the supervisor's pid namespace
    std::string syscall;
};

// `len` bytes at `address` in process `pid`, with process_vm_readv; sets errno.
ssize_t readTargetMemory(pid_t pid, void* buf, std::size_t len, std::uint64_t address);

class ExecInterceptor {
  public:
    // Asks for synchronous wake-ups where the kernel has them (see the .cpp).
    explicit ExecInterceptor(int listenerFd);
    ~ExecInterceptor();
    ExecInterceptor(const ExecInterceptor&) = delete;
    ExecInterceptor& operator=(const ExecInterceptor&) = delete;

    int fd() const { return m_fd; }
    // No process is left under the filter (its listener reported POLLHUP).
    bool hungUp() const { return m_hungUp; }
    void setHungUp() { m_hungUp = true; }
    // Reads one pending notification (call when fd() is readable). nullopt: nothing to judge
    // (the call was abandoned, or its process died while we read).
    using Notification = std::variant<ExecRequest, OutboundCall, RefusedCall>;
    Result<std::optional<Notification>> receive();
    // The working folder of `pid` as the sandbox names it; "" if the process is gone. Not part
    // of receive(): the policy does not look at it, and an exec of an absent program needs none.
    static std::string cwdOf(pid_t pid);
    // `pid` (the supervisor's numbering) and its session, as the sandbox's pid namespace
    // numbers them (NSpid in /proc/PID/status, the session in /proc/PID/stat); zeros when the
    // process is gone. For the few execs that need them (asked, denied).
    struct SandboxIds {
        pid_t pid = 0, session = 0;
    };
    static SandboxIds sandboxIdsOf(pid_t pid);
    Status allow(std::uint64_t notificationId);
    Status deny(std::uint64_t notificationId, int error = EPERM);

  private:
    int m_fd;
    bool m_hungUp = false;
};

} // namespace sb
