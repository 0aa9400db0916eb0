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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sb {
namespace {

// Loaded as libseccomp's seccomp_load() does for this filter (its attributes in
// SeccompRules.cpp): no TSYNC, no logging, no_new_privs left to the caller; for command
// approval with a new listener, which is the return value.
Result<int> loadFilter(bool notifyExec)
{
    const sock_filter* code = notifyExec ? generated::kSeccompNotify : generated::kSeccompPlain;
    size_t length =
        notifyExec ? std::size(generated::kSeccompNotify) : std::size(generated::kSeccompPlain);
    sock_fprog program{static_cast<unsigned short>(length), const_cast<sock_filter*>(code)};
    unsigned flags = notifyExec ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
    long fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &program);
    if (fd < 0) {
        if (errno == EACCES)
            return sysError("load seccomp filter (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN)",
                            EACCES);
        return sysError("load seccomp filter");
    }
    return notifyExec ? static_cast<int>(fd) : -1;
}

} // namespace

std::vector<sock_filter> precompiledSeccompFilter(bool notifyExec)
{
    if (notifyExec)
        return {std::begin(generated::kSeccompNotify), std::end(generated::kSeccompNotify)};
    return {std::begin(generated::kSeccompPlain), std::end(generated::kSeccompPlain)};
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
    if (auto loaded = loadFilter(false); !loaded) return loaded.error();
    return std::nullopt;
}

Result<int> installSeccompFilterNotifyingExec()
{
    return loadFilter(true);
}

} // namespace sb
