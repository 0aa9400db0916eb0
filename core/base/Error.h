// Errors as values: the core returns them, never throws them across its boundary.
// See docs/errors.md for the convention.
#pragma once

#include <cerrno>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sb {

enum class ErrorCode {
    System,       // a syscall failed; sysErrno says which way
    InvalidInput, // the user's input (policy, arguments, path) is wrong
    Unsupported,  // the kernel or machine lacks a feature the request needs
    Conflict,     // the real project changed under a pending apply
    NotFound,
    Internal,
};

struct Error {
    ErrorCode code = ErrorCode::Internal;
    int sysErrno = 0;
    std::string message;

    // "message: strerror(errno)" when a syscall is behind it.
    std::string describe() const;
    // The same error, its message after "context: " (what was being done, said first).
    Error within(std::string_view context) const;
};

// Captures errno at the call site: `return sysError("mount /proc");`
Error sysError(std::string message, int err = errno);
Error inputError(std::string message);
Error unsupported(std::string message);

// A step that returns nothing on success: `if (auto e = step()) return e;`
using Status = std::optional<Error>;

// An exception's text without a library's bracketed tag ("[json.exception.type_error.302] ").
std::string exceptionText(const std::exception& e);

template <class T> class Result {
  public:
    Result(T value) : m_v(std::move(value)) {}
    Result(Error error) : m_v(std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    const Error& error() const { return std::get<1>(m_v); }

  private:
    std::variant<T, Error> m_v;
};

// Runs `f`, which reads input from outside (a peer's message, a request): nlohmann::json throws
// on a field of an unexpected type, and that must become an error naming `what`, not a crash.
// `f` returns a Result or a Status.
template <class F> auto guarded(std::string_view what, F&& f) -> decltype(f())
{
    try {
        return f();
    } catch (const std::exception& e) {
        return inputError("bad " + std::string(what) + ": " + exceptionText(e));
    }
}

} // namespace sb
