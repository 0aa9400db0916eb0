// Messages between the supervisor, the sandbox's init and its exec helper: one datagram of text
// on a SOCK_SEQPACKET socket, with file descriptors beside it (SCM_RIGHTS).
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"

#include <string>
#include <vector>

namespace sb {

// At most this many descriptors travel with one message.
constexpr std::size_t kMaxChannelFds = 8;
// The largest message a receiver takes (the exec helper's requests; init's are a few bytes).
constexpr std::size_t kMaxChannelMessage = 256 * 1024;

Status sendChannelMessage(int fd, const std::string& text, const std::vector<int>& fds = {});

struct ChannelMessage {
    std::string text;          // empty: the peer closed (or sent an empty message)
    std::vector<UniqueFd> fds; // closed with the message unless taken (release)
    bool truncated = false;    // longer than the buffer: refused whole
};
// Blocks until a message arrives (the socket may be non-blocking: then EAGAIN gives nothing).
ChannelMessage receiveChannelMessage(int fd, std::size_t maxBytes = 4096);

} // namespace sb
