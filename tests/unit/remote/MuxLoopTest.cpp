// Two ends of a dial stream (core/remote/MuxLoop) over a socket pair, each on its own thread:
// channels carry bytes both ways in order, many at once, more than the buffers hold, and the
// end of one direction reaches the other side as an end of file.
#include "remote/MuxLoop.h"

#include "base/UniqueFd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <thread>

using namespace sb;
using namespace sb::remote;

namespace {

void nonBlocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

std::string pattern(std::size_t size, unsigned seed)
{
    std::string out(size, '\0');
    unsigned x = seed * 2654435761u + 1;
    for (char& c : out) {
        x = x * 1103515245u + 12345u;
        c = static_cast<char>(x >> 16);
    }
    return out;
}

void writeAll(int fd, const std::string& data)
{
    std::size_t at = 0;
    while (at < data.size()) {
        const ssize_t n = ::write(fd, data.data() + at, data.size() - at);
        ASSERT_GT(n, 0) << strerror(errno);
        at += static_cast<std::size_t>(n);
    }
}

std::string readToEnd(int fd)
{
    std::string out;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) return out;
        out.append(buf, static_cast<std::size_t>(n));
    }
}

struct Ends {
    SocketPair stream = *makeSocketPair(SOCK_STREAM | SOCK_CLOEXEC);
    MuxLoop a{stream.one.get(), stream.one.get()};
    MuxLoop b{stream.other.get(), stream.other.get()};
    Ends()
    {
        nonBlocking(stream.one.get());
        nonBlocking(stream.other.get());
    }
    // Channel `id` on both ends; the test's sockets for A's and B's side.
    std::pair<UniqueFd, UniqueFd> channel(std::uint32_t id)
    {
        auto pa = *makeSocketPair(SOCK_STREAM | SOCK_CLOEXEC);
        auto pb = *makeSocketPair(SOCK_STREAM | SOCK_CLOEXEC);
        nonBlocking(pa.one.get());
        nonBlocking(pb.one.get());
        a.addSocketChannel(id, std::move(pa.one));
        b.addSocketChannel(id, std::move(pb.one));
        return {std::move(pa.other), std::move(pb.other)};
    }
};

} // namespace

TEST(MuxLoop, ManyChannelsCarryMoreThanTheBuffersBothWaysAndTheirEnds)
{
    Ends ends;
    constexpr int kChannels = 20;
    const std::size_t size = 3 * MuxLoop::kHighWater / 2;
    std::vector<std::pair<UniqueFd, UniqueFd>> sockets;
    for (int i = 1; i <= kChannels; ++i)
        sockets.push_back(ends.channel(static_cast<std::uint32_t>(i)));
    std::thread ta([&] { EXPECT_FALSE(ends.a.run()); });
    std::thread tb([&] { EXPECT_FALSE(ends.b.run()); });
    std::vector<std::thread> workers;
    std::vector<std::string> atB(kChannels), atA(kChannels);
    for (int i = 0; i < kChannels; ++i) {
        const unsigned seed = static_cast<unsigned>(i);
        workers.emplace_back([&, i, seed] {
            writeAll(sockets[i].first.get(), pattern(i == 0 ? size : 1000, seed));
            ::shutdown(sockets[i].first.get(), SHUT_WR); // A's side is done sending
        });
        workers.emplace_back([&, i] { atB[i] = readToEnd(sockets[i].second.get()); });
        workers.emplace_back([&, i, seed] {
            writeAll(sockets[i].second.get(), pattern(i == 1 ? size : 500, seed + 100));
            ::shutdown(sockets[i].second.get(), SHUT_WR);
        });
        workers.emplace_back([&, i] { atA[i] = readToEnd(sockets[i].first.get()); });
    }
    for (auto& w : workers)
        w.join();
    for (int i = 0; i < kChannels; ++i) {
        const unsigned seed = static_cast<unsigned>(i);
        EXPECT_TRUE(atB[i] == pattern(i == 0 ? size : 1000, seed)) << "channel " << i + 1;
        EXPECT_TRUE(atA[i] == pattern(i == 1 ? size : 500, seed + 100)) << "channel " << i + 1;
    }
    ends.a.stop();
    ends.b.stop();
    ta.join();
    tb.join();
}

TEST(MuxLoop, ControlMessagesArriveInOrderWithTheBytesAround)
{
    Ends ends;
    auto [atA, atB] = ends.channel(5);
    std::vector<std::string> ops;
    ends.b.onControl = [&](const nlohmann::json& m) {
        ops.push_back(m.value("op", ""));
        if (ops.size() == 2) ends.b.stop();
    };
    std::thread tb([&] { EXPECT_FALSE(ends.b.run()); });
    ends.a.sendControl({{"op", "first"}});
    ends.a.sendControl({{"op", "second"}});
    ends.a.stop();
    EXPECT_FALSE(ends.a.run());
    tb.join();
    EXPECT_EQ(ops, (std::vector<std::string>{"first", "second"}));
}

TEST(MuxLoop, TheStreamsEndEndsTheLoopAndClosesItsChannels)
{
    Ends ends;
    auto [atA, atB] = ends.channel(1);
    std::thread tb([&] { EXPECT_FALSE(ends.b.run()); });
    ends.stream.one.reset(); // the other end (ssh) went away
    tb.join();
    // B's loop is over; dropping its channel closes it, and its reader sees the end.
    ends.b.dropChannel(1);
    char c;
    EXPECT_EQ(::read(atB.get(), &c, 1), 0);
}
