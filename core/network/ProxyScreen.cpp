// Calls the sandbox's syscall filter stopped before they open a connection or send a datagram
// to an address outside the sandbox (Proxy::screen). Decided here as their redirected
// connection would be, so that connect() itself says what the policy says: a denied
// connection fails at once with ECONNREFUSED, an asked one waits in connect() for the answer.
// What goes on is still decided again when its connection arrives: the firewall and this proxy
// are the boundary, the screen only gives the call its meaning (a program could change the
// address in its memory after the filter's reader looked at it).
#include "network/ProxyInternal.h"

#include <cerrno>

namespace sb {

using namespace proxy;

namespace {

// How long a call let go on waits for its connection: it arrives within a round trip over the
// sandbox's loopback unless the call failed for a reason of its own.
constexpr auto kScreenedFor = std::chrono::seconds(10);
constexpr std::size_t kScreenedMax = 4096;
// One refused-datagram event per program and destination in this time.
constexpr auto kRefusalQuiet = std::chrono::seconds(5);

std::string destinationKey(const IpAddress& address, std::uint16_t port)
{
    return address.toString() + " " + std::to_string(port);
}

} // namespace

void Proxy::screen(OutboundAttempt attempt, std::function<void(int error)> answer)
{
    m_impl->m_mailbox->post(ScreenCall{std::move(attempt), std::move(answer)});
}

void Proxy::Impl::onScreen(OutboundAttempt attempt, std::function<void(int)> answer)
{
    ConnectionRequest req;
    auto name = m_dns.nameFor(attempt.address);
    req.host = name ? *name : attempt.address.toString();
    req.port = attempt.port;
    req.protocol = attempt.transport;
    req.address = attempt.address.toString();
    if (m_hooks.processOf) req.process = m_hooks.processOf(attempt.pid);
    req.commandId = attempt.commandId;

    if (attempt.transport != "tcp") {
        // UDP, ICMP and the rest never leave the sandbox; its name lookups go to its own
        // resolver, on its loopback, and never come here.
        const auto now = proxy::Clock::now();
        auto& last = m_refusedRecently[std::to_string(attempt.pid) + " " + attempt.transport + " " +
                                       destinationKey(attempt.address, attempt.port)];
        if (last == proxy::Clock::time_point{} || now - last > kRefusalQuiet) {
            ProxyEvent e;
            e.kind = ProxyEvent::Kind::Decided;
            e.request = std::move(req);
            e.action = RuleAction::Deny;
            e.rule = "built-in: only TCP leaves the sandbox (" + attempt.transport +
                     " is refused; name lookups use the sandbox's resolver)";
            emit(std::move(e));
        }
        last = now;
        answer(EPERM);
        return;
    }

    auto current = rules();
    auto decision = current->decideHost(req.host, req.port, m_ownAddresses, req.process);
    if (!(decision.action == RuleAction::Deny && decision.final))
        decision = current->decideAddress(req.host, attempt.address, req.port, m_ownAddresses,
                                          req.process);
    const auto letGo = [&](std::optional<std::string> approvedRule) {
        if (m_screenedCount >= kScreenedMax) sweepScreened(proxy::Clock::now());
        if (m_screenedCount >= kScreenedMax) { // thousands of calls whose connections never came
            m_screened.clear();
            m_screenedCount = 0;
        }
        m_screened[destinationKey(attempt.address, attempt.port)].push_back(
            {attempt.pid, req.process, attempt.commandId, std::move(approvedRule),
             proxy::Clock::now() + kScreenedFor});
        ++m_screenedCount;
        answer(0);
    };
    // Observing: an ask goes on like an allow; its connection is decided (and recorded as
    // what would have been asked) when it arrives.
    if (decision.action == RuleAction::Allow ||
        (decision.action == RuleAction::Ask && m_options.observe)) {
        letGo(std::nullopt); // decided and recorded when its connection arrives
        return;
    }
    if (decision.action == RuleAction::Ask && m_hooks.ask) {
        const std::uint64_t id = m_nextScreen++;
        m_screens[id] = {req, attempt.address, attempt.pid, std::move(answer)};
        std::weak_ptr<Mailbox> mailbox = m_mailbox;
        auto once = std::make_shared<std::atomic<bool>>(false);
        m_hooks.ask(req, decision.rule, [mailbox, once, id](bool allow, std::string rule) {
            if (once->exchange(true)) return;
            if (auto m = mailbox.lock()) m->post(ScreenAsked{id, allow, std::move(rule)});
        });
        return;
    }
    ProxyEvent e;
    e.kind = ProxyEvent::Kind::Decided;
    e.request = std::move(req);
    e.action = RuleAction::Deny;
    e.rule = decision.action == RuleAction::Ask ? decision.rule + "; no one to ask" : decision.rule;
    addShadow(e);
    emit(std::move(e));
    answer(ECONNREFUSED);
}

void Proxy::Impl::onScreenAsked(std::uint64_t id, bool allow, std::string rule)
{
    auto it = m_screens.find(id);
    if (it == m_screens.end()) return;
    PendingScreen pending = std::move(it->second);
    m_screens.erase(it);
    if (rule.empty()) rule = allow ? "allowed when asked" : "denied when asked";
    if (allow) {
        // Recorded with this answer when the connection arrives.
        m_screened[destinationKey(pending.address, pending.request.port)].push_back(
            {pending.pid, std::move(pending.request.process), pending.request.commandId,
             std::move(rule), proxy::Clock::now() + kScreenedFor});
        ++m_screenedCount;
        pending.answer(0);
        return;
    }
    ProxyEvent e;
    e.kind = ProxyEvent::Kind::Decided;
    e.request = std::move(pending.request);
    e.action = RuleAction::Deny;
    e.rule = std::move(rule);
    e.asked = true;
    addShadow(e);
    emit(std::move(e));
    pending.answer(ECONNREFUSED);
}

bool Proxy::Impl::takeScreened(Conn& c, const IpAddress& address, std::uint16_t port)
{
    auto it = m_screened.find(destinationKey(address, port));
    if (it == m_screened.end()) return false;
    auto& waiting = it->second;
    // Several processes' calls to one destination at once: which connection is whose is told
    // by the socket's holder, as for a program that uses the proxy.
    std::size_t taken = 0;
    bool onePid = true;
    for (const Screened& s : waiting)
        onePid = onePid && s.pid == waiting.front().pid;
    if (!onePid) {
        if (!c.identified && m_hooks.identify) {
            c.process = m_hooks.identify(c.agentLocal, c.agentRemote, false);
            c.identified = true;
        }
        taken = waiting.size();
        for (std::size_t k = 0; k < waiting.size(); ++k)
            if (!c.process.empty() && !waiting[k].process.empty() &&
                waiting[k].process.front().pid == c.process.front().pid) {
                taken = k;
                break;
            }
        if (taken == waiting.size()) return false;
    }
    Screened s = std::move(waiting[taken]);
    waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(taken));
    --m_screenedCount;
    if (waiting.empty()) m_screened.erase(it);
    if (!c.identified) {
        c.process = std::move(s.process);
        c.identified = true;
    }
    c.approvedAtConnect = std::move(s.approvedRule);
    c.commandId = s.commandId;
    return true;
}

void Proxy::Impl::sweepScreened(proxy::Clock::time_point now)
{
    for (auto it = m_screened.begin(); it != m_screened.end();) {
        auto& waiting = it->second;
        while (!waiting.empty() && waiting.front().until <= now) {
            waiting.pop_front();
            --m_screenedCount;
        }
        it = waiting.empty() ? m_screened.erase(it) : std::next(it);
    }
    for (auto it = m_refusedRecently.begin(); it != m_refusedRecently.end();)
        it = now - it->second > kRefusalQuiet ? m_refusedRecently.erase(it) : std::next(it);
}

} // namespace sb
