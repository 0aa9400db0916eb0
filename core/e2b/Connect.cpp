#include "e2b/Connect.h"

namespace sb::e2b {

using json = nlohmann::json;

RpcError rpcError(const Error& error)
{
    const char* code = "internal";
    switch (error.code) {
    case ErrorCode::InvalidInput:
        code = "invalid_argument";
        break;
    case ErrorCode::NotFound:
        code = "not_found";
        break;
    case ErrorCode::Conflict:
        code = "already_exists";
        break;
    case ErrorCode::Unsupported:
        code = "unimplemented";
        break;
    case ErrorCode::System:
        code =
            error.sysErrno == EACCES || error.sysErrno == EPERM ? "permission_denied" : "internal";
        break;
    case ErrorCode::Internal:
        code = "internal";
        break;
    }
    return {code, error.describe()};
}

int httpStatusOf(std::string_view code)
{
    struct Pair {
        const char* code;
        int status;
    };
    // The Connect specification's mapping.
    static const Pair table[] = {{"canceled", 499},
                                 {"unknown", 500},
                                 {"invalid_argument", 400},
                                 {"deadline_exceeded", 504},
                                 {"not_found", 404},
                                 {"already_exists", 409},
                                 {"permission_denied", 403},
                                 {"resource_exhausted", 429},
                                 {"failed_precondition", 400},
                                 {"aborted", 409},
                                 {"out_of_range", 400},
                                 {"unimplemented", 501},
                                 {"internal", 500},
                                 {"unavailable", 503},
                                 {"data_loss", 500},
                                 {"unauthenticated", 401}};
    for (const Pair& p : table)
        if (code == p.code) return p.status;
    return 500;
}

json toJson(const RpcError& error)
{
    return {{"code", error.code}, {"message", error.message}};
}

std::string envelope(std::string_view message, std::uint8_t flags)
{
    std::string out;
    out.reserve(kEnvelopeHeader + message.size());
    out += static_cast<char>(flags);
    const auto size = static_cast<std::uint32_t>(message.size());
    for (int shift = 24; shift >= 0; shift -= 8)
        out += static_cast<char>((size >> shift) & 0xff);
    out.append(message);
    return out;
}

std::string endOfStream(const RpcError* error)
{
    json end = json::object();
    if (error != nullptr) end["error"] = toJson(*error);
    return envelope(end.dump(), kEndStream);
}

Result<json> streamRequest(std::string_view body)
{
    if (body.size() < kEnvelopeHeader)
        return inputError("a streaming request's body must be one enveloped message (" +
                          std::to_string(body.size()) + " bytes is too short)");
    const auto flags = static_cast<std::uint8_t>(body[0]);
    if ((flags & kCompressed) != 0)
        return inputError("compressed messages are not supported (send identity encoding)");
    if (flags != 0) return inputError("unexpected envelope flags " + std::to_string(flags));
    std::uint32_t size = 0;
    for (std::size_t i = 1; i < kEnvelopeHeader; ++i)
        size = (size << 8) | static_cast<std::uint8_t>(body[i]);
    if (size != body.size() - kEnvelopeHeader)
        return inputError("the envelope says " + std::to_string(size) + " bytes, the body has " +
                          std::to_string(body.size() - kEnvelopeHeader));
    return unaryRequest(body.substr(kEnvelopeHeader));
}

Result<json> unaryRequest(std::string_view body)
{
    if (body.empty()) return json::object(); // an empty body is the empty message
    json message = json::parse(body, nullptr, false);
    if (message.is_discarded()) return inputError("the request message is not JSON");
    if (!message.is_object()) return inputError("the request message must be a JSON object");
    return message;
}

} // namespace sb::e2b
