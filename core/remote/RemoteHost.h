// The local end of a dial stream: one ssh connection to a host's `sandbench-cli dial-stdio`
// (remote/DialServer.h) that carries every session there. A session's channel is a socket
// here, so the ControlClient every front uses talks to a remote supervisor unchanged; commands
// that read the host's own files run there, their terminal or pipes relayed (runCommand).
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"
#include "control/ControlClient.h"
#include "remote/MuxLoop.h"
#include "remote/SshTarget.h"

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace sb::remote {

class RemoteHost {
  public:
    // Starts ssh to `target` and says hello; the error says why not in the user's terms
    // (remote/SshTarget.h, dialFailure).
    static Result<std::unique_ptr<RemoteHost>> dial(const SshTarget& target,
                                                    const DialOptions& options);
    // The same over any program that speaks the dial stream on its stdin and stdout.
    static Result<std::unique_ptr<RemoteHost>> dialCommand(const std::vector<std::string>& argv,
                                                           const std::string& hostName,
                                                           int timeoutMs = 30000);
    // Ends the stream; ssh exits, and the host's dial-stdio with it.
    ~RemoteHost();
    RemoteHost(const RemoteHost&) = delete;
    RemoteHost& operator=(const RemoteHost&) = delete;

    const std::string& hostName() const { return m_host; }
    // The welcome: {"version", "sandbench", "control_version", "features"}.
    const nlohmann::json& welcome() const { return m_welcome; }
    // The transport's process (ssh), e.g. for a test that cuts the connection.
    pid_t transportPid() const { return m_pid; }
    // False once the stream has ended; every call then fails with lastError().
    bool connected() const;
    Error lastError() const;

    // The ids of the host's running sessions, as its `ls` would list them.
    Result<std::vector<std::string>> listSessions(int timeoutMs = 10000);
    // A socket carrying session `id`'s control stream (the hello is the caller's).
    Result<UniqueFd> openSession(const std::string& id, int timeoutMs = 10000);
    // openSession() with the handshake done: a client as ControlClient::connect gives.
    Result<std::unique_ptr<ControlClient>> connectSession(const std::string& id,
                                                          const std::string& clientName,
                                                          proto::Role role, int timeoutMs = 10000);
    // Runs `sandbench-cli ARGS…` on the host with this process's stdin, stdout and stderr (on
    // a terminal there when stdin and stdout are one here: raw mode, window size); its exit
    // status (128+N for signal N).
    Result<int> runCommand(const std::vector<std::string>& args);
    // Runs `sandbench-cli ARGS…` on the host with no input and keeps what it writes (a program's
    // view of a host's files: `changes --json`, `diff`): its status, stdout and stderr. From any
    // thread; an error when the connection ends first or it takes longer than `timeoutMs`.
    struct Captured {
        int status = -1;
        std::string out, err;
    };
    Result<Captured> capture(const std::vector<std::string>& args, int timeoutMs = 60000);

  private:
    RemoteHost() = default;
    Status start(const std::vector<std::string>& argv, int timeoutMs);
    void onControl(const nlohmann::json& message);
    void readStderr();
    // Sends `message` with a fresh id (after `before`, on the loop's thread) and waits for its
    // reply: the reply, or the host's refusal, a time-out or the end of the stream as the Error.
    Result<nlohmann::json> request(nlohmann::json message, int timeoutMs,
                                   std::function<void()> before);
    Error lastErrorLocked() const;
    std::uint32_t nextChannel();

    std::string m_host;
    pid_t m_pid = -1;
    UniqueFd m_toRemote, m_fromRemote, m_stderr;
    std::unique_ptr<MuxLoop> m_loop;
    std::thread m_thread;

    mutable std::mutex m_mutex; // guards everything below
    std::condition_variable m_changed;
    bool m_ended = false;
    bool m_closing = false; // the destructor ends the stream
    bool m_welcomed = false;
    std::string m_refusal; // an "error" op's message
    nlohmann::json m_welcome;
    std::string m_sshStderr; // its last few kilobytes
    int m_sshStatus = -1;
    Status m_loopStatus;
    std::map<std::uint64_t, nlohmann::json> m_replies;
    std::map<std::uint32_t, int> m_exits; // by io channel
    std::uint64_t m_nextRequest = 1;
    std::uint32_t m_nextChannel = 1;
};

} // namespace sb::remote
