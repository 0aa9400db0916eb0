// Signed file URLs (E2B's `uploadUrl()` and `downloadUrl()`): the SDK signs a /files request
// with the sandbox's access token, so the URL alone, without the token's header, reads or
// writes that one path as that user, for that operation, until its expiration. The signature
// is "v1_" and the unpadded base64 of SHA-256 over "path:operation:user:token" (and
// ":expiration", Unix seconds, when there is one), with user empty for the default user.
#pragma once

#include "base/Error.h"

#include <optional>
#include <string>
#include <string_view>

namespace sb::e2b {

// What a /files request's query says about its signature.
struct SignedFileQuery {
    std::string signature;
    std::optional<long long> expiration; // Unix seconds; none: it never expires
    std::string path;                    // as the URL names it ("" when there is none)
    std::string user;                    // "" when the URL names none (the default user)
};

// The query's signature fields: nullopt when it has no "signature"; an InvalidInput when
// signature_expiration is not a whole number of seconds.
Result<std::optional<SignedFileQuery>> signedFileQuery(std::string_view rawQuery);

// The signature of `path` for `operation` ("read" or "write") as `user`, under `token`.
std::string fileSignature(std::string_view path, std::string_view operation, std::string_view user,
                          std::string_view token, std::optional<long long> expiration);

enum class SignatureCheck { Valid, Invalid, Expired };

// Whether `query` is signed with `token` for `operation`, compared in a time that does not
// depend on where a wrong signature differs, and not expired at `nowUnixSeconds` (a wrong
// signature is Invalid whatever its expiration, as envd checks them).
SignatureCheck checkFileSignature(const SignedFileQuery& query, std::string_view operation,
                                  std::string_view token, long long nowUnixSeconds);

} // namespace sb::e2b
