// The session's approval requests: what the agent waits for, who answered, what timed out.
// Core decides, clients propose: the supervisor owns the broker, its defaults and its timeouts;
// control clients and the terminal prompt only propose answers, and the first one wins.
#pragma once

#include "base/Clock.h"
#include "base/Error.h"
#include "policy/Approval.h"
#include "policy/CommandRules.h"
#include "policy/LearnedRules.h"
#include "policy/Policy.h"
#include "policy/SessionAnswers.h"

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace sb {

// Thread-safe. Callbacks run outside the broker's lock, so they may call back into it.
class ApprovalBroker {
  public:
    using Done = std::function<void(const ApprovalOutcome&)>;
    // Exactly one of the two is set: a new request, or an outcome.
    using Listener = std::function<void(const ApprovalRequest*, const ApprovalOutcome*)>;
    using PersistHook = std::function<Status(const ApprovalRequest&, const ApprovalAnswer&)>;

    ApprovalBroker(ApprovalPolicy policy, Clock& clock);

    // Before asking: a session or "always" answer given earlier in this session may already decide
    // the request (true: allow, false: deny). A deny among the matching answers wins.
    std::optional<bool> decidedBySession(const ApprovalRequest& request) const;
    // Those answers, as rules (for a client's welcome).
    SessionAnswers sessionAnswers() const;

    // Registers a pending request (fills id and deadlineUnixMs) and returns its id. `done` is
    // called exactly once with the outcome, from the thread that answered, expired or cancelled it.
    // After cancelAll() a request is denied at once, from the calling thread.
    std::uint64_t submit(ApprovalRequest request, Done done);

    // First answer wins: a later one for the same id gets Conflict ("already answered"), as does
    // one that arrives after the deadline (the request then times out there and then); an unknown
    // id is NotFound. A session or always answer whose scope does not fit the request (a
    // subcommand of a program run without arguments, a host scope for a command) is refused with
    // InvalidInput and the request stays pending.
    Status answer(std::uint64_t id, const ApprovalAnswer& answer);

    // Applies on_timeout to every request past its deadline; returns how many expired. A timed-out
    // request never becomes a rule.
    int expire();

    // Milliseconds until the earliest deadline (0 when one has passed), or -1 without pending
    // requests: a poll() timeout as it is. Call expire() when it elapses.
    std::int64_t nextDeadlineMs() const;

    std::vector<ApprovalRequest> pending() const; // oldest first

    // Observers (control clients, the terminal prompt, the recording). A listener may see an
    // outcome before the request when another thread answers within microseconds of submit().
    void setListener(Listener listener);

    // Called after an "always" answer, once the agent has been released. A failure (or an
    // exception) lands in the outcome's persistError for the listener; the answer still holds for
    // the session.
    void setPersistHook(PersistHook hook);

    // The session's policy changed: later requests get the new timeout, and on_timeout for them;
    // pending requests keep the deadline and on_timeout they were asked with.
    void setApprovalPolicy(const ApprovalPolicy& policy);

    // The hook a supervisor usually sets: ruleFromAnswer() appended to `learnedFile`.
    static PersistHook learnedRulesWriter(std::filesystem::path learnedFile);

    // The supervisor is shutting down: every pending request is denied (outcome.cancelled), and so
    // is every later submission.
    void cancelAll();

  private:
    struct Pending {
        ApprovalRequest request;
        Done done;
        std::int64_t submittedMs = 0; // monotonic
        std::int64_t deadlineMs = 0;  // monotonic
        RuleAction onTimeout = RuleAction::Deny;
    };
    struct Delivery {
        Done done;
        ApprovalOutcome outcome;
    };

    // All called with m_mutex held.
    Delivery finishLocked(std::uint64_t id, ApprovalOutcome outcome);
    ApprovalOutcome timeoutOutcomeLocked(const Pending& p) const;
    void deliver(std::vector<Delivery> deliveries);

    mutable std::mutex m_mutex;
    ApprovalPolicy m_policy;
    Clock& m_clock;
    std::uint64_t m_nextId = 1;
    bool m_closed = false;
    std::map<std::uint64_t, Pending> m_pending;
    // What became of recent requests, so a late answer hears why it is refused.
    std::map<std::uint64_t, std::string> m_finished;
    std::deque<std::uint64_t> m_finishedOrder;
    SessionAnswers m_answers;
    Listener m_listener;
    PersistHook m_persist;
};

} // namespace sb
