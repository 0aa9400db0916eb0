#include "base/OpenFileLimit.h"

#include <string>
#include <sys/resource.h>

namespace sb {

Status raiseOpenFileLimit()
{
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return sysError("getrlimit RLIMIT_NOFILE");
    if (files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &files) != 0) return sysError("raise RLIMIT_NOFILE");
    }
    if (files.rlim_cur < kMinimumOpenFiles)
        return Error{ErrorCode::Unsupported, 0,
                     "the open-file limit (ulimit -n) is " + std::to_string(files.rlim_cur) +
                         ", below the " + std::to_string(kMinimumOpenFiles) +
                         " descriptors a session needs: raise it (e.g. ulimit -n 1024)"};
    return {};
}

} // namespace sb
