#include "sandbox/SandboxChannel.h"

#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace sb {

Status sendChannelMessage(int fd, const std::string& text, const std::vector<int>& fds)
{
    if (fds.size() > kMaxChannelFds)
        return Error{ErrorCode::Internal, 0,
                     "sandbox channel: " + std::to_string(fds.size()) +
                         " descriptors for one "
                         "message (at most " +
                         std::to_string(kMaxChannelFds) + ")"};
    iovec iov{const_cast<char*>(text.data()), text.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxChannelFds)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (!fds.empty()) {
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t n;
    do {
        n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return sysError("sandbox channel");
    return {};
}

ChannelMessage receiveChannelMessage(int fd, std::size_t maxBytes)
{
    std::string buf(maxBytes, '\0');
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxChannelFds)] = {};
    iovec iov{buf.data(), buf.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do {
        n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    ChannelMessage out;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int received;
            std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            out.fds.emplace_back(received);
        }
    }
    if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
        out.fds.clear();
        out.truncated = true;
        return out;
    }
    if (n > 0) out.text.assign(buf.data(), static_cast<std::size_t>(n));
    return out;
}

} // namespace sb
