// Port previews of a running session (control protocol version 3, port_request): the ports
// something listens on inside the sandbox, and forwards of them to this machine's 127.0.0.1
// (network/PortForward.h) that a browser, a test or an SDK can reach. Runs on the session
// loop's thread; the forwarder has its own, started by the first expose.
#pragma once

#include "base/Error.h"
#include "control/Protocol.h"
#include "network/PortForward.h"
#include "policy/Policy.h"
#include "sandbox/Sandbox.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace sb {

class PortService {
  public:
    struct Hooks {
        // A message to one control client; false when it is gone.
        std::function<bool(std::uint64_t client, const std::string& frame)> sendTo;
        // An activity event for clients and the recording.
        std::function<void(nlohmann::json)> activity;
    };
    // The sandbox outlives this.
    PortService(const SandboxProcess& sandbox, NetworkMode network, Hooks hooks);
    ~PortService();
    PortService(const PortService&) = delete;
    PortService& operator=(const PortService&) = delete;

    // A port_request: {id, op: "list" | "expose" | "close", port, host_port}; the answer is a
    // port_reply to `client`, an error comes back to the caller.
    Status request(std::uint64_t client, const std::string& name, const nlohmann::json& body);
    // Closes every forward (the session ends).
    void stop();

  private:
    Result<nlohmann::json> list() const;
    Result<nlohmann::json> expose(const nlohmann::json& body, const std::string& by);
    Result<nlohmann::json> close(const nlohmann::json& body, const std::string& by);

    const SandboxProcess& m_sandbox;
    NetworkMode m_network;
    Hooks m_hooks;
    std::unique_ptr<PortForwarder> m_forwarder; // from the first expose on
};

// A forward as port_reply and the activity events show it.
nlohmann::json portForwardJson(const PortForward& forward);

} // namespace sb
