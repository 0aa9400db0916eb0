// The supervisor's side of the control socket: accepts clients on
// $XDG_RUNTIME_DIR/sandbench/<session>.sock, speaks the protocol of Protocol.h, fans terminal
// output out of a shared ring buffer, and hands what clients ask for to a SessionBackend.
//
// It runs on the supervisor's own poll() loop and never blocks: every socket is non-blocking,
// and a client that reads slowly only ever costs itself (it skips ahead, told by a "lagged"
// message), never the agent. Not thread-safe: call everything from the loop's thread.
//
//   std::vector<pollfd> fds = {…the supervisor's own…};
//   server->fillPollFds(fds);
//   ::poll(fds.data(), fds.size(), timeout);
//   server->handle(fds);                  // ignores the entries that are not its own
//   …
//   server->publishOutput(bytesFromPty);  // whenever the pty speaks
#pragma once

#include "base/Error.h"
#include "control/Protocol.h"
#include "policy/Approval.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <unordered_map>
#include <vector>

namespace sb {

using proto::SessionSummary;

// What the server asks of the session. The supervisor implements it; the calls come from inside
// ControlServer::handle(), on the loop's thread.
struct SessionBackend {
    virtual ~SessionBackend() = default;
    virtual SessionSummary summary() const = 0;
    virtual void writeTerminalInput(std::string_view bytes) = 0;
    virtual void resize(unsigned rows, unsigned cols) = 0;
    // First answer wins: an id that is no longer pending is an error (Conflict or NotFound),
    // which goes back to the client that answered. On success the broker is expected to call
    // publishApprovalOutcome() (it may do so from inside this call).
    virtual Status answerApproval(std::uint64_t id, const ApprovalAnswer& answer) = 0;
    virtual std::vector<ApprovalRequest> pendingApprovals() const = 0;
    virtual void stop(bool kill) = 0;
    // A client subscribed to the session's stream (output and activity events).
    virtual void clientSubscribed() {}
    // policy_update from the client named `client`: validates the document and switches the
    // session to it, or changes nothing and says why. Sessions that cannot change their policy
    // keep this default.
    virtual Result<proto::PolicyUpdateResult> updatePolicy(const proto::PolicyUpdate& update,
                                                           const std::string& client)
    {
        (void)update;
        (void)client;
        return unsupported("this session cannot change its policy while it runs");
    }
    // Version 2: a program runs a process in the session or uses its files (exec_start,
    // exec_input, exec_control, file_request) as client `client` (ControlServer::sendTo answers
    // it), named `name`. An error goes back to that client, naming the request. Sessions that
    // run no processes for programs keep this default.
    virtual Status clientRequest(std::uint64_t client, const std::string& name,
                                 proto::Message& request)
    {
        (void)client;
        (void)name;
        (void)request;
        return unsupported("this session runs no processes for programs");
    }
    // Whether clientRequest serves programs' processes and files, and port previews (the
    // welcome's "features").
    virtual bool servesPrograms() const { return false; }
    virtual bool servesPorts() const { return false; }
    // The client is gone (what it started is the backend's to end or keep).
    virtual void clientGone(std::uint64_t client) { (void)client; }
};

struct ControlServerOptions {
    std::size_t ringBytes = std::size_t{4} << 20; // terminal output kept for catch-up
    // A client whose unsent control messages (events, approvals, replies) exceed this when
    // another is due is disconnected: unlike terminal output, they cannot be skipped.
    std::size_t maxControlQueueBytes = std::size_t{8} << 20;
    // Programs each connect as one (100 execs at once are 100 sandbench-cli exec).
    std::size_t maxClients = 256;
    // The user the socket belongs to; peers of other uids (except root) are refused. A seam for
    // tests: a non-root test sets another uid to see its own connection refused.
    uid_t ownerUid = static_cast<uid_t>(-1); // -1: geteuid()
    // Where protocol violations and refusals are reported (default: spdlog warning).
    std::function<void(const std::string&)> log;
};

class ControlServer {
  public:
    // Creates the runtime directory (0700) if needed, removes a stale socket of the same session
    // (one no process listens on) and listens. Fails if a live supervisor already owns the name.
    static Result<std::unique_ptr<ControlServer>> listen(const std::string& sessionId,
                                                         SessionBackend& backend,
                                                         ControlServerOptions options = {});
    ~ControlServer(); // closes every client and removes the socket file
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    const std::filesystem::path& socketPath() const { return m_path; }

    // Appends the listener and every client, with POLLOUT for clients that have output waiting.
    void fillPollFds(std::vector<pollfd>& fds) const;
    // Serves whatever poll() reported for this server's fds; other entries are ignored.
    void handle(const std::vector<pollfd>& fds);

    // Terminal output: sequence numbers are byte offsets in the session's output stream.
    void publishOutput(std::string_view bytes);
    // An activity event: {"kind": "command"|"network"|"approval"|"file"|"limit"|"lifecycle", …}.
    void publishEvent(const nlohmann::json& event);
    void publishApprovalRequest(const ApprovalRequest& request);
    void publishApprovalOutcome(const ApprovalOutcome& outcome);
    // Sent to every client after the output it has not yet received; each client is closed once
    // it has it. New clients still get a welcome followed by the exit.
    void publishExit(int status);
    // After publishExit(): serves clients (no accepting) until all have their exit or
    // `timeoutMs` passes. For a supervisor about to end.
    void drain(int timeoutMs);

    // A message to one client (a reply to its clientRequest); false when it is gone.
    bool sendTo(std::uint64_t client, const std::string& frame);
    // Bytes of control messages waiting to reach the client (0 when gone): a producer for one
    // client holds back while it is behind, instead of getting it disconnected.
    std::size_t queuedBytes(std::uint64_t client) const;

    std::size_t clientCount() const { return m_clients.size(); }
    // Clients that receive terminal output: with none, nobody is watching.
    std::size_t subscriberCount() const;
    std::uint64_t nextSeq() const { return m_nextSeq; }
    std::uint64_t oldestSeq() const;
    // True when no client has anything left to send.
    bool flushed() const;

  private:
    struct Client;
    ControlServer(std::filesystem::path path, int listenFd, SessionBackend& backend,
                  ControlServerOptions options);

    void acceptClients();
    void readFrom(Client& c);
    void dispatch(Client& c, proto::Message& m);
    void onHello(Client& c, const nlohmann::json& body);
    void onSubscribe(Client& c, const nlohmann::json& body);
    void onAnswer(Client& c, const nlohmann::json& body);
    void onPolicyUpdate(Client& c, const nlohmann::json& body);
    void onProgramRequest(Client& c, proto::Message& m);
    Client* findClient(std::uint64_t id) const;
    void sendControl(Client& c, std::string frame);
    void sendError(Client& c, const Error& error, bool fatal, std::string_view ref = {});
    void dropClient(Client& c, const std::string& reason);
    void flush(Client& c);
    bool hasOutputWaiting(const Client& c) const;
    std::string encodeBytesFromRing(std::uint64_t seq, std::size_t len) const;
    void broadcast(const std::string& frame, bool subscribedOnly);
    void reap();

    std::filesystem::path m_path;
    int m_listenFd;
    SessionBackend& m_backend;
    ControlServerOptions m_options;
    std::vector<std::unique_ptr<Client>> m_clients;
    std::unordered_map<int, Client*> m_byFd;
    std::uint64_t m_nextClientId = 1;
    // The ring buffer: byte seq s lives at m_ring[s % size] while s >= oldestSeq(). Not
    // zero-filled: its pages stay unallocated until output reaches them, so a quiet session
    // costs neither the 4 MiB of memory nor the page faults of clearing it at start.
    struct Ring {
        explicit Ring(std::size_t n) : bytes(std::make_unique_for_overwrite<char[]>(n)), length(n)
        {
        }
        char* data() const { return bytes.get(); }
        std::size_t size() const { return length; }
        std::unique_ptr<char[]> bytes;
        std::size_t length;
    } m_ring;
    std::uint64_t m_nextSeq = 0;
    bool m_exited = false;
    int m_exitStatus = 0;
    std::string m_exitFrame;
};

} // namespace sb
