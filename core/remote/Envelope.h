// The dial stream between `sandbench-cli --host` and `sandbench-cli dial-stdio` on the remote
// host (docs/remote.md): one byte stream, usually ssh's, that carries many channels. An
// envelope is [u32 channel, little-endian][u32 length, little-endian][payload]. Channel 0 carries
// control messages (one JSON object a payload, with an "op"); every other channel carries one
// byte stream each way (a session's control socket, or a remote command's terminal or pipes),
// and an empty payload ends the sender's direction of it.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sb::remote {

constexpr std::uint32_t kControlChannel = 0;
constexpr std::size_t kEnvelopeHeaderBytes = 8;
// The largest payload either side accepts; a bigger length is a protocol violation.
constexpr std::size_t kMaxEnvelopePayload = std::size_t{1} << 20;
// The dial protocol's version: the hello says which one each side speaks, the lower one is used.
constexpr std::uint32_t kDialVersion = 1;
constexpr std::uint32_t kOldestDialVersion = 1;

std::string encodeEnvelope(std::uint32_t channel, std::string_view payload);
// Appends an envelope to `out` (no copy of a temporary).
void appendEnvelope(std::string& out, std::uint32_t channel, std::string_view payload);
std::string encodeControl(const nlohmann::json& message);

struct Envelope {
    std::uint32_t channel = 0;
    std::string payload;
};

// Reassembles envelopes from the stream. A malformed one is an error after which the stream
// must be dropped: it cannot be resynchronised.
class EnvelopeDecoder {
  public:
    void feed(std::string_view bytes);
    // True with `out` filled when a whole envelope was buffered; false when more bytes are needed.
    Result<bool> next(Envelope& out);
    std::size_t buffered() const { return m_buf.size() - m_pos; }

  private:
    std::string m_buf;
    std::size_t m_pos = 0;
};

// A control message's field, or `fallback` when it is missing or of another type (the message
// came from another machine).
std::uint32_t fieldU32(const nlohmann::json& message, const char* key, std::uint32_t fallback);
std::int64_t fieldInt(const nlohmann::json& message, const char* key, std::int64_t fallback);
std::string fieldString(const nlohmann::json& message, const char* key,
                        const std::string& fallback = {});

// A control payload: a JSON object with a string "op", or an error naming what is wrong.
Result<nlohmann::json> parseControl(std::string_view payload);

} // namespace sb::remote
