#include "remote/MuxLoop.h"

#include <cerrno>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sb::remote {

MuxLoop::MuxLoop(int in, int out)
    : m_in(in), m_out(out), m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
}

MuxLoop::~MuxLoop() = default;

void MuxLoop::addSocketChannel(std::uint32_t channel, UniqueFd socket)
{
    Channel c;
    c.in = c.out = socket.get();
    c.socket = true;
    c.inOwned = std::move(socket);
    m_channels[channel] = std::move(c);
}

void MuxLoop::addChannel(std::uint32_t channel, UniqueFd in, UniqueFd out)
{
    Channel c;
    c.in = in.get();
    c.out = out.get();
    c.inOwned = std::move(in);
    c.outOwned = std::move(out);
    m_channels[channel] = std::move(c);
}

int MuxLoop::channelOut(std::uint32_t channel) const
{
    auto it = m_channels.find(channel);
    return it == m_channels.end() ? -1 : it->second.out;
}

void MuxLoop::queue(std::uint32_t channel, std::string_view payload)
{
    if (m_outAt > 0 && m_outAt >= m_outBuf.size() / 2) {
        m_outBuf.erase(0, m_outAt);
        m_outAt = 0;
    }
    appendEnvelope(m_outBuf, channel, payload);
}

void MuxLoop::sendControl(const nlohmann::json& message)
{
    queue(kControlChannel, message.dump());
}

void MuxLoop::watch(int fd, std::function<void()> onReadable)
{
    m_watches[fd] = std::move(onReadable);
}

void MuxLoop::unwatch(int fd)
{
    m_watches.erase(fd);
}

void MuxLoop::post(std::function<void()> task)
{
    {
        std::lock_guard lock(m_mutex);
        m_posted.push_back(std::move(task));
    }
    const std::uint64_t one = 1;
    (void)!::write(m_wake.get(), &one, sizeof one);
}

void MuxLoop::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    const std::uint64_t one = 1;
    (void)!::write(m_wake.get(), &one, sizeof one);
}

void MuxLoop::runPosted()
{
    std::uint64_t count = 0;
    (void)!::read(m_wake.get(), &count, sizeof count);
    for (;;) {
        std::function<void()> task;
        {
            std::lock_guard lock(m_mutex);
            if (m_posted.empty()) return;
            task = std::move(m_posted.front());
            m_posted.pop_front();
        }
        task();
    }
}

std::size_t MuxLoop::pendingLocal() const
{
    std::size_t total = 0;
    for (const auto& [id, c] : m_channels)
        total += c.pending.size() - c.pendingAt;
    return total;
}

void MuxLoop::endWriting(Channel& channel)
{
    if (channel.out < 0) return;
    if (channel.socket)
        ::shutdown(channel.out, SHUT_WR);
    else
        channel.outOwned.reset();
    channel.out = -1;
    channel.pending.clear();
    channel.pendingAt = 0;
}

void MuxLoop::writeChannel(Channel& channel)
{
    while (channel.out >= 0 && channel.pendingAt < channel.pending.size()) {
        const ssize_t n = channel.socket
                              ? ::send(channel.out, channel.pending.data() + channel.pendingAt,
                                       channel.pending.size() - channel.pendingAt, MSG_NOSIGNAL)
                              : ::write(channel.out, channel.pending.data() + channel.pendingAt,
                                        channel.pending.size() - channel.pendingAt);
        if (n > 0) {
            channel.pendingAt += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        endWriting(channel); // the reader went away: what else arrives for it is dropped
        return;
    }
    channel.pending.clear();
    channel.pendingAt = 0;
    if (channel.peerEnded) endWriting(channel);
}

void MuxLoop::readChannel(std::uint32_t id, Channel& channel)
{
    char buf[kReadChunk];
    const ssize_t n = ::read(channel.in, buf, sizeof buf);
    if (n > 0) {
        queue(id, std::string_view(buf, static_cast<std::size_t>(n)));
        return;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // The end of what this side sends (EOF, or EIO from a terminal whose program exited).
    queue(id, {});
    if (channel.socket) {
        ::shutdown(channel.in, SHUT_RD);
        channel.in = -1;
        if (channel.out < 0) channel.inOwned.reset();
    } else {
        channel.inOwned.reset();
        channel.in = -1;
    }
}

void MuxLoop::finishChannel(std::uint32_t id)
{
    auto it = m_channels.find(id);
    if (it == m_channels.end()) return;
    Channel& channel = it->second;
    while (channel.in >= 0) {
        const int before = channel.in;
        pollfd p{channel.in, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0) break;
        readChannel(id, channel);
        if (channel.in == before && m_outBuf.size() - m_outAt > kHighWater) break;
    }
    if (channel.in >= 0) queue(id, {});
    m_channels.erase(it);
}

void MuxLoop::deliver(Envelope& envelope)
{
    if (envelope.channel == kControlChannel) {
        auto message = parseControl(envelope.payload);
        // A message of the right shape with a field of the wrong type is dropped, not fatal.
        if (message && onControl) try {
                onControl(*message);
            } catch (const nlohmann::json::exception&) {
            }
        return;
    }
    auto it = m_channels.find(envelope.channel);
    if (it == m_channels.end()) return; // a channel this side has dropped already
    Channel& channel = it->second;
    if (envelope.payload.empty()) {
        channel.peerEnded = true;
    } else if (channel.out >= 0) {
        if (channel.pendingAt == channel.pending.size()) {
            channel.pending = std::move(envelope.payload);
            channel.pendingAt = 0;
        } else {
            channel.pending.append(envelope.payload);
        }
    }
    writeChannel(channel);
}

Status MuxLoop::readStream()
{
    char buf[kReadChunk];
    const ssize_t n = ::read(m_in, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return {};
    if (n < 0) return sysError("read the dial stream");
    if (n == 0) return Error{ErrorCode::NotFound, 0, "the dial stream ended"};
    m_decoder.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    Envelope envelope;
    for (;;) {
        auto got = m_decoder.next(envelope);
        if (!got) return got.error();
        if (!*got) return {};
        deliver(envelope);
    }
}

Status MuxLoop::writeStream()
{
    while (m_outAt < m_outBuf.size()) {
        const ssize_t n = ::write(m_out, m_outBuf.data() + m_outAt, m_outBuf.size() - m_outAt);
        if (n > 0) {
            m_outAt += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {};
        return sysError("write the dial stream");
    }
    m_outBuf.clear();
    m_outAt = 0;
    return {};
}

Status MuxLoop::run()
{
    Status status = pump();
    // With the stream gone, every channel's local end learns it: a client of a session sees
    // its connection closed, a relayed command's pipes close.
    m_channels.clear();
    return status;
}

Status MuxLoop::pump()
{
    enum class Kind { Wake, StreamIn, StreamOut, ChannelIn, ChannelOut, Watch };
    struct Slot {
        Kind kind;
        std::uint32_t channel = 0;
        int fd = -1;
    };
    std::vector<pollfd> fds;
    std::vector<Slot> slots;
    for (;;) {
        if (auto e = writeStream()) return e;
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping && m_outBuf.empty()) return {};
        }
        for (auto it = m_channels.begin(); it != m_channels.end();) {
            const Channel& c = it->second;
            const bool drained = c.pendingAt == c.pending.size();
            if (c.in < 0 && (c.out < 0 || (c.peerEnded && drained)))
                it = m_channels.erase(it);
            else
                ++it;
        }
        fds.clear();
        slots.clear();
        auto add = [&](int fd, short events, Slot slot) {
            fds.push_back({fd, events, 0});
            slots.push_back(slot);
        };
        add(m_wake.get(), POLLIN, {Kind::Wake});
        const bool streamRoom = m_outBuf.size() - m_outAt < kHighWater;
        if (pendingLocal() < kHighWater) add(m_in, POLLIN, {Kind::StreamIn});
        if (m_outAt < m_outBuf.size()) add(m_out, POLLOUT, {Kind::StreamOut});
        for (const auto& [id, c] : m_channels) {
            if (c.in >= 0 && streamRoom) add(c.in, POLLIN, {Kind::ChannelIn, id});
            if (c.out >= 0 && c.pendingAt < c.pending.size())
                add(c.out, POLLOUT, {Kind::ChannelOut, id});
        }
        for (const auto& [fd, callback] : m_watches)
            add(fd, POLLIN, {Kind::Watch, 0, fd});
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) continue;
            return sysError("poll the dial stream");
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].revents == 0) continue;
            const Slot& slot = slots[i];
            switch (slot.kind) {
            case Kind::Wake:
                runPosted();
                break;
            case Kind::StreamIn:
                if (auto e = readStream()) {
                    if (e->code == ErrorCode::NotFound) return {}; // the other end is gone
                    return e;
                }
                break;
            case Kind::StreamOut:
                if (fds[i].revents & (POLLERR | POLLHUP) && !(fds[i].revents & POLLOUT))
                    return Error{ErrorCode::NotFound, 0, "the dial stream was closed"};
                break; // written at the top
            case Kind::ChannelIn:
                if (auto it = m_channels.find(slot.channel);
                    it != m_channels.end() && it->second.in == fds[i].fd)
                    readChannel(slot.channel, it->second);
                break;
            case Kind::ChannelOut:
                if (auto it = m_channels.find(slot.channel);
                    it != m_channels.end() && it->second.out == fds[i].fd)
                    writeChannel(it->second);
                break;
            case Kind::Watch:
                if (auto it = m_watches.find(slot.fd); it != m_watches.end()) {
                    auto callback = it->second; // it may unwatch itself
                    callback();
                }
                break;
            }
        }
    }
}

} // namespace sb::remote
