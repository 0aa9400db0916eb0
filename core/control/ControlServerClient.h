// ControlServer's per-client state, shared by its two halves: ControlServer.cpp (accepting,
// reading, dispatching) and ControlServerOutput.cpp (queues, the ring buffer, writing).
#pragma once

#include "control/ControlServer.h"
#include "control/Protocol.h"

#include <deque>
#include <string>
#include <sys/types.h>

namespace sb {

struct ControlServer::Client {
    std::uint64_t id = 0;      // unique for the server's life: how the backend names the client
    std::uint32_t version = 1; // negotiated in hello
    int fd = -1;
    pid_t pid = 0;
    uid_t uid = 0;
    std::string name = "?";
    proto::Role role = proto::Role::Viewer;
    bool greeted = false;
    bool subscribed = false;
    std::uint64_t cursor = 0; // the next output byte this client gets
    proto::FrameDecoder decoder;
    std::deque<std::string> control; // whole frames, sent before output
    std::size_t controlBytes = 0;
    std::string inflight; // the unsent rest of a frame a write cut short
    std::size_t inflightOffset = 0;
    bool blocked = false; // the socket buffer is full: wait for POLLOUT
    bool exitQueued = false, exitSent = false;
    bool writeClosed = false; // the peer stopped reading; its input is still served
    bool dead = false;
};

} // namespace sb
