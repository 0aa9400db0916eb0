// A stand-in for a model API over TLS (Anthropic Messages and OpenAI Chat Completions shapes,
// JSON and streamed), for the secrets and model gateway tests (issue 38). It writes every API
// key it receives (x-api-key, or the bearer token) to a log, one a line, so a test sees what
// reached the host; GET /echo-key answers with the key it got.
//
//   python3 SCRIPT HOST PORT CERT KEY LOG   (PORT 0: any; prints the port once it listens)
#pragma once

#include <filesystem>
#include <string>

namespace sbit {

// Writes the server's script into `dir` and returns its path.
std::filesystem::path writeFakeModelApi(const std::filesystem::path& dir);

// Shell lines that write the script into `dir`, start it in the background (its pid in $api,
// its messages in api.err, both in the current folder) on ADDRESS:PORT with the certificate
// `cert` and its `key`, logging the keys it gets to `log`, and wait until it listens.
std::string startFakeModelApi(const std::filesystem::path& dir, const std::string& address,
                              int port, const std::string& cert, const std::string& key,
                              const std::filesystem::path& log);

} // namespace sbit
