// ControlServer's output side: per-client queues, the shared ring buffer of terminal output,
// and non-blocking vectored writes.
#include "control/ControlServer.h"
#include "control/ControlServerClient.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

using nlohmann::json;

namespace sb {

using proto::MsgType;

namespace {

constexpr std::size_t kOutputFrame = 256 * 1024;
constexpr std::size_t kMaxOutputFramesPerWrite = 16;
constexpr std::size_t kMaxControlFramesPerWrite = 32;

long long nowMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

} // namespace

void ControlServer::sendError(Client& c, const Error& error, bool fatal, std::string_view ref)
{
    sendControl(c, proto::encodeJson(MsgType::Error, proto::errorBody(error, fatal, ref)));
}

void ControlServer::sendControl(Client& c, std::string frame)
{
    if (c.dead || c.writeClosed) return;
    // What still waits shows a client that does not read, not the size of this message: one
    // file reply (8 MiB of data in base64) is larger than the limit by itself.
    if (c.controlBytes > m_options.maxControlQueueBytes) {
        dropClient(c, "client " + c.name + " is not reading: " + std::to_string(c.controlBytes) +
                          " bytes of messages unsent");
        return;
    }
    c.controlBytes += frame.size();
    c.control.push_back(std::move(frame));
    if (!c.blocked) flush(c);
}

void ControlServer::dropClient(Client& c, const std::string& reason)
{
    if (c.dead) return;
    if (!reason.empty())
        m_options.log("closing client " + c.name + " (pid " + std::to_string(c.pid) +
                      "): " + reason);
    c.dead = true; // closed in reap(), so an fd number is not reused mid-dispatch
    m_backend.clientGone(c.id);
}

void ControlServer::reap()
{
    auto dead = std::stable_partition(m_clients.begin(), m_clients.end(),
                                      [](const auto& c) { return !c->dead; });
    for (auto it = dead; it != m_clients.end(); ++it) {
        m_byFd.erase((*it)->fd);
        ::close((*it)->fd);
    }
    m_clients.erase(dead, m_clients.end());
}

void ControlServer::broadcast(const std::string& frame, bool subscribedOnly)
{
    for (auto& c : m_clients)
        if (c->greeted && (!subscribedOnly || c->subscribed)) sendControl(*c, frame);
}

void ControlServer::flush(Client& c)
{
    struct Segment {
        enum Kind { Inflight, Control, Output, Exit } kind;
        std::size_t size;    // the whole frame (or the rest of the in-flight one)
        std::uint64_t seq;   // Output
        std::size_t dataLen; // Output
    };
    constexpr std::size_t kMaxIov =
        1 + kMaxControlFramesPerWrite + 2 * kMaxOutputFramesPerWrite + 1;
    while (!c.dead && !c.writeClosed) {
        if (c.exitSent && c.inflight.empty()) {
            dropClient(c, ""); // it has everything, the exit last
            return;
        }
        iovec iov[kMaxIov];
        Segment segs[kMaxIov];
        std::array<char, proto::kBytesHeaderBytes> headers[kMaxOutputFramesPerWrite];
        std::size_t niov = 0, nseg = 0, nheaders = 0;
        auto add = [&](const void* data, std::size_t len) {
            iov[niov++] = {const_cast<void*>(data), len};
        };
        if (!c.inflight.empty()) {
            add(c.inflight.data() + c.inflightOffset, c.inflight.size() - c.inflightOffset);
            segs[nseg++] = {Segment::Inflight, c.inflight.size() - c.inflightOffset, 0, 0};
        }
        // Control messages first: they are small, and a "lagged" or "subscribed" notice must
        // precede the output it describes.
        std::size_t queued = 0;
        for (const std::string& frame : c.control) {
            if (queued == kMaxControlFramesPerWrite) break;
            add(frame.data(), frame.size());
            segs[nseg++] = {Segment::Control, frame.size(), 0, 0};
            ++queued;
        }
        bool allControl = queued == c.control.size();
        std::uint64_t seq = c.cursor;
        if (allControl && c.subscribed) {
            const std::size_t size = m_ring.size();
            while (seq < m_nextSeq && nheaders < kMaxOutputFramesPerWrite) {
                std::size_t pos = seq % size;
                std::size_t len =
                    std::min<std::uint64_t>({m_nextSeq - seq, kOutputFrame, size - pos});
                headers[nheaders] = proto::bytesHeader(MsgType::Output, seq, len);
                add(headers[nheaders].data(), headers[nheaders].size());
                add(m_ring.data() + pos, len);
                segs[nseg++] = {Segment::Output, proto::kBytesHeaderBytes + len, seq, len};
                ++nheaders;
                seq += len;
            }
        }
        bool outputDone = !c.subscribed || seq == m_nextSeq;
        if (allControl && outputDone && c.exitQueued && !c.exitSent) {
            add(m_exitFrame.data(), m_exitFrame.size());
            segs[nseg++] = {Segment::Exit, m_exitFrame.size(), 0, 0};
        }
        if (niov == 0) return;

        msghdr mh{};
        mh.msg_iov = iov;
        mh.msg_iovlen = niov;
        ssize_t n = ::sendmsg(c.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                c.blocked = true;
                return;
            }
            if ((errno == EPIPE || errno == ECONNRESET) && !c.exitQueued) {
                // The peer hung up; what it sent before (keys typed, then Ctrl-D of a pipe) is
                // still to be read, so stop writing but keep reading until its end of file.
                c.writeClosed = true;
                c.control.clear();
                c.controlBytes = 0;
                c.inflight.clear();
                c.subscribed = false;
                return;
            }
            // A peer that hangs up after it heard the exit is done, not broken: no message.
            bool hungUp = errno == EPIPE || errno == ECONNRESET;
            dropClient(c, hungUp ? std::string() : std::string("write: ") + std::strerror(errno));
            return;
        }
        auto left = static_cast<std::size_t>(n);
        bool cut = false;
        for (std::size_t i = 0; i < nseg && !cut; ++i) {
            const Segment& s = segs[i];
            cut = left < s.size;
            std::size_t sent = std::min(left, s.size);
            left -= sent;
            switch (s.kind) {
            case Segment::Inflight:
                c.inflightOffset += sent;
                if (!cut) c.inflight.clear(), c.inflightOffset = 0;
                break;
            case Segment::Control:
                if (cut) c.inflight = c.control.front().substr(sent), c.inflightOffset = 0;
                c.controlBytes -= c.control.front().size();
                c.control.pop_front();
                break;
            case Segment::Output:
                // A cut frame's rest is copied out: the ring may overwrite it before the
                // socket drains, and a frame cannot be abandoned halfway.
                if (cut) {
                    std::string rest = encodeBytesFromRing(s.seq, s.dataLen);
                    c.inflight = rest.substr(sent);
                    c.inflightOffset = 0;
                }
                c.cursor = s.seq + s.dataLen;
                break;
            case Segment::Exit:
                if (cut) c.inflight = m_exitFrame.substr(sent), c.inflightOffset = 0;
                c.exitSent = true;
                break;
            }
        }
        if (cut) {
            c.blocked = true; // the socket buffer is full; POLLOUT says when to go on
            return;
        }
    }
}

std::string ControlServer::encodeBytesFromRing(std::uint64_t seq, std::size_t len) const
{
    auto header = proto::bytesHeader(MsgType::Output, seq, len);
    std::string out(header.data(), header.size());
    std::size_t pos = seq % m_ring.size();
    out.append(m_ring.data() + pos, len); // frames never span the ring's end
    return out;
}

void ControlServer::publishOutput(std::string_view bytes)
{
    if (bytes.empty()) return;
    const std::size_t size = m_ring.size();
    if (bytes.size() > size) {
        m_nextSeq += bytes.size() - size;
        bytes.remove_prefix(bytes.size() - size);
    }
    std::size_t pos = m_nextSeq % size;
    std::size_t first = std::min(bytes.size(), size - pos);
    std::memcpy(m_ring.data() + pos, bytes.data(), first);
    std::memcpy(m_ring.data(), bytes.data() + first, bytes.size() - first);
    m_nextSeq += bytes.size();

    std::uint64_t oldest = oldestSeq();
    for (auto& c : m_clients) {
        if (c->dead || !c->subscribed) continue;
        if (c->cursor < oldest) {
            // Overwritten before this client read it: skip ahead instead of holding the agent.
            sendControl(*c,
                        proto::encodeJson(MsgType::Lagged, {{"resume_seq", oldest},
                                                            {"lost_bytes", oldest - c->cursor}}));
            c->cursor = oldest;
        }
        if (!c->blocked) flush(*c);
    }
}

void ControlServer::publishEvent(const json& event)
{
    // Most sessions have no client attached: then there is nothing to encode.
    if (subscriberCount() == 0) return;
    broadcast(proto::encodeJson(MsgType::Event, event), true);
}

void ControlServer::publishApprovalRequest(const ApprovalRequest& request)
{
    broadcast(proto::encodeJson(MsgType::ApprovalRequest, proto::toJson(request)), false);
}

void ControlServer::publishApprovalOutcome(const ApprovalOutcome& outcome)
{
    broadcast(proto::encodeJson(MsgType::ApprovalOutcome, proto::toJson(outcome)), false);
}

void ControlServer::publishExit(int status)
{
    m_exited = true;
    m_exitStatus = status;
    m_exitFrame = proto::encodeJson(MsgType::Exit, {{"status", status}});
    for (auto& c : m_clients) {
        if (c->dead || !c->greeted) continue;
        c->exitQueued = true;
        if (!c->blocked) flush(*c);
    }
}

void ControlServer::drain(int timeoutMs)
{
    long long deadline = nowMs() + timeoutMs;
    std::vector<pollfd> fds;
    for (;;) {
        reap();
        long long left = deadline - nowMs();
        if (m_clients.empty() || flushed() || left <= 0) return;
        fds.clear();
        fillPollFds(fds);
        fds.erase(fds.begin()); // the listener: no new clients while ending
        if (::poll(fds.data(), fds.size(), static_cast<int>(left)) < 0 && errno != EINTR) return;
        handle(fds);
    }
}
} // namespace sb
