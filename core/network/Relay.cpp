#include "network/Relay.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sb::relay {
namespace {

// Larger than the default 64 KiB: fewer splice calls per megabyte on a bulk transfer. Falls
// back silently to the default when the per-user pipe budget is spent.
constexpr int kPipeSize = 1024 * 1024;

bool openPipe(Flow& f)
{
    int fds[2];
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return false;
    f.pipeRead = fds[0];
    f.pipeWrite = fds[1];
    fcntl(f.pipeWrite, F_SETPIPE_SZ, kPipeSize);
    int size = fcntl(f.pipeWrite, F_GETPIPE_SZ);
    f.pipeCapacity = size > 0 ? static_cast<std::size_t>(size) : 65536;
    return true;
}

bool wouldBlock(int err)
{
    return err == EAGAIN || err == EWOULDBLOCK;
}

} // namespace

void Flow::closePipe()
{
    if (pipeRead >= 0) ::close(pipeRead);
    if (pipeWrite >= 0) ::close(pipeWrite);
    pipeRead = pipeWrite = -1;
    inPipe = 0;
}

int readInto(Side& side, std::string& buffer, std::size_t max)
{
    if (side.eof || !side.canRead || max == 0) return 0;
    std::size_t old = buffer.size();
    buffer.resize(old + max);
    ssize_t n = recv(side.fd, buffer.data() + old, max, MSG_DONTWAIT);
    buffer.resize(old + (n > 0 ? static_cast<std::size_t>(n) : 0));
    if (n > 0) return 1;
    if (n == 0) {
        side.eof = true;
        return 0;
    }
    if (wouldBlock(errno)) {
        side.canRead = false;
        return 0;
    }
    return -1;
}

Pump pump(Flow& f, Side& src, Side& dst)
{
    bool progress = false;
    while (f.pendingOff < f.pending.size() && dst.canWrite && dst.fd >= 0) {
        ssize_t n = send(dst.fd, f.pending.data() + f.pendingOff, f.pending.size() - f.pendingOff,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            f.pendingOff += static_cast<std::size_t>(n);
            f.moved += static_cast<std::uint64_t>(n);
            progress = true;
        } else if (n < 0 && wouldBlock(errno)) {
            dst.canWrite = false;
        } else {
            return Pump::Error;
        }
    }
    if (f.pendingOff == f.pending.size()) {
        f.pending.clear();
        f.pendingOff = 0;
    } else {
        return progress ? Pump::Progress : Pump::Idle; // order: buffered bytes go first
    }
    if (!f.splicing || src.fd < 0 || dst.fd < 0) return progress ? Pump::Progress : Pump::Idle;
    if (f.pipeRead < 0 && !openPipe(f)) return Pump::Error;
    for (;;) {
        bool moved = false;
        if (!src.eof && src.canRead && f.limit > 0 && f.inPipe < f.pipeCapacity) {
            auto want = std::min<std::uint64_t>(f.pipeCapacity - f.inPipe, f.limit);
            ssize_t n = splice(src.fd, nullptr, f.pipeWrite, nullptr,
                               static_cast<std::size_t>(want), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                f.inPipe += static_cast<std::size_t>(n);
                if (f.limit != kUnlimited) f.limit -= static_cast<std::uint64_t>(n);
                moved = true;
            } else if (n == 0) {
                src.eof = true;
                moved = true;
            } else if (wouldBlock(errno)) {
                // With bytes in the pipe, EAGAIN may mean the pipe's slots are full, not that
                // the socket is empty; only an empty pipe proves the socket has nothing.
                if (f.inPipe == 0) src.canRead = false;
            } else {
                return Pump::Error;
            }
        }
        if (f.inPipe > 0 && dst.canWrite) {
            ssize_t n = splice(f.pipeRead, nullptr, dst.fd, nullptr, f.inPipe,
                               SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                f.inPipe -= static_cast<std::size_t>(n);
                f.moved += static_cast<std::uint64_t>(n);
                moved = true;
            } else if (n < 0 && wouldBlock(errno)) {
                dst.canWrite = false;
            } else {
                return Pump::Error;
            }
        }
        if (!moved) break;
        progress = true;
    }
    return progress ? Pump::Progress : Pump::Idle;
}

TunnelStep stepTunnel(Side& a, Flow& aToB, Side& b, Flow& bToA)
{
    const Pump there = pump(aToB, a, b);
    const Pump back = pump(bToA, b, a);
    if (there == Pump::Error || back == Pump::Error) return TunnelStep::Error;
    if (a.eof && aToB.drained() && !b.shutWr) {
        ::shutdown(b.fd, SHUT_WR);
        b.shutWr = true;
    }
    if (b.eof && bToA.drained() && !a.shutWr) {
        ::shutdown(a.fd, SHUT_WR);
        a.shutWr = true;
    }
    if (a.shutWr && b.shutWr) return TunnelStep::Done;
    return there == Pump::Progress || back == Pump::Progress ? TunnelStep::Progress
                                                             : TunnelStep::Idle;
}

} // namespace sb::relay
