// The pump of a dial stream (remote/Envelope.h), the same on both ends: it reads envelopes from
// the stream and writes each channel's bytes to that channel's local end (a socket, a pipe, a
// terminal), and sends what it reads from the local ends back as envelopes. Control messages go
// to onControl. One thread runs it; other threads hand it work with post().
//
// Flow control: while the bytes waiting for the stream pass kHighWater, no local end is read;
// while the bytes waiting for local ends pass it, the stream is not read. Local ends are read
// and written all the while, so no channel waits on another to make progress; a slow reader of
// one channel does slow the others down once the buffers are full (documented in docs/remote.md).
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"
#include "remote/Envelope.h"

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sb::remote {

class MuxLoop {
  public:
    static constexpr std::size_t kHighWater = std::size_t{4} << 20;
    static constexpr std::size_t kReadChunk = 64 * 1024;

    // `in` and `out` carry the stream (borrowed: the same descriptor, or one each way).
    MuxLoop(int in, int out);
    ~MuxLoop();
    MuxLoop(const MuxLoop&) = delete;
    MuxLoop& operator=(const MuxLoop&) = delete;

    // Each control message that arrives, on the loop's thread.
    std::function<void(const nlohmann::json&)> onControl;

    // A channel over one socket (read and written; shut down for writing when the peer ends).
    void addSocketChannel(std::uint32_t channel, UniqueFd socket);
    // A channel over two descriptors: `in` is read, `out` written (closed when the peer ends);
    // either may be invalid.
    void addChannel(std::uint32_t channel, UniqueFd in, UniqueFd out);
    bool hasChannel(std::uint32_t channel) const { return m_channels.count(channel) != 0; }
    int channelOut(std::uint32_t channel) const; // its written descriptor, or -1
    // Reads what the channel's local end holds now, sends it and the channel's end, and drops
    // the channel (a command that exited: a child it left behind may keep its pipes open).
    void finishChannel(std::uint32_t channel);
    // Drops the channel without a word to the other end (its end was already said).
    void dropChannel(std::uint32_t channel) { m_channels.erase(channel); }
    void sendControl(const nlohmann::json& message);
    // Calls `onReadable` on the loop's thread whenever `fd` (borrowed) can be read.
    void watch(int fd, std::function<void()> onReadable);
    void unwatch(int fd);

    // Runs until the stream ends (no error), fails (its error) or stop() was called; then drops
    // every channel.
    Status run();
    // From any thread: `task` runs on the loop's thread.
    void post(std::function<void()> task);
    // From any thread: the loop ends once what it has to send went out.
    void stop();

  private:
    struct Channel {
        UniqueFd inOwned, outOwned;
        int in = -1, out = -1;
        bool socket = false;
        bool peerEnded = false;
        std::string pending; // for `out`, from `pendingAt` on
        std::size_t pendingAt = 0;
    };

    Status pump();
    void queue(std::uint32_t channel, std::string_view payload);
    Status readStream();
    Status writeStream();
    void deliver(Envelope& envelope);
    void readChannel(std::uint32_t id, Channel& channel);
    void writeChannel(Channel& channel);
    void endWriting(Channel& channel);
    void runPosted();
    std::size_t pendingLocal() const;

    int m_in, m_out;
    UniqueFd m_wake; // eventfd: post() and stop()
    EnvelopeDecoder m_decoder;
    std::string m_outBuf;
    std::size_t m_outAt = 0;
    std::map<std::uint32_t, Channel> m_channels;
    std::map<int, std::function<void()>> m_watches;
    std::mutex m_mutex; // guards the two below
    std::deque<std::function<void()>> m_posted;
    bool m_stopping = false;
};

} // namespace sb::remote
