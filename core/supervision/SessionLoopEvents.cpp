// What other threads hand the session loop: the broker's approval requests and outcomes, the
// proxy's questions and events, the recording's answers to execution records. Queued under a
// mutex and a wake-up of the loop, whose thread emits them (the control server is the loop's
// alone): drainApprovalEvents().
#include "base/ActivityKinds.h"
#include "policy/NetworkRules.h"
#include "sandbox/SocketOwner.h"
#include "supervision/SessionLoop.h"

#include <unistd.h>

namespace sb {

void SessionLoop::queue(ApprovalEvent event)
{
    // Any thread: the loop's thread emits it (the control server is not thread-safe).
    {
        std::lock_guard lock(m_eventsMutex);
        m_events.push_back(std::move(event));
    }
    std::uint64_t one = 1;
    (void)!::write(m_wakeFd, &one, sizeof one);
}

void SessionLoop::drainApprovalEvents()
{
    std::vector<ApprovalEvent> events; // allocates nothing while there is nothing to hand over
    {
        std::lock_guard lock(m_eventsMutex);
        events.swap(m_events);
    }
    for (const ApprovalEvent& e : events) {
        if (e.onLoop) e.onLoop();
        if (e.activity) emit(*e.activity);
        if (e.forClients && m_control) m_control->publishEvent(*e.forClients);
        if (e.request) {
            const ApprovalRequest& r = *e.request;
            goLive();
            if (m_control) m_control->publishApprovalRequest(r);
            if (m_programs) m_programs->onApprovalRequest(r);
            nlohmann::json asked = {
                {"kind", activity::kApproval},
                {"type", "request"},
                {"request_id", r.id},
                {"request", r.kind == ApprovalKind::Command ? "command" : "network"},
                {r.kind == ApprovalKind::Command ? "command_id" : "connection", r.subject},
                {"pid", r.pid},
                {"what", describeRequest(r)},
                {"rule", r.rule},
                {"deadline_unix_ms", r.deadlineUnixMs}};
            // What "what" says in English, for a window to say in its own language.
            if (r.kind == ApprovalKind::Command)
                asked.update({{"argv", r.argv}, {"program", r.program}, {"cwd", r.cwd}});
            else
                asked.update({{"host", r.host}, {"port", r.port}, {"protocol", r.protocol}});
            emit(std::move(asked));
            if (m_prompt)
                m_announce = true;
            else if (m_options.notice)
                m_options.notice("approval #" + std::to_string(r.id) + " pending: " +
                                 describeRequest(r) + "; answer with 'sandbench-cli approve " +
                                 m_options.sessionId + " " + std::to_string(r.id) + " allow|deny'");
        }
        if (e.outcome) {
            const ApprovalOutcome& o = *e.outcome;
            if (m_control) m_control->publishApprovalOutcome(o);
            std::string how = o.timedOut    ? "timed out"
                              : o.cancelled ? "cancelled"
                                            : "answered by " + o.answer.answeredBy;
            emit({{"kind", activity::kApproval},
                  {"type", "outcome"},
                  {"request_id", o.id},
                  {"decision", o.allow ? "allow" : "deny"},
                  {"timed_out", o.timedOut},
                  {"cancelled", o.cancelled},
                  {"answered_by", o.answer.answeredBy},
                  {"scope", proto::approvalScopeName(o.answer.scope)},
                  {"duration", proto::approvalDurationName(o.answer.duration)},
                  {"latency_ms", o.latencyMs}});
            if (!o.persistError.empty() && m_options.notice)
                m_options.notice("could not save the rule for approval #" + std::to_string(o.id) +
                                 ": " + o.persistError);
            if (!m_prompt && m_options.notice)
                m_options.notice("approval #" + std::to_string(o.id) + " " +
                                 (o.allow ? "allowed" : "denied") + " (" + how + ")");
            if (m_prompt && m_broker.pending().empty()) {
                m_announce = false;
                if (!m_prompt->isOpen()) writeNotice(0);
            }
        }
    }
}

void SessionLoop::publishActivity(nlohmann::json event)
{
    ApprovalEvent queued;
    queued.activity = std::move(event);
    queue(std::move(queued));
}

void SessionLoop::onApprovalEvent(const ApprovalRequest* request, const ApprovalOutcome* outcome)
{
    ApprovalEvent e;
    if (request) e.request = *request;
    if (outcome) e.outcome = *outcome;
    queue(std::move(e));
}

Status SessionLoop::startProxy(int listenFd, int transparentFd, int resolverFd, pid_t initPid,
                               int diagFd)
{
    Proxy::Hooks hooks;
    hooks.ask = [this](const ConnectionRequest& r, const std::string& rule, Proxy::Decide decide) {
        onProxyAsk(r, rule, std::move(decide));
    };
    hooks.onEvent = [this](const ProxyEvent& e) { onProxyEvent(e); };
    // Only the proxy's thread calls it: the owners' cache needs no lock.
    auto owners = std::make_shared<SocketOwners>(initPid, diagFd);
    hooks.identify = [owners](const sockaddr_storage& local, const sockaddr_storage& remote,
                              bool udp) { return owners->owner(local, remote, udp); };
    hooks.processOf = [owners](pid_t pid) { return owners->chainOf(pid); };
    Proxy::Options options;
    options.transparentListenFd = transparentFd;
    options.resolverFd = resolverFd;
    options.observe = m_options.observe;
    if (m_options.shadow) options.shadow = m_options.shadow->network;
    if (m_options.intercept) {
        // Before the proxy starts: no connection reaches the interceptor earlier.
        m_options.intercept->setOnEvent([this](const ProxyEvent& e) { onProxyEvent(e); });
        m_options.intercept->setAsk(
            [this](const ConnectionRequest& r, const std::string& rule, Proxy::Decide decide) {
                onProxyAsk(r, rule, std::move(decide));
            });
        options.intercept = m_options.intercept;
    }
    auto proxy = Proxy::start(listenFd, m_policy.merged().network, std::move(hooks), options);
    if (!proxy) return proxy.error();
    m_proxy = std::move(proxy.value());
    m_screening.store(m_proxy.get(), std::memory_order_release);
    return {};
}

// On the proxy's thread: the broker is thread-safe, and its outcome reaches decide() directly.
void SessionLoop::onProxyAsk(const ConnectionRequest& r, const std::string& rule,
                             Proxy::Decide decide)
{
    ApprovalRequest request;
    request.kind = ApprovalKind::Network;
    request.host = r.host;
    request.port = r.port;
    request.protocol = r.protocol;
    request.rule = rule;
    request.subject = r.connection;
    request.process = r.process;
    if (auto earlier = m_broker.decidedBySession(request)) {
        decide(*earlier, "an answer earlier in this session");
        return;
    }
    // The rule a decision names: the request, and who settled it.
    m_broker.submit(std::move(request), [decide](const ApprovalOutcome& o) {
        const std::string which = "approval #" + std::to_string(o.id);
        decide(o.allow, o.timedOut    ? which + " (timed out)"
                        : o.cancelled ? which + " (cancelled)"
                                      : which + " (answered by " + o.answer.answeredBy + ")");
    });
}

void SessionLoop::onProxyEvent(const ProxyEvent& e)
{
    static const char* const kinds[] = {"decided",  "failed", "malformed", "closed",     "lookup",
                                        "exchange", "leak",   "model",     "model_limit"};
    nlohmann::json event = {{"kind", activity::kNetwork},
                            {"type", kinds[static_cast<int>(e.kind)]},
                            {"host", e.request.host},
                            {"port", e.request.port},
                            {"protocol", e.request.protocol},
                            {"address", e.request.address},
                            {"connection", e.request.connection}};
    if (e.kind == ProxyEvent::Kind::Decided) {
        event["decision"] = std::string(toString(e.action));
        event["rule"] = e.rule;
        // What decided, for a window to say in its own language ("rule" is the CLI's text).
        if (const int number = decidingRuleNumber(e.rule); number > 0) {
            event["decided_by"] = "rule";
            event["rule_number"] = number;
        } else if (e.rule.starts_with("default")) {
            event["decided_by"] = "default";
        } else if (e.asked) {
            event["decided_by"] = "answer";
        }
        event["asked"] = e.asked;
        if (e.wouldAsk) event["would_ask"] = true;
        if (e.shadowRule)
            event["shadow"] = {{"decision", std::string(toString(e.shadowAction))},
                               {"rule", *e.shadowRule}};
    }
    if (!e.detail.empty()) event["detail"] = e.detail;
    if (!e.request.process.empty()) event["process"] = toJson(e.request.process);
    if (e.request.commandId != 0) event["command_id"] = e.request.commandId;
    if (e.kind == ProxyEvent::Kind::Lookup) {
        // A name the sandbox's resolver answered: no port, no connection.
        for (const char* key : {"port", "address", "connection"})
            event.erase(key);
        event["query_type"] = e.lookupType;
        event["rcode"] = e.lookupRcode;
        event["addresses"] = e.lookupAddresses;
    }
    if (e.kind == ProxyEvent::Kind::Closed) {
        event["bytes_up"] = e.bytesUp;
        event["bytes_down"] = e.bytesDown;
    }
    if (e.kind == ProxyEvent::Kind::Exchange) {
        event["status"] = e.status;
        event["duration_ms"] = e.durationMs;
        if (!e.secrets.empty()) event["secrets"] = e.secrets;
    }
    if (e.kind == ProxyEvent::Kind::Leak) {
        event.erase("type");
        event.erase("detail");
        event["kind"] = activity::kLeak;
        event["secret"] = e.secrets.empty() ? "" : e.secrets.front();
        event["where"] = e.detail;
    }
    if (e.kind == ProxyEvent::Kind::ModelLimit) {
        // As the limits the session's own watch reports (docs/protocol.md, "Limit events").
        event = {{"kind", activity::kLimit},
                 {"limit", e.detail},
                 {"value", e.status},
                 {"unit", e.detail == "model_tokens" ? "tokens" : "requests"},
                 {"action", e.action == RuleAction::Allow ? "allowed" : "denied"},
                 {"rule", e.rule},
                 {"host", e.request.host},
                 {"connection", e.request.connection}};
    }
    if (e.kind == ProxyEvent::Kind::Model && e.usage) {
        event.erase("type");
        event.erase("detail");
        event.erase("address");
        event["kind"] = activity::kModel;
        event.update(toJson(*e.usage));
        event["status"] = e.status;
        event["usage_found"] = e.usage->found;
        event["duration_ms"] = e.durationMs;
    }
    ApprovalEvent queued;
    queued.activity = std::move(event);
    queue(std::move(queued));
}

} // namespace sb
