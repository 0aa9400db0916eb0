#include "supervision/PortService.h"

#include "base/ActivityKinds.h"
#include "network/ListeningPorts.h"

namespace sb {
namespace {

using json = nlohmann::json;
using proto::MsgType;

constexpr int kSocketWaitMs = 2000; // for init to make a socket in the sandbox

// A port number field: 1…65535, or 0 when `optional` and absent.
Result<std::uint16_t> portField(const json& body, const char* name, bool optional)
{
    if (!body.contains(name)) {
        if (optional) return std::uint16_t{0};
        return inputError(std::string("port_request needs \"") + name + "\"");
    }
    const json& v = body[name];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 65535 ||
        (!optional && v.get<std::uint64_t>() == 0))
        return inputError(std::string("port_request: \"") + name + "\" must be a port number " +
                          (optional ? "from 0" : "from 1") + " to 65535, not " + v.dump());
    return static_cast<std::uint16_t>(v.get<std::uint64_t>());
}

} // namespace

json portForwardJson(const PortForward& f)
{
    json j = {{"port", f.port},
              {"host", "127.0.0.1"},
              {"host_port", f.hostPort},
              {"url", "http://127.0.0.1:" + std::to_string(f.hostPort) + "/"},
              {"exposed_by", f.exposedBy},
              {"connections", f.connections},
              {"open", f.open},
              {"refused", f.refused},
              {"bytes_in", f.bytesIn},
              {"bytes_out", f.bytesOut}};
    if (!f.lastError.empty()) j["last_error"] = f.lastError;
    return j;
}

PortService::PortService(const SandboxProcess& sandbox, NetworkMode network, Hooks hooks)
    : m_sandbox(sandbox), m_network(network), m_hooks(std::move(hooks))
{
}

PortService::~PortService()
{
    stop();
}

void PortService::stop()
{
    if (m_forwarder) m_forwarder->stop();
}

Status PortService::request(std::uint64_t client, const std::string& name, const json& body)
{
    if (!body.contains("id") || !body["id"].is_number_unsigned())
        return inputError("port_request needs a numeric \"id\"");
    const std::string op = body.value("op", std::string());
    Result<json> reply = op == "list"     ? list()
                         : op == "expose" ? expose(body, name)
                         : op == "close"
                             ? close(body, name)
                             : Result<json>(inputError("port_request: unknown op \"" + op +
                                                       "\" (expected list, expose or close)"));
    if (!reply) return reply.error();
    (*reply)["id"] = body["id"];
    (*reply)["ok"] = true;
    if (m_hooks.sendTo) m_hooks.sendTo(client, proto::encodeJson(MsgType::PortReply, *reply));
    return {};
}

Result<json> PortService::list() const
{
    json reply = {{"network", m_network == NetworkMode::Host ? "host" : "own"},
                  {"listening", json::array()},
                  {"forwards", json::array()}};
    // With the host's network the kernel's list is the whole machine's: not the sandbox's.
    if (m_network != NetworkMode::Host) {
        auto ports = listeningPorts(m_sandbox.initPid);
        if (!ports) return ports.error().within("list the sandbox's listening ports");
        for (const ListeningPort& p : *ports)
            if (m_network != NetworkMode::Filtered || p.port != kProxyPort) // ours, not theirs
                reply["listening"].push_back({{"port", p.port}, {"address", p.address}});
    }
    if (m_forwarder)
        for (const PortForward& f : m_forwarder->forwards())
            reply["forwards"].push_back(portForwardJson(f));
    return reply;
}

Result<json> PortService::expose(const json& body, const std::string& by)
{
    auto port = portField(body, "port", false);
    if (!port) return port.error();
    auto hostPort = portField(body, "host_port", true);
    if (!hostPort) return hostPort.error();
    if (m_network == NetworkMode::Host) {
        // The sandbox's servers already listen on this machine's loopback.
        if (*hostPort != 0 && *hostPort != *port)
            return inputError("this session shares the host's network: its port " +
                              std::to_string(*port) + " is 127.0.0.1:" + std::to_string(*port) +
                              ", it cannot be moved to " + std::to_string(*hostPort));
        PortForward shared;
        shared.port = shared.hostPort = *port;
        shared.exposedBy = by;
        json forward = portForwardJson(shared);
        forward["shared"] = true;
        return json{{"forward", forward}};
    }
    if (m_network == NetworkMode::Filtered && *port == kProxyPort)
        return inputError("port " + std::to_string(*port) +
                          " in the sandbox is the session's own proxy: it cannot be exposed");
    if (!m_forwarder) {
        const int channel = m_sandbox.socketChannel;
        auto started = PortForwarder::start(
            [channel](int family) { return openSandboxSocket(channel, family, kSocketWaitMs); });
        if (!started) return started.error().within("start forwarding ports");
        m_forwarder = std::move(*started);
    }
    const std::size_t before = m_forwarder->forwards().size();
    auto forward = m_forwarder->expose(*port, *hostPort, by);
    if (!forward) return forward.error();
    json shown = portForwardJson(*forward);
    if (m_forwarder->forwards().size() > before && m_hooks.activity)
        m_hooks.activity({{"kind", activity::kPort},
                          {"action", "exposed"},
                          {"port", forward->port},
                          {"host_port", forward->hostPort},
                          {"by", by}});
    return json{{"forward", shown}};
}

Result<json> PortService::close(const json& body, const std::string& by)
{
    auto port = portField(body, "port", false);
    if (!port) return port.error();
    if (m_network == NetworkMode::Host)
        return inputError("this session shares the host's network: there is no forward to close");
    if (!m_forwarder)
        return Error{ErrorCode::NotFound, 0, "port " + std::to_string(*port) + " is not exposed"};
    if (auto e = m_forwarder->close(*port)) return *e;
    if (m_hooks.activity)
        m_hooks.activity(
            {{"kind", activity::kPort}, {"action", "closed"}, {"port", *port}, {"by", by}});
    return json::object();
}

} // namespace sb
