// A stand-in for a model API over TLS (Anthropic Messages and OpenAI Chat Completions shapes,
// JSON and streamed), for the secrets and model gateway tests (issue 38). It writes every API
// key it receives (x-api-key, or the bearer token) to a log, one a line, so a test sees what
// reached the host; GET /echo-key answers with the key it got.
//
//   python3 SCRIPT HOST PORT CERT KEY LOG   (PORT 0: any; prints the port once it listens)
#pragma once

#include <filesystem>

namespace sbit {

// Writes the server's script into `dir` and returns its path.
std::filesystem::path writeFakeModelApi(const std::filesystem::path& dir);

} // namespace sbit
