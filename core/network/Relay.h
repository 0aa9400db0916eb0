// Moving bytes between two non-blocking sockets: buffered bytes first (heads, replies), then
// splice() through a pipe pair per direction so bulk data never enters userspace; half-close
// passes through as it happens. Shared by the proxy's tunnels and the port forwarder.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <sys/epoll.h>

namespace sb::relay {

inline constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();
// What a relayed connection's sockets are registered for, both sides (edge-triggered).
inline constexpr std::uint32_t kSideEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

// One end of a relayed connection. Readiness is tracked by hand (edge-triggered epoll): set by
// events, cleared by EAGAIN.
struct Side {
    int fd = -1;
    bool canRead = true;
    bool canWrite = true;
    bool eof = false;    // read returned 0
    bool shutWr = false; // we sent FIN
    bool wantsIn = true; // EPOLLIN is in its epoll registration (its owner's business)
};

// One direction of a relay: `pending` userspace bytes first, then, when `splicing`, up to
// `limit` bytes moved from the source socket through a pipe pair, never entering userspace.
struct Flow {
    std::string pending;
    std::size_t pendingOff = 0;
    int pipeRead = -1, pipeWrite = -1; // created on first use; closePipe() closes them
    std::size_t inPipe = 0;
    std::size_t pipeCapacity = 0;
    bool splicing = false;
    std::uint64_t limit = kUnlimited;
    std::uint64_t moved = 0; // bytes written to the destination
    bool drained() const { return pendingOff == pending.size() && inPipe == 0; }
    void closePipe();
};

enum class Pump { Idle, Progress, Error };
// Moves what it can of `f` from `src` to `dst` without blocking.
Pump pump(Flow& f, Side& src, Side& dst);

// Reads up to `max` bytes from `side` onto `buffer`: -1 error, 0 nothing (or EOF), 1 read.
int readInto(Side& side, std::string& buffer, std::size_t max);

// Both directions of a tunnel (`aToB` carries a's bytes to b), each side's FIN passed on once
// everything before it was delivered. Done once both halves are closed; Error on a reset or a
// failed write on either side (there is no one to tell: close both).
enum class TunnelStep { Idle, Progress, Done, Error };
TunnelStep stepTunnel(Side& a, Flow& aToB, Side& b, Flow& bToA);

} // namespace sb::relay
