#include "supervision/ApprovalBroker.h"

#include <algorithm>

namespace sb {
namespace {

constexpr std::size_t kFinishedKept = 4096; // late answers beyond these get NotFound

std::string normalHost(std::string_view host)
{
    std::string out(host);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (out.ends_with('.')) out.pop_back();
    return out;
}

std::string program(const ApprovalRequest& r)
{
    return r.program.empty() && !r.argv.empty() ? r.argv[0] : r.program;
}

} // namespace

ApprovalBroker::ApprovalBroker(ApprovalPolicy policy, Clock& clock)
    : m_policy(policy), m_clock(clock)
{
}

std::optional<bool> ApprovalBroker::decidedBySession(const ApprovalRequest& request) const
{
    std::lock_guard lock(m_mutex);
    if (request.kind == ApprovalKind::Command)
        return m_answers.decideCommand(program(request), request.argv);
    return m_answers.decideConnection(normalHost(request.host), request.port, request.process);
}

SessionAnswers ApprovalBroker::sessionAnswers() const
{
    std::lock_guard lock(m_mutex);
    return m_answers;
}

std::uint64_t ApprovalBroker::submit(ApprovalRequest request, Done done)
{
    std::unique_lock lock(m_mutex);
    const std::uint64_t id = m_nextId++;
    request.id = id;
    request.deadlineUnixMs =
        m_clock.unixMs() + static_cast<std::int64_t>(m_policy.timeoutSeconds) * 1000;
    if (m_closed) {
        lock.unlock();
        ApprovalOutcome outcome;
        outcome.id = id;
        outcome.cancelled = true;
        if (done) done(outcome);
        return id;
    }
    const std::int64_t now = m_clock.monotonicMs();
    m_pending[id] = Pending{request, std::move(done), now,
                            now + static_cast<std::int64_t>(m_policy.timeoutSeconds) * 1000,
                            m_policy.onTimeout};
    Listener listener = m_listener;
    lock.unlock();
    if (listener) listener(&request, nullptr);
    return id;
}

ApprovalOutcome ApprovalBroker::timeoutOutcomeLocked(const Pending& p) const
{
    ApprovalOutcome outcome;
    outcome.id = p.request.id;
    outcome.timedOut = true;
    outcome.allow = p.onTimeout == RuleAction::Allow;
    outcome.latencyMs = m_clock.monotonicMs() - p.submittedMs;
    return outcome;
}

ApprovalBroker::Delivery ApprovalBroker::finishLocked(std::uint64_t id, ApprovalOutcome outcome)
{
    auto it = m_pending.find(id);
    Delivery delivery{std::move(it->second.done), std::move(outcome)};
    m_pending.erase(it);
    const ApprovalOutcome& o = delivery.outcome;
    std::string what =
        o.timedOut    ? std::string("timed out and was ") + (o.allow ? "allowed" : "denied")
        : o.cancelled ? std::string("cancelled")
                      : std::string(o.allow ? "allowed" : "denied") +
                            (o.answer.answeredBy.empty() ? "" : " by " + o.answer.answeredBy);
    m_finished[id] = std::move(what);
    m_finishedOrder.push_back(id);
    if (m_finishedOrder.size() > kFinishedKept) {
        m_finished.erase(m_finishedOrder.front());
        m_finishedOrder.pop_front();
    }
    return delivery;
}

void ApprovalBroker::deliver(std::vector<Delivery> deliveries)
{
    Listener listener;
    {
        std::lock_guard lock(m_mutex);
        listener = m_listener;
    }
    for (Delivery& d : deliveries) {
        if (d.done) d.done(d.outcome);
        if (listener) listener(nullptr, &d.outcome);
    }
}

Status ApprovalBroker::answer(std::uint64_t id, const ApprovalAnswer& answer)
{
    std::unique_lock lock(m_mutex);
    auto it = m_pending.find(id);
    if (it == m_pending.end()) {
        if (auto f = m_finished.find(id); f != m_finished.end())
            return Error{ErrorCode::Conflict, 0,
                         "approval request " + std::to_string(id) + " already answered (" +
                             f->second + ")"};
        return Error{ErrorCode::NotFound, 0, "no approval request " + std::to_string(id)};
    }
    if (m_clock.monotonicMs() >= it->second.deadlineMs) {
        // Too late: on_timeout applies, whether or not expire() has run yet.
        std::vector<Delivery> late{finishLocked(id, timeoutOutcomeLocked(it->second))};
        const std::string what = m_finished[id];
        lock.unlock();
        deliver(std::move(late));
        return Error{ErrorCode::Conflict, 0,
                     "approval request " + std::to_string(id) + " already answered (" + what + ")"};
    }
    const ApprovalRequest request = it->second.request;
    if (answer.duration != ApprovalDuration::Once) {
        auto rule = ruleFromAnswer(request, answer);
        if (!rule) return rule.error();
        m_answers.add(*rule);
    }
    ApprovalOutcome outcome;
    outcome.id = id;
    outcome.allow = answer.allow;
    outcome.answer = answer;
    outcome.latencyMs = m_clock.monotonicMs() - it->second.submittedMs;
    Delivery d = finishLocked(id, std::move(outcome));
    PersistHook persist = answer.duration == ApprovalDuration::Always ? m_persist : nullptr;
    if (answer.duration == ApprovalDuration::Always && !m_persist)
        d.outcome.persistError = "the session's policy is in no file, so the rule could not be "
                                 "saved; the answer holds for this session";
    Listener listener = m_listener;
    lock.unlock();

    // The agent waits for `done`; saving the rule can wait for the agent.
    if (d.done) d.done(d.outcome);
    if (persist) {
        try {
            if (auto e = persist(request, answer)) d.outcome.persistError = e->describe();
        } catch (const std::exception& e) {
            d.outcome.persistError = std::string("saving the rule failed: ") + e.what();
        } catch (...) {
            d.outcome.persistError = "saving the rule failed with an unknown exception";
        }
    }
    if (listener) listener(nullptr, &d.outcome);
    return std::nullopt;
}

int ApprovalBroker::expire()
{
    std::vector<Delivery> expired;
    {
        std::lock_guard lock(m_mutex);
        const std::int64_t now = m_clock.monotonicMs();
        std::vector<std::uint64_t> due;
        for (const auto& [id, p] : m_pending) {
            if (now >= p.deadlineMs) due.push_back(id);
        }
        for (std::uint64_t id : due)
            expired.push_back(finishLocked(id, timeoutOutcomeLocked(m_pending.at(id))));
    }
    const int count = static_cast<int>(expired.size());
    deliver(std::move(expired));
    return count;
}

std::int64_t ApprovalBroker::nextDeadlineMs() const
{
    std::lock_guard lock(m_mutex);
    if (m_pending.empty()) return -1;
    std::int64_t earliest = m_pending.begin()->second.deadlineMs;
    for (const auto& [id, p] : m_pending)
        earliest = std::min(earliest, p.deadlineMs);
    return std::max<std::int64_t>(0, earliest - m_clock.monotonicMs());
}

std::vector<ApprovalRequest> ApprovalBroker::pending() const
{
    std::lock_guard lock(m_mutex);
    std::vector<ApprovalRequest> out;
    for (const auto& [id, p] : m_pending) // ids grow, so the map is oldest first
        out.push_back(p.request);
    return out;
}

void ApprovalBroker::setListener(Listener listener)
{
    std::lock_guard lock(m_mutex);
    m_listener = std::move(listener);
}

void ApprovalBroker::setApprovalPolicy(const ApprovalPolicy& policy)
{
    std::lock_guard lock(m_mutex);
    m_policy = policy;
}

void ApprovalBroker::setPersistHook(PersistHook hook)
{
    std::lock_guard lock(m_mutex);
    m_persist = std::move(hook);
}

ApprovalBroker::PersistHook ApprovalBroker::learnedRulesWriter(std::filesystem::path learnedFile)
{
    return [file = std::move(learnedFile)](const ApprovalRequest& request,
                                           const ApprovalAnswer& answer) -> Status {
        auto rule = ruleFromAnswer(request, answer);
        if (!rule) return rule.error();
        return appendLearnedRule(file, *rule);
    };
}

void ApprovalBroker::cancelAll()
{
    std::vector<Delivery> cancelled;
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        std::vector<std::uint64_t> ids;
        for (const auto& [id, p] : m_pending)
            ids.push_back(id);
        for (std::uint64_t id : ids) {
            ApprovalOutcome outcome;
            outcome.id = id;
            outcome.cancelled = true;
            outcome.latencyMs = m_clock.monotonicMs() - m_pending.at(id).submittedMs;
            cancelled.push_back(finishLocked(id, std::move(outcome)));
        }
    }
    deliver(std::move(cancelled));
}

} // namespace sb
