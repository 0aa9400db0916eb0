#include "base/Error.h"

#include <cstring>

namespace sb {

Error Error::within(std::string_view context) const
{
    return Error{code, sysErrno, std::string(context) + ": " + message};
}

std::string Error::describe() const
{
    if (sysErrno == 0) return message;
    return message + ": " + std::strerror(sysErrno);
}

Error sysError(std::string message, int err)
{
    return Error{ErrorCode::System, err, std::move(message)};
}

Error inputError(std::string message)
{
    return Error{ErrorCode::InvalidInput, 0, std::move(message)};
}

std::string exceptionText(const std::exception& e)
{
    std::string_view text = e.what();
    if (text.starts_with('[')) {
        if (auto end = text.find("] "); end != std::string_view::npos) text.remove_prefix(end + 2);
    }
    return std::string(text);
}

Error unsupported(std::string message)
{
    return Error{ErrorCode::Unsupported, 0, std::move(message)};
}

} // namespace sb
