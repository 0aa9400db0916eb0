// Bytes in text formats. Paths, arguments, environment values and terminal output are bytes,
// JSON holds UTF-8 only: what reaches JSON goes through here, so a byte that is not UTF-8 is
// replaced (U+FFFD) where text is shown and kept exactly in a "_base64" field beside it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// Well-formed UTF-8 as JSON requires it: no overlong forms, surrogates or code points past
// U+10FFFF.
bool isValidUtf8(std::string_view bytes);
// Splits off an incomplete UTF-8 sequence at the end of `bytes` (to prepend to the next chunk).
std::string_view completeUtf8Prefix(std::string_view bytes);

// A path for a line of text, as git quotes one: as it is, unless it holds a control character,
// '"' or '\\' (or bytes that are not UTF-8); then in double quotes, those written as C escapes
// (\n, \t, \", \\, \ooo). A newline in a file name no longer splits one line in two.
std::string quotedPath(std::string_view path);

std::string base64(std::string_view bytes);
// Standard alphabet, padding optional; nothing for anything else.
std::optional<std::string> fromBase64(std::string_view text);

// The JSON text of `j`; bytes that are not UTF-8 come out as U+FFFD instead of an exception.
std::string dumpJson(const nlohmann::json& j, int indent = -1);

// obj[key] = bytes, and obj[key + "_base64"] = base64(bytes) when they are not UTF-8.
void putBytes(nlohmann::json& obj, const std::string& key, std::string_view bytes);
// The same for a list: obj[key + "_base64"] holds every element when any is not UTF-8.
void putBytesList(nlohmann::json& obj, const std::string& key,
                  const std::vector<std::string>& list);
// A command line for a record or a prompt: putBytesList of its first kShownArgvBytes, the
// argument at the cut shortened, and obj["argv_omitted"] = {"args", "bytes"} for what was left
// out (an exec's arguments may reach the kernel's limit, ~6 MiB).
constexpr std::size_t kShownArgvBytes = 64 * 1024;
void putArgv(nlohmann::json& obj, const std::vector<std::string>& argv);
// What putBytes stored: the "_base64" field when there is one, else the text; nothing when
// neither is there (or either is malformed).
std::optional<std::string> getBytes(const nlohmann::json& obj, const std::string& key);
std::optional<std::vector<std::string>> getBytesList(const nlohmann::json& obj,
                                                     const std::string& key);

} // namespace sb
