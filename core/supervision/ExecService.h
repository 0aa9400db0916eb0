// Programs' processes and file requests in a running session (control protocol version 2:
// exec_start, exec_input, exec_control, file_request), served through the sandbox's exec
// helper (sandbox/ExecHelper.h), which runs inside the sandbox as the agent's own processes
// do. Runs on the session loop's thread, around its poll(), like the control server: the
// helper's channel and each process's output pipes are its descriptors.
//
// Every process is recorded (who asked, its command line, how it ended) and shown live as an
// activity event; its exec goes through exec approval like any other, so an ask rule makes it
// wait for an answer and a deny rule comes back to the caller as such, with the rule.
#pragma once

#include "base/Clock.h"
#include "base/UniqueFd.h"
#include "control/Protocol.h"
#include "policy/Approval.h"
#include "sandbox/Sandbox.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <poll.h>
#include <string>
#include <vector>

namespace sb {

struct ExecServiceHooks {
    // A message to one control client; false when it is gone.
    std::function<bool(std::uint64_t client, const std::string& frame)> sendTo;
    std::function<std::size_t(std::uint64_t client)> queuedBytes;
    // An activity event for clients and the recording.
    std::function<void(nlohmann::json)> activity;
    // Bytes for the session's terminal stream, for a session without a command of its own:
    // its terminal then shows what programs ran in it. Null: not shown there.
    std::function<void(std::string_view)> transcript;
    // A new exec helper's filter listener, for exec approval.
    std::function<void(int listenerFd)> addExecListener;
    // The last exec exec approval denied in a process's session (its pid, the sandbox's
    // numbering) since a moment: {why, the command line}.
    std::function<std::optional<std::pair<std::string, std::string>>(std::int64_t session,
                                                                     std::int64_t sinceUnixMs)>
        denialIn;
    // The approval requests waiting for an answer: one may have come before its process's pid.
    std::function<std::vector<ApprovalRequest>()> pendingApprovals;
};

class ExecService {
  public:
    // `environment`: the session's, which every process starts from. The sandbox outlives this.
    ExecService(const SandboxProcess& sandbox, std::vector<std::string> environment,
                ExecServiceHooks hooks, Clock& clock = Clock::system());
    ~ExecService();
    ExecService(const ExecService&) = delete;
    ExecService& operator=(const ExecService&) = delete;

    // From the control server (SessionBackend::clientRequest); an error goes back to the client.
    Status request(std::uint64_t client, const std::string& name, proto::Message& message);
    // Its processes get SIGHUP (unless started detached), its file requests are dropped and
    // its unfinished writes rolled back (their temporary files removed).
    void clientGone(std::uint64_t client);
    // An approval request published by the broker: one of our processes may be waiting on it.
    void onApprovalRequest(const ApprovalRequest& request);

    void fillPollFds(std::vector<pollfd>& fds) const;
    void handle(const std::vector<pollfd>& fds);
    // When handle() wants to run again without an fd event (deadlines, a client catching up);
    // -1: not before one.
    long long nextWakeMs() const;
    // The session ends: every process is reported to its client as ended with the session.
    void sessionEnded();

    std::size_t running() const { return m_execs.size(); }

  private:
    struct Exec;
    struct FileOp;
    struct Upload;
    enum class HelperState { None, Starting, Ready, Failed };

    Status startExec(std::uint64_t client, const std::string& name, const nlohmann::json& body);
    Status execInput(std::uint64_t client, std::uint64_t id, std::string_view bytes);
    Status execControl(std::uint64_t client, const nlohmann::json& body);
    Status fileRequest(std::uint64_t client, const std::string& name, const nlohmann::json& body);
    Status continueUpload(std::unique_ptr<FileOp> op, const nlohmann::json& body);
    Status fileData(std::uint64_t client, std::uint64_t id, std::string bytes);
    void abortUploads(std::uint64_t client); // 0: every client's
    Exec* findExec(std::uint64_t client, std::uint64_t id);

    Status toHelper(const nlohmann::json& message, const std::vector<int>& fds = {});
    // Runs `send` once the helper is up: now, or when it has started (or failed to).
    void whenHelperReady(std::function<void()> send);
    void onHelperStarted();
    void onHelperMessage();
    void helperGone(const std::string& why);
    void onSpawned(Exec& e, const nlohmann::json& reply, std::vector<UniqueFd>& fds);
    void tellApproval(Exec& e, const ApprovalRequest& request);
    void onFileReply(FileOp& op, const nlohmann::json& reply, const std::vector<UniqueFd>& fds);
    void readOutput(Exec& e, int& fd, std::uint64_t stream);
    void flushInput(Exec& e);
    void finishIfDone(std::uint64_t spawnId);
    void reportExit(Exec& e);
    void replyFile(const FileOp& op, nlohmann::json reply);
    void sendToClient(std::uint64_t client, const std::string& frame);

    const SandboxProcess& m_sandbox;
    std::vector<std::string> m_environment;
    ExecServiceHooks m_hooks;
    Clock& m_clock;
    HelperState m_helper = HelperState::None;
    int m_channel = -1;
    std::string m_helperError;
    // Requests that wait for the helper to start: run once it is there, or failed with it.
    std::vector<std::function<void()>> m_waiting;
    std::uint64_t m_nextSpawn = 1; // helper request ids, execs and file requests alike
    std::map<std::uint64_t, std::unique_ptr<Exec>> m_execs;
    std::map<std::uint64_t, std::unique_ptr<FileOp>> m_files;
    std::map<std::uint64_t, std::unique_ptr<Upload>> m_uploads; // by the helper's write id
    // Writes' contents (file_data frames) waiting for their file_request, by client and id.
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> m_fileData;
};

} // namespace sb
