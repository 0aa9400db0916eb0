#include "base/FileMetadata.h"

#include "base/Bytes.h"

#include <algorithm>

namespace sb {

namespace {

bool printableAscii(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

} // namespace

Status checkFileMetadata(const nlohmann::json& metadata)
{
    if (!metadata.is_object())
        return inputError("metadata is an object of texts (\"key\": \"value\")");
    std::size_t total = 0;
    for (const auto& [key, value] : metadata.items()) {
        if (key.empty()) return inputError("a metadata key is empty");
        if (key.size() > kMaxFileMetadataKey)
            return inputError("metadata key '" + key.substr(0, 32) + "…' is longer than " +
                              std::to_string(kMaxFileMetadataKey) + " bytes");
        if (!printableAscii(key))
            return inputError("metadata key " + quotedPath(key) +
                              " holds a byte that is not printable ASCII");
        if (!value.is_string())
            return inputError("the value of metadata key '" + key + "' is not a text");
        const auto& text = value.get_ref<const std::string&>();
        if (!printableAscii(text))
            return inputError("the value of metadata key '" + key +
                              "' holds a byte that is not printable ASCII");
        total += kFileMetadataXattrPrefix.size() + key.size() + text.size();
    }
    if (total > kMaxFileMetadataBytes)
        return inputError("the metadata take " + std::to_string(total) + " bytes, more than " +
                          std::to_string(kMaxFileMetadataBytes));
    return {};
}

} // namespace sb
