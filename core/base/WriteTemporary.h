// The one name of the temporary files a file request writes inside a sandbox before renaming
// it over its target (sandbox/ExecHelperFiles.cpp): ".sandbench-write-" and 12 hex digits, in
// the target's folder. Nothing else makes such names, so the supervisor may remove every one it
// finds in a session's layer (a killed upload's or helper's leftover, workspace/Workspace.h)
// and the review never shows one as a change.
#pragma once

#include <string>
#include <string_view>

namespace sb {

inline constexpr std::string_view kWriteTemporaryPrefix = ".sandbench-write-";
inline constexpr std::size_t kWriteTemporaryDigits = 12;

// A fresh name from 6 random bytes.
inline std::string writeTemporaryName(const unsigned char (&random)[6])
{
    std::string name(kWriteTemporaryPrefix);
    for (unsigned char b : random) {
        name += "0123456789abcdef"[b >> 4];
        name += "0123456789abcdef"[b & 15];
    }
    return name;
}

inline bool isWriteTemporaryName(std::string_view name)
{
    if (!name.starts_with(kWriteTemporaryPrefix)) return false;
    name.remove_prefix(kWriteTemporaryPrefix.size());
    return name.size() == kWriteTemporaryDigits &&
           name.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

} // namespace sb
