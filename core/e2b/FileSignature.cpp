#include "e2b/FileSignature.h"

#include "base/Bytes.h"
#include "e2b/E2bInternal.h"
#include "http/HttpServer.h"

#include <charconv>
#include <openssl/sha.h>

namespace sb::e2b {

Result<std::optional<SignedFileQuery>> signedFileQuery(std::string_view rawQuery)
{
    auto signature = http::queryValue(rawQuery, "signature");
    if (!signature) return std::optional<SignedFileQuery>();
    SignedFileQuery query{std::move(*signature), std::nullopt,
                          http::queryValue(rawQuery, "path").value_or(""),
                          http::queryValue(rawQuery, "username").value_or("")};
    if (auto text = http::queryValue(rawQuery, "signature_expiration")) {
        long long seconds = 0;
        const char* end = text->data() + text->size();
        const auto [at, ec] = std::from_chars(text->data(), end, seconds);
        if (text->empty() || ec != std::errc() || at != end)
            return inputError("signature_expiration is not a whole number of seconds: '" +
                              text->substr(0, 32) + "'");
        query.expiration = seconds;
    }
    return std::optional<SignedFileQuery>(std::move(query));
}

std::string fileSignature(std::string_view path, std::string_view operation, std::string_view user,
                          std::string_view token, std::optional<long long> expiration)
{
    std::string text;
    text.append(path).append(":").append(operation).append(":").append(user).append(":");
    text.append(token);
    if (expiration) text.append(":").append(std::to_string(*expiration));
    unsigned char digest[SHA256_DIGEST_LENGTH];
    ::SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
    std::string encoded =
        base64(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
    while (!encoded.empty() && encoded.back() == '=')
        encoded.pop_back();
    return "v1_" + encoded;
}

SignatureCheck checkFileSignature(const SignedFileQuery& query, std::string_view operation,
                                  std::string_view token, long long nowUnixSeconds)
{
    const std::string expected =
        fileSignature(query.path, operation, query.user, token, query.expiration);
    if (!sameSecret(expected, query.signature)) return SignatureCheck::Invalid;
    if (query.expiration && *query.expiration < nowUnixSeconds) return SignatureCheck::Expired;
    return SignatureCheck::Valid;
}

} // namespace sb::e2b

namespace sb::e2b {

std::shared_ptr<Api::Sandbox> Api::signedSandbox(const SignedFileQuery& query,
                                                 std::string_view operation)
{
    std::vector<std::shared_ptr<Sandbox>> all;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, sandbox] : m_sandboxes)
            all.push_back(sandbox);
    }
    // Each one's token is tried the same way, so the time taken does not tell which came close.
    std::shared_ptr<Sandbox> found;
    for (const auto& sandbox : all)
        if (checkFileSignature(query, operation, sandbox->accessToken, 0) !=
                SignatureCheck::Invalid &&
            !found)
            found = sandbox;
    if (found && !found->dormant) return find(found->id); // ended by other means: null
    return found;
}

} // namespace sb::e2b
