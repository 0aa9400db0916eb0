#include "base/Bytes.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace sb {
namespace {

// Length of the sequence a lead byte starts, 0 for a byte that cannot start one.
std::size_t sequenceLength(unsigned char lead)
{
    if (lead < 0x80) return 1;
    if (lead >= 0xc2 && lead <= 0xdf) return 2;
    if ((lead & 0xf0) == 0xe0) return 3;
    if (lead >= 0xf0 && lead <= 0xf4) return 4;
    return 0;
}

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

} // namespace

bool isValidUtf8(std::string_view bytes)
{
    for (std::size_t i = 0; i < bytes.size();) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        const std::size_t len = sequenceLength(lead);
        if (len == 0 || i + len > bytes.size()) return false;
        for (std::size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(bytes[i + k]) & 0xc0) != 0x80) return false;
        const auto second =
            static_cast<unsigned char>(bytes[i + std::min<std::size_t>(1, len - 1)]);
        if (lead == 0xe0 && second < 0xa0) return false; // overlong
        if (lead == 0xed && second > 0x9f) return false; // surrogate
        if (lead == 0xf0 && second < 0x90) return false; // overlong
        if (lead == 0xf4 && second > 0x8f) return false; // past U+10FFFF
        i += len;
    }
    return true;
}

std::string_view completeUtf8Prefix(std::string_view bytes)
{
    // Look back at most 3 bytes for the lead byte of an unfinished character.
    const std::size_t n = bytes.size();
    for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto c = static_cast<unsigned char>(bytes[n - back]);
        if ((c & 0xc0) == 0x80) continue; // continuation byte: keep looking for its lead
        if (sequenceLength(c) > back) return bytes.substr(0, n - back);
        break;
    }
    return bytes;
}

std::string quotedPath(std::string_view path)
{
    const bool utf8 = isValidUtf8(path);
    auto plain = [utf8](unsigned char c) {
        return c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && (c < 0x80 || utf8);
    };
    if (std::all_of(path.begin(), path.end(),
                    [&](char c) { return plain(static_cast<unsigned char>(c)); }))
        return std::string(path);
    std::string out = "\"";
    for (char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        if (plain(c)) {
            out += ch;
            continue;
        }
        if (c >= '\a' && c <= '\r') {
            out += '\\';
            out += "abtnvfr"[c - '\a'];
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else {
            char octal[5];
            std::snprintf(octal, sizeof octal, "\\%03o", c);
            out += octal;
        }
    }
    return out + "\"";
}

std::string base64(std::string_view bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 |
                           static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        for (int k = 18; k >= 0; k -= 6)
            out.push_back(kAlphabet[(v >> k) & 63]);
    }
    if (i < bytes.size()) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::optional<std::string> fromBase64(std::string_view text)
{
    std::array<int, 256> value{};
    value.fill(-1);
    for (int k = 0; k < 64; ++k)
        value[static_cast<unsigned char>(kAlphabet[k])] = k;
    while (!text.empty() && text.back() == '=')
        text.remove_suffix(1);
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    unsigned bits = 0;
    int count = 0;
    for (char c : text) {
        const int v = value[static_cast<unsigned char>(c)];
        if (v < 0) return std::nullopt;
        bits = bits << 6 | static_cast<unsigned>(v);
        if ((count += 6) >= 8) {
            count -= 8;
            out.push_back(static_cast<char>((bits >> count) & 0xff));
        }
    }
    return out;
}

std::string dumpJson(const nlohmann::json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void putBytes(nlohmann::json& obj, const std::string& key, std::string_view bytes)
{
    obj[key] = std::string(bytes);
    if (!isValidUtf8(bytes)) obj[key + "_base64"] = base64(bytes);
}

void putBytesList(nlohmann::json& obj, const std::string& key, const std::vector<std::string>& list)
{
    obj[key] = list;
    bool plain = true;
    for (const std::string& s : list)
        plain = plain && isValidUtf8(s);
    if (plain) return;
    nlohmann::json encoded = nlohmann::json::array();
    for (const std::string& s : list)
        encoded.push_back(base64(s));
    obj[key + "_base64"] = std::move(encoded);
}

void putArgv(nlohmann::json& obj, const std::vector<std::string>& argv)
{
    std::size_t budget = kShownArgvBytes, kept = 0, cutBytes = 0;
    std::vector<std::string> shown;
    constexpr std::size_t kPerArgument = 4; // its quotes and comma in the JSON, roughly
    for (; kept < argv.size(); ++kept) {
        const std::string& arg = argv[kept];
        if (arg.size() + kPerArgument <= budget) {
            shown.push_back(arg);
            budget -= arg.size() + kPerArgument;
            continue;
        }
        if (budget > 0) {
            std::string_view cut = completeUtf8Prefix(std::string_view(arg).substr(0, budget));
            shown.emplace_back(cut);
            cutBytes = arg.size() - cut.size();
            ++kept;
        }
        break;
    }
    putBytesList(obj, "argv", shown);
    if (kept == argv.size() && cutBytes == 0) return;
    std::size_t omittedBytes = cutBytes;
    for (std::size_t i = kept; i < argv.size(); ++i)
        omittedBytes += argv[i].size();
    obj["argv_omitted"] = {{"args", argv.size() - kept}, {"bytes", omittedBytes}};
}

std::optional<std::string> getBytes(const nlohmann::json& obj, const std::string& key)
{
    if (auto it = obj.find(key + "_base64"); it != obj.end())
        return it->is_string() ? fromBase64(it->get_ref<const std::string&>()) : std::nullopt;
    if (auto it = obj.find(key); it != obj.end() && it->is_string()) return it->get<std::string>();
    return std::nullopt;
}

std::optional<std::vector<std::string>> getBytesList(const nlohmann::json& obj,
                                                     const std::string& key)
{
    const bool encoded = obj.contains(key + "_base64");
    auto it = obj.find(encoded ? key + "_base64" : key);
    if (it == obj.end() || !it->is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& e : *it) {
        if (!e.is_string()) return std::nullopt;
        auto s = encoded ? fromBase64(e.get_ref<const std::string&>())
                         : std::optional<std::string>(e.get<std::string>());
        if (!s) return std::nullopt;
        out.push_back(std::move(*s));
    }
    return out;
}

} // namespace sb
