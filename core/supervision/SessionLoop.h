// The supervisor's event loop for one running sandbox: the terminal relay, approval timeouts,
// control clients, the terminal prompt and signals, all on one thread around poll(). Exec
// approval runs beside it on a thread of its own (ExecApproval.h).
#pragma once

#include "base/Clock.h"
#include "control/ControlServer.h"
#include "network/Proxy.h"
#include "network/TlsIntercept.h"
#include "recording/RecordingWriter.h"
#include "sandbox/Sandbox.h"
#include "supervision/ApprovalBroker.h"
#include "supervision/ExecApproval.h"
#include "supervision/ExecService.h"
#include "supervision/PortService.h"
#include "supervision/RunningPolicy.h"
#include "supervision/TerminalPrompt.h"

#include <atomic>
#include <csignal>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace sb {

struct LoopOptions {
    int inFd = 0;  // keys for the agent (pty mode), -1 for none
    int outFd = 1; // where the agent's terminal output goes, -1 for nowhere (headless)
    int errFd = 2;
    // Without a pty: the read ends of the command's stdout and stderr pipes, relayed to outFd
    // and errFd (and to clients and the recording as the session's terminal stream). The loop
    // owns them: it closes them at their end or when it is destroyed.
    int commandOut = -1, commandErr = -1;
    bool interactive = false; // inFd is a terminal: raw mode, the Ctrl-] approval screen
    std::string sessionId;    // for notices
    long long deadlineMs = 0; // CLOCK_MONOTONIC; 0 = no wall-clock limit
    // A session without a command: SIGTERM after this long with no program's process running
    // and no client connected (limits.idle_seconds); 0 = never.
    long long idleMs = 0;
    // Stops the session (SIGTERM) when its other end closes (RunOptions::lifeline); the loop
    // closes it. -1: none.
    int lifeline = -1;
    std::function<void(const std::string&)> notice;
    // Receives the terminal stream, input, resizes and every activity event; may be null.
    RecordingWriter* recorder = nullptr;
    // The session's environment, where processes programs start begin (ExecService).
    std::vector<std::string> environment;
    // A session without a command of its own: its terminal stream shows what programs ran.
    bool transcript = false;
    // Observe mode (RunOptions::observe): asks are answered "allow" at once and recorded with
    // "would_ask".
    bool observe = false;
    // RunOptions::shadow: evaluated beside the policy, recorded on each decision.
    std::optional<Policy> shadow;
    // The secrets' TLS termination (SessionSecrets.h), handed to the proxy; null: no secrets.
    std::shared_ptr<TlsInterceptor> intercept;
    // How long after the start the session goes live at the latest (whenLive): a session that
    // programs drive is live at once, since its only use is their connecting.
    long long liveAfterMs = 50;
    // A stop (a stop signal to the supervisor, `stop`) sends the sandbox SIGTERM, and SIGKILL
    // this long after if it is still there.
    long long stopGraceMs = kStopGraceMs;
    static constexpr long long kStopGraceMs = proto::kStopGraceMs;
    // A snapshot of the running session named `name` (empty: snapshot-N), taken with the
    // sandbox frozen (snapshot_request); its description for the reply. Null: refused.
    std::function<Result<nlohmann::json>(const std::string& name)> snapshot;
    // Freezes the sandbox (`paused`) or thaws it (pause_request); pausing a paused session or
    // resuming a running one is no error. Null: refused.
    std::function<Status(bool paused)> pause;
};

class SessionLoop final : public SessionBackend {
  public:
    // Enforces `policy` (its learned rules merged); "always" answers are saved to its
    // learned-rules file, when it has one.
    SessionLoop(RunningPolicy policy, const SandboxProcess& sandbox, LoopOptions options,
                Clock& clock = Clock::system());
    ~SessionLoop();
    SessionLoop(const SessionLoop&) = delete;
    SessionLoop& operator=(const SessionLoop&) = delete;

    // What the constructor could not set up (its wake-up eventfd, its signalfd): with an error
    // the loop cannot run, and the session ends before it starts.
    const Status& setUpError() const { return m_setUpError; }
    ApprovalBroker& broker() { return m_broker; }
    // Opens the session's control socket, for `sandbench-cli attach`, the GUI and other clients.
    Status listen(SessionSummary summary);
    // Serves the sandbox's proxy listener, its transparent one and its resolver socket (-1:
    // none) in network mode filtered; asks go to the broker.
    // `initPid` and `diagFd` (taken over; -1: none): to find the process behind a connection
    // (SocketOwner.h).
    Status startProxy(int listenFd, int transparentFd, int resolverFd, pid_t initPid, int diagFd);
    // Runs until init exits (true) or the deadline passes (false).
    bool run();
    // Tells clients how it ended and gives them a moment to hear it.
    void finish(int exitStatus);
    // Any thread: an activity event (a file change, a limit hit) for clients and the recording;
    // the loop's thread sends it, before finish()'s exit at the latest.
    void publishActivity(nlohmann::json event);
    // Called on the loop's thread each time a client subscribes.
    void whenClientSubscribes(std::function<void()> hook) { m_onSubscribe = std::move(hook); }
    // Called once on the loop's thread, when run() first wakes: the command's first exec is
    // answered by then (exec approval wakes the loop once it has). For work the start need not
    // wait for.
    void whenStarted(std::function<void()> hook) { m_onStarted = std::move(hook); }
    // Called once on the loop's thread, before the session's first output is relayed or its
    // first approval request is published, or SessionLoopOptions::liveAfterMs after it started,
    // whichever comes first; never for a session over sooner. For what only a session somebody
    // can watch needs: the control socket (so clients still get all the output), the live
    // watches.
    void whenLive(std::function<void()> hook) { m_onLive = std::move(hook); }

    // SessionBackend: what control clients may do.
    SessionSummary summary() const override;
    void writeTerminalInput(std::string_view bytes) override;
    void resize(unsigned rows, unsigned cols) override;
    Status answerApproval(std::uint64_t id, const ApprovalAnswer& answer) override;
    std::vector<ApprovalRequest> pendingApprovals() const override { return m_broker.pending(); }
    // SIGTERM to the sandbox, and SIGKILL after the grace period when it is still there; or
    // SIGKILL at once.
    void stop(bool kill) override;
    // The stop signal (SIGTERM, SIGHUP, …) that ended the session; 0 when none did.
    int stopSignal() const { return m_stopSignal; }
    void clientSubscribed() override;
    // On the loop's thread (from the control server). Exec approval and the proxy take their
    // rules under their own locks: an exec or a connection after the answer meets the new ones.
    // Pending requests stay pending.
    Result<proto::PolicyUpdateResult> updatePolicy(const proto::PolicyUpdate& update,
                                                   const std::string& client) override;
    Status clientRequest(std::uint64_t client, const std::string& name,
                         proto::Message& request) override;
    bool servesPrograms() const override { return m_programs != nullptr; }
    bool servesPorts() const override { return m_ports != nullptr; }
    void clientGone(std::uint64_t client) override;

  private:
    // snapshot_request: LoopOptions::snapshot, its reply and its activity event.
    Status takeSnapshot(std::uint64_t client, const std::string& by, const proto::Message& request);
    // execution_record: the execution checked and bounded (recording/CodeExecution.h), the
    // secrets' values taken out of its texts, then an activity event and recorded.
    Status recordExecution(std::uint64_t client, const std::string& by,
                           const proto::Message& request);
    // pause_request: LoopOptions::pause, its reply and its activity event.
    Status pauseOrResume(std::uint64_t client, const std::string& by,
                         const proto::Message& request);
    // Things other threads (the proxy, a broker answer) hand to the loop's thread.
    struct ApprovalEvent {
        std::optional<ApprovalRequest> request;
        std::optional<ApprovalOutcome> outcome;
        std::optional<nlohmann::json> activity;
        std::optional<nlohmann::json> forClients; // already recorded: for control clients only
        std::function<void()> onLoop;             // anything else to run on the loop's thread
    };
    // How another thread that may outlive the loop (the recording's) reaches queue(): `loop` is
    // null once the loop is gone.
    struct Mailbox {
        std::mutex mutex;
        SessionLoop* loop = nullptr;
    };

    void onApprovalEvent(const ApprovalRequest* request, const ApprovalOutcome* outcome);
    void onProxyAsk(const ConnectionRequest& request, const std::string& rule,
                    Proxy::Decide decide);
    void onProxyEvent(const ProxyEvent& event);
    void queue(ApprovalEvent event);
    void drainApprovalEvents();
    void onTerminalOutput();
    // One read of the command's output from `from`: to `to` as it is, to the clients and the
    // recording as a terminal shows it. The read's result (0: the end; < 0: see errno).
    ssize_t relayOutput(int from, int to, bool fromPipe);
    void onCommandPipe(int& fd, int to);
    void publishOutput(const char* data, size_t size);
    void drainTerminal();
    void onUserInput();
    void onOwnerGone();
    void onSignal();
    void closePrompt();
    // The terminal's title notice of `pending` approvals, written to the user's terminal.
    void writeNotice(std::size_t pending);
    void emit(nlohmann::json event) const;
    void goLive();

    const SandboxProcess& m_sandbox;
    LoopOptions m_options;
    Clock& m_clock;
    RunningPolicy m_policy;
    ApprovalBroker m_broker;
    std::unique_ptr<ControlServer> m_control;
    std::function<void()> m_onSubscribe;
    std::function<void()> m_onStarted;
    std::function<void()> m_onLive;
    long long m_liveAtMs = -1; // when m_onLive is due (CLOCK_MONOTONIC); -1 before the start
    std::unique_ptr<Proxy> m_proxy;
    // m_proxy for the exec approval thread's outbound calls, once it has started.
    std::atomic<Proxy*> m_screening{nullptr};
    SessionSummary m_summary;
    std::optional<TerminalPrompt> m_prompt;
    int m_signalFd = -1;
    int m_stopSignal = 0; // the first stop signal the supervisor got
    long long m_stopSignalAtMs = 0;
    static constexpr long long kSameStopMs = 250;
    char m_pipeLastByte = 0;   // the last byte of the command's pipes, across reads
    long long m_killAtMs = -1; // when a stopped sandbox still there gets SIGKILL
    sigset_t m_previousMask{};
    int m_wakeFd = -1; // approval events from any thread wake the loop
    Status m_setUpError;
    bool m_masterOpen = true;
    bool m_inputOpen = true;
    bool m_announce = false;   // a title notice waits for a quiet moment in the output
    long long m_busyAtMs = -1; // last moment a program's process ran or a client was there
    long long m_lastOutputMs = 0;

    std::mutex m_eventsMutex;
    std::vector<ApprovalEvent> m_events;
    std::shared_ptr<Mailbox> m_mailbox = std::make_shared<Mailbox>();
    // Programs' processes and files (control protocol version 2), when the sandbox has a way
    // to start an exec helper.
    std::unique_ptr<ExecService> m_programs;
    // Port previews (control protocol version 3), when the sandbox has a network of its own to
    // make sockets in, or shares the host's.
    std::unique_ptr<PortService> m_ports;
    // Last: its thread hands events to the members above until it is stopped.
    std::unique_ptr<ExecApproval> m_exec;
};

} // namespace sb
