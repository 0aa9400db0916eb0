#include "base/ProcessLimits.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb {
namespace {

// The soft limit, or RLIM_INFINITY when it cannot be read.
rlim_t softLimit(int resource)
{
    rlimit limit{};
    return ::getrlimit(resource, &limit) == 0 ? limit.rlim_cur : RLIM_INFINITY;
}

} // namespace

Status checkProcessLimits()
{
    rlim_t processes = softLimit(RLIMIT_NPROC);
    // The kernel holds root to no process limit, but a root session's sandbox runs as another
    // uid, which it does hold, counting every process of that uid (other root sessions' too):
    // root lifts the limit when it may (CAP_SYS_RESOURCE), and is refused like anyone else
    // below the minimum otherwise.
    if (::getuid() == 0 && processes != RLIM_INFINITY) {
        const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
        if (::setrlimit(RLIMIT_NPROC, &unlimited) == 0) processes = RLIM_INFINITY;
    }
    if (processes < kMinimumProcesses)
        return Error{ErrorCode::Unsupported, 0,
                     "the process limit (ulimit -u " + std::to_string(processes) +
                         ") is too low: Sandbench needs at least " +
                         std::to_string(kMinimumProcesses) +
                         " (its threads and the sandbox's processes count): raise it (e.g. "
                         "ulimit -u 4096)"};
    const rlim_t bytes = softLimit(RLIMIT_AS);
    if (bytes != RLIM_INFINITY && bytes / 1024 < kMinimumAddressSpaceKiB)
        return Error{ErrorCode::Unsupported, 0,
                     "the address-space limit (ulimit -v " + std::to_string(bytes / 1024) +
                         ") is too low: Sandbench needs at least " +
                         std::to_string(kMinimumAddressSpaceKiB) +
                         " KiB (its threads' stacks and memory pools are reserved up front): "
                         "raise it (e.g. ulimit -v unlimited)"};
    return {};
}

std::string fileSizeLimitNote()
{
    const rlim_t bytes = softLimit(RLIMIT_FSIZE);
    if (bytes == RLIM_INFINITY) return {};
    return " (the file-size limit, ulimit -f " + std::to_string(bytes / 1024) +
           ", stops it: raise it, e.g. ulimit -f unlimited)";
}

bool reachedFileSizeLimit(const std::string& file)
{
    const rlim_t limit = softLimit(RLIMIT_FSIZE);
    struct stat st {};
    return limit != RLIM_INFINITY && ::stat(file.c_str(), &st) == 0 &&
           static_cast<rlim_t>(st.st_size) + 65536 > limit;
}

std::string limitsHint()
{
    std::string hint;
    if (const rlim_t processes = softLimit(RLIMIT_NPROC); processes != RLIM_INFINITY)
        hint = "the process limit (ulimit -u " + std::to_string(processes) + ")";
    if (const rlim_t bytes = softLimit(RLIMIT_AS); bytes != RLIM_INFINITY)
        hint += (hint.empty() ? "" : " or ") + std::string("the address-space limit (ulimit -v ") +
                std::to_string(bytes / 1024) + ")";
    return hint.empty() ? hint : " (" + hint + " may be too low)";
}

Error withLimitsHint(Error e)
{
    if (e.sysErrno == EAGAIN || e.message.find(std::strerror(EAGAIN)) != std::string::npos)
        e.message += limitsHint();
    return e;
}

} // namespace sb
