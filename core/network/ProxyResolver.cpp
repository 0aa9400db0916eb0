// Name lookups on worker threads: getaddrinfo blocks, sometimes for seconds, and the event
// loop must not. Workers are detached and share their state, so stopping the proxy never waits
// for a slow DNS server; a late answer lands in a closed mailbox.
#include "network/ProxyInternal.h"

#include <algorithm>
#include <cstring>
#include <netdb.h>
#include <system_error>

namespace sb::proxy {

struct Resolver::State {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::tuple<std::uint64_t, std::uint64_t, std::string>> jobs;
    bool stopping = false;
    Fn resolve;
    std::shared_ptr<Mailbox> mailbox;
};

Result<std::vector<IpAddress>> systemResolve(const std::string& host)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    int rc = getaddrinfo(host.c_str(), nullptr, &hints, &list);
    // A name that does not exist (NotFound: the sandbox's resolver answers NXDOMAIN) is not a
    // resolver that failed (SERVFAIL, which a program retries).
    const bool missing = rc == EAI_NONAME || rc == EAI_NODATA || rc == EAI_ADDRFAMILY;
    if (rc != 0)
        return Error{missing ? ErrorCode::NotFound : ErrorCode::System, 0, gai_strerror(rc)};
    std::vector<IpAddress> out;
    for (auto* i = list; i; i = i->ai_next) {
        sockaddr_storage storage{};
        std::memcpy(&storage, i->ai_addr, std::min<std::size_t>(i->ai_addrlen, sizeof storage));
        auto address = IpAddress::fromSockaddr(storage);
        if (address && std::find(out.begin(), out.end(), *address) == out.end())
            out.push_back(*address);
    }
    freeaddrinfo(list);
    return out;
}

Resolver::Resolver(unsigned threads, Fn fn, std::shared_ptr<Mailbox> mailbox)
    : m_state(std::make_shared<State>())
{
    m_state->resolve = std::move(fn);
    m_state->mailbox = std::move(mailbox);
    try {
        for (unsigned i = 0; i < threads; ++i) {
            std::thread([state = m_state] {
                for (;;) {
                    std::unique_lock lock(state->mutex);
                    state->wake.wait(lock, [&] { return state->stopping || !state->jobs.empty(); });
                    if (state->stopping) return;
                    auto [conn, gen, host] = std::move(state->jobs.front());
                    state->jobs.pop_front();
                    lock.unlock();
                    auto addresses = state->resolve(host);
                    state->mailbox->post(ResolveDone{conn, gen, std::move(addresses)});
                }
            }).detach();
        }
    } catch (const std::system_error&) {
        // Those started end (no destructor will tell them), and the caller hears of it.
        {
            std::lock_guard lock(m_state->mutex);
            m_state->stopping = true;
        }
        m_state->wake.notify_all();
        throw;
    }
}

Resolver::~Resolver()
{
    {
        std::lock_guard lock(m_state->mutex);
        m_state->stopping = true;
        m_state->jobs.clear();
    }
    m_state->wake.notify_all();
}

void Resolver::submit(std::uint64_t conn, std::uint64_t gen, std::string host)
{
    {
        std::lock_guard lock(m_state->mutex);
        m_state->jobs.emplace_back(conn, gen, std::move(host));
    }
    m_state->wake.notify_one();
}

} // namespace sb::proxy
