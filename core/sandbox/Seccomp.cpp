// Loading the sandbox's syscall filter. The filter is the same at every start, so the build
// compiles it (SeccompRules.cpp with libseccomp, run by sandbench-seccomp-gen): a start only
// hands the ready program to the kernel, which saved ~1 ms of libseccomp work on the path of
// every sandbox's first exec, and no Sandbench program loads libseccomp when it starts.
#include "sandbox/Seccomp.h"

#include "SeccompBpf.h"
#include "sandbox/SeccompRules.h"

#include <cerrno>
#include <cstdint>
#include <iterator>
#include <linux/seccomp.h>
#include <span>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sb {
namespace {

std::span<const sock_filter> generatedProgram(SeccompNotify notify)
{
    switch (notify) {
    case SeccompNotify::None:
        return generated::kSeccompPlain;
    case SeccompNotify::Exec:
        return generated::kSeccompNotify;
    case SeccompNotify::ExecAndOutbound:
        break;
    }
    return generated::kSeccompNotifyOutbound;
}

// Loaded as libseccomp's seccomp_load() does for this filter (its attributes in
// SeccompRules.cpp): no TSYNC, no logging, no_new_privs left to the caller; with
// notifications, with a new listener, which is the return value.
Result<int> loadFilter(SeccompNotify notify)
{
    const auto code = generatedProgram(notify); // no allocation: a child of init runs this
    sock_fprog program{static_cast<unsigned short>(code.size()),
                       const_cast<sock_filter*>(code.data())};
    const unsigned flags = notify != SeccompNotify::None ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
    long fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &program);
    if (fd < 0) {
        if (errno == EACCES)
            return sysError("load seccomp filter (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN)",
                            EACCES);
        return sysError("load seccomp filter");
    }
    return notify != SeccompNotify::None ? static_cast<int>(fd) : -1;
}

} // namespace

std::vector<sock_filter> precompiledSeccompFilter(SeccompNotify notify)
{
    const auto code = generatedProgram(notify);
    return {code.begin(), code.end()};
}

const char* reportedSyscallName(int nr)
{
    for (const auto& reported : generated::kSeccompReported)
        if (reported.nr == nr) return reported.name;
    return nullptr;
}

bool seccompUserNotifSupported()
{
    std::uint32_t action = SECCOMP_RET_USER_NOTIF;
    return ::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

std::string seccompSummary()
{
    if (::prctl(PR_GET_SECCOMP) < 0 && errno == EINVAL)
        return "seccomp: not supported by this kernel";
    return "seccomp: " + std::to_string(generated::kSeccompDenyRules) +
           " deny rules (compiled at build time by " + generated::kSeccompCompiledBy +
           "), foreign ABIs killed; " +
           (seccompUserNotifSupported() ? "user notification available"
                                        : "user notification unavailable (no command approval)");
}

Status installSeccompFilter()
{
    if (auto loaded = loadFilter(SeccompNotify::None); !loaded) return loaded.error();
    return std::nullopt;
}

Result<int> installSeccompFilterNotifying(bool outbound)
{
    return loadFilter(outbound ? SeccompNotify::ExecAndOutbound : SeccompNotify::Exec);
}

} // namespace sb
