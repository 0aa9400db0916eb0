// Threads the supervisor starts beside its loop: they begin with every signal blocked, so
// signals stay with the loop (its signalfd) whichever thread the kernel would pick.
#pragma once

#include <csignal>
#include <pthread.h>
#include <thread>
#include <utility>

namespace sb {

// Thread: std::thread, or std::jthread for one joined when it goes out of scope.
template <class Thread = std::thread, class Body> Thread startSignalFreeThread(Body&& body)
{
    sigset_t all, previous;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &previous);
    Thread thread(std::forward<Body>(body));
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return thread;
}

} // namespace sb
