// Port previews: a server listening inside the sandbox's own network namespace (its loopback,
// unreachable from the host) made reachable on this machine's 127.0.0.1. Each exposed port has
// a listener on the host; each connection to it gets a socket made inside the sandbox
// (SocketSource, the sandbox's init makes it) connected to the sandbox's 127.0.0.1:PORT, or
// [::1]:PORT when nothing listens on the first, and the bytes are relayed both ways on the
// forwarder's own thread (network/Relay.h). Nothing is decided per connection: whoever can
// reach the host's loopback reaches an exposed port, as with a development server run outside.
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sb {

struct PortForward {
    std::uint16_t port = 0;        // in the sandbox
    std::uint16_t hostPort = 0;    // on the host's 127.0.0.1
    std::string exposedBy;         // the client that asked
    std::uint64_t connections = 0; // accepted so far
    std::uint64_t open = 0;        // relayed now
    std::uint64_t refused = 0;     // nothing listened on the port inside, or no socket
    std::uint64_t bytesIn = 0;     // host → sandbox, of closed connections
    std::uint64_t bytesOut = 0;    // sandbox → host, of closed connections
    std::string lastError;         // why the last refused connection was refused
};

class PortForwarder {
  public:
    // A new non-blocking TCP socket of `family` (AF_INET, AF_INET6) inside the sandbox's
    // network namespace; called on the forwarder's thread.
    using SocketSource = std::function<Result<UniqueFd>(int family)>;

    // Starts the forwarder's thread; it forwards nothing until expose().
    static Result<std::unique_ptr<PortForwarder>> start(SocketSource source);
    ~PortForwarder(); // stop()
    PortForwarder(const PortForwarder&) = delete;
    PortForwarder& operator=(const PortForwarder&) = delete;

    // Listens on 127.0.0.1:hostPort (0: a free port) for the sandbox's `port`. A port already
    // exposed keeps its forward (an error if another host port is asked for); a host port in
    // use is an error naming it.
    Result<PortForward> expose(std::uint16_t port, std::uint16_t hostPort, std::string by);
    // Closes the listener and the port's open connections.
    Status close(std::uint16_t port);
    std::vector<PortForward> forwards() const; // by port
    // Closes everything and ends the thread. Idempotent.
    void stop();

    struct Impl;

  private:
    explicit PortForwarder(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace sb
