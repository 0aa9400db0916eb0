// Threads the supervisor starts beside its loop: they begin with every signal blocked, so
// signals stay with the loop (its signalfd) whichever thread the kernel would pick.
#pragma once

#include "base/Error.h"
#include "base/ProcessLimits.h"

#include <csignal>
#include <pthread.h>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace sb {

// Thread: std::thread, or std::jthread for one joined when it goes out of scope. Throws
// std::system_error when no thread can start; startThread() returns that as an Error.
template <class Thread = std::thread, class Body> Thread startSignalFreeThread(Body&& body)
{
    sigset_t all, previous;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &previous);
    struct Restore {
        const sigset_t& mask;
        ~Restore() { ::pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
    } restore{previous};
    return Thread(std::forward<Body>(body));
}

// The error of a thread that could not start, named `what`: EAGAIN at the process limit
// (ulimit -u counts threads), or memory under an address-space limit (ulimit -v).
inline Error threadNotStarted(const std::string& what, const std::system_error& e)
{
    return sysError("start " + what + limitsHint(), e.code().value());
}

// startSignalFreeThread(), or the error of a thread that could not start.
template <class Thread = std::thread, class Body>
Result<Thread> startThread(const std::string& what, Body&& body)
{
    try {
        return startSignalFreeThread<Thread>(std::forward<Body>(body));
    } catch (const std::system_error& e) {
        return threadNotStarted(what, e);
    }
}

} // namespace sb
