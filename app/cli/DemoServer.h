// The demo's stand-ins for servers on the internet, on the host's loopback (127.0.0.1, ephemeral
// ports): a "team server" the demo policy allows and a "collector" it denies. The sandbox has a
// loopback of its own, so the agent reaches them only through the supervisor's proxy, and only
// where a rule names the address and port. Each answers every request with a short text and
// counts what it received, so the demo can show that the denied one heard nothing.
//
// They are served by a child process, not a thread: the sandbox must be started by a process
// with one thread (its init, a raw clone of the supervisor, calls glibc's setgroups/setuid,
// which wait for every thread the parent had to acknowledge).
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <memory>
#include <sys/types.h>

namespace sbcli {

class DemoServer {
  public:
    struct Counts {
        int team = 0;
        int collector = 0;
    };

    static sb::Result<std::unique_ptr<DemoServer>> start();
    ~DemoServer(); // stops the server if stop() was not called
    DemoServer(const DemoServer&) = delete;
    DemoServer& operator=(const DemoServer&) = delete;

    std::uint16_t teamPort() const { return m_teamPort; }
    std::uint16_t collectorPort() const { return m_collectorPort; }
    // Ends the server and returns how many requests each one received.
    Counts stop();

  private:
    DemoServer() = default;

    pid_t m_child = -1;
    int m_control = -1; // closing it tells the child to stop
    int m_results = -1; // the child writes its counts here before it exits
    std::uint16_t m_teamPort = 0, m_collectorPort = 0;
};

} // namespace sbcli
