// Exec approval on a thread of its own: each exec of the sandbox, stopped by the seccomp filter,
// is read, decided by the command rules (or put to the broker), answered and recorded there.
// The same listener brings the connects and sends of a supervised network: those are looked at
// here and handed to Hooks::outbound (the proxy), which answers them.
//
// The thread waits on the listener itself, so an exec's synchronous wake-up hands it the exec's
// CPU and the answer hands it back, with nothing else in between: the session loop's other
// descriptors, timers and clients are not looked at while an exec waits. What only the loop's
// thread may touch (control clients) goes to it through the hooks.
#pragma once

#include "base/Clock.h"
#include "base/UniqueFd.h"
#include "policy/CommandRules.h"
#include "recording/RecordingWriter.h"
#include "supervision/ApprovalBroker.h"
#include "supervision/ExecInterceptor.h"
#include "supervision/OutboundGate.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sb {

class ExecApproval {
  public:
    // Called on the approval thread; they must only hand things over to another thread.
    struct Hooks {
        std::function<void()> firstAnswered;            // once, after the first exec
        std::function<void(nlohmann::json)> forClients; // a command, while setWatched(true)
        std::function<void(nlohmann::json)> activity;   // an error, for clients and recording
        // A connect or send to an address outside the sandbox (OutboundGate.h): call `answer`
        // once, from any thread, with 0 to let it go on or the errno it fails with. Without
        // it, such calls go on.
        std::function<void(OutboundAttempt, std::function<void(int error)> answer)> outbound;
        // A call the filter refused for the sandbox (RefusedCall), while its process waits,
        // with the id of the command that process last ran (0: none seen); it then fails
        // with EPERM.
        std::function<void(const RefusedCall&, std::uint64_t commandId)> refused;
    };

    // Starts the thread, with every signal blocked. `recorder` may be null.
    struct Options {
        bool observe = false; // what the rules would ask is allowed (CommandRecord::wouldAsk)
        // A candidate's rules, evaluated beside and recorded (CommandRecord::shadow*).
        std::optional<CommandMatcher> shadow;
    };
    ExecApproval(int listenerFd, CommandMatcher rules, ApprovalBroker& broker,
                 RecordingWriter* recorder, Clock& clock, Hooks hooks, Options options);
    ~ExecApproval(); // stop(), then closes the listener (execs still waiting fail with ENOSYS)
    ExecApproval(const ExecApproval&) = delete;
    ExecApproval& operator=(const ExecApproval&) = delete;

    // Any thread: execs received after it returns are decided by these rules.
    void setRules(CommandMatcher rules);
    // Any thread: the listener of another filter instance over the same sandbox (an exec
    // helper's, ExecHelper.h), served like the first; it closes it.
    void addListener(int listenerFd);
    // Any thread: the most recent denial of an exec in the session `sandboxSession` (its
    // leader's pid, the sandbox's numbering) since `sinceUnixMs`, among the last 256; for the
    // exec API to tell its caller which rule stopped its process or one of its children.
    struct Denial {
        std::int64_t pid = 0, session = 0;
        std::string why;     // the rule, or how an approval request ended
        std::string command; // its command line
        std::int64_t unixMs = 0;
    };
    std::optional<Denial> denialIn(std::int64_t sandboxSession, std::int64_t sinceUnixMs) const;
    // Any thread: whether control clients want each command as it happens.
    void setWatched(bool watched) { m_watched.store(watched, std::memory_order_relaxed); }
    // Ends the thread and waits for it; pending asks stay with the broker, whose answers still
    // reach their exec. The thread also ends by itself once no process is left under the filter.
    void stop();

  private:
    void run();
    void onNotification(const std::shared_ptr<ExecInterceptor>& interceptor);
    void onOutbound(const std::shared_ptr<ExecInterceptor>& interceptor, const OutboundCall& call);
    void onRefused(ExecInterceptor& interceptor, const RefusedCall& call);
    void noteDenial(pid_t pid, const std::string& why, const ApprovalRequest& request);
    bool programAbsent(pid_t pid, const std::string& program) const;
    void record(CommandRecord record);

    // The first listener, then those addListener gave (taken in by the thread).
    // Shared with the answers to outbound calls, which may come after the thread ended.
    std::vector<std::shared_ptr<ExecInterceptor>> m_interceptors;
    std::mutex m_addedMutex;
    std::vector<int> m_added;
    mutable std::mutex m_denialsMutex;
    std::deque<Denial> m_denials; // newest last
    ApprovalBroker& m_broker;
    RecordingWriter* m_recorder;
    Clock& m_clock;
    Hooks m_hooks;
    std::mutex m_rulesMutex;
    CommandMatcher m_rules;
    std::atomic<bool> m_watched{false};
    const Options m_mode;
    std::atomic<std::uint64_t> m_commands{0}; // commands decided so far (their ids: 1…)
    std::atomic<bool> m_stopping{false};
    UniqueFd m_stopFd; // written by stop()
    // The thread's own state.
    UniqueFd m_sandboxRoot; // O_PATH: "/" of the sandbox, from the first exec's process
    // Programs allowed execs found in the sandbox, not looked for again (a loop or a build
    // runs the same few over and over); at most kProgramsFoundMax (ExecApproval.cpp).
    std::unordered_set<std::string> m_programsFound;
    // The command each process last ran (its id), for what the filter refuses it; at most
    // kProgramsFoundMax entries.
    std::unordered_map<pid_t, std::uint64_t> m_commandOf;
    // When each "pid syscall" was last refused and recorded.
    std::unordered_map<std::string, std::int64_t> m_refusedAt;
    bool m_answeredOne = false;
    std::thread m_thread; // last: starts once everything above is ready
};

} // namespace sb
