// The Connect protocol (connectrpc.com), as the E2B SDK speaks it to a sandbox: JSON messages,
// unary calls as plain POSTs, server streams as a POST with one enveloped request message and
// a response of enveloped messages ended by an end-of-stream envelope.
//
// An envelope is [u8 flags][u32 length, big-endian][message]; flags 0x01 is a compressed
// message (never used here, refused), 0x02 the end of the stream, whose message is {} or
// {"error": {"code", "message"}}.
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sb::e2b {

constexpr std::uint8_t kEndStream = 0x02;
constexpr std::uint8_t kCompressed = 0x01;
constexpr std::size_t kEnvelopeHeader = 5;

// Connect's error codes, as they travel ("not_found", …).
struct RpcError {
    std::string code;
    std::string message;
};
RpcError rpcError(const Error& error); // by the error's code: not_found, invalid_argument, …
int httpStatusOf(std::string_view code);
nlohmann::json toJson(const RpcError& error); // {"code", "message"}

std::string envelope(std::string_view message, std::uint8_t flags = 0);
std::string endOfStream(const RpcError* error = nullptr);

// The single message of a streaming call's request body; an error names what is wrong (no
// envelope, a compressed one, a length past the body, bytes after it, not JSON).
Result<nlohmann::json> streamRequest(std::string_view body);
// A unary call's request body: one JSON object.
Result<nlohmann::json> unaryRequest(std::string_view body);

} // namespace sb::e2b
