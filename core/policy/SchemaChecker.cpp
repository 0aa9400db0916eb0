#include "policy/SchemaChecker.h"

#include <algorithm>

namespace sb {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxMessages = 10; // enough to fix a file in one go without burying the first

// Optimal string alignment distance: Levenshtein plus adjacent transpositions ("hots" → "host"),
// the commonest typos.
std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min(
                {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

std::vector<std::string_view> fieldNames(std::initializer_list<SchemaChecker::Field> fields)
{
    std::vector<std::string_view> names;
    for (const auto& f : fields)
        names.push_back(f.key);
    return names;
}

} // namespace

std::string joinNames(std::span<const std::string_view> names)
{
    std::string out;
    for (std::string_view n : names)
        out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

std::string shown(const Json& v)
{
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    std::string s = v.dump();
    if (s.size() > 40) {
        std::size_t cut = 37;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            --cut; // not inside a UTF-8 sequence
        s = s.substr(0, cut) + "...";
    }
    return s;
}

std::string didYouMean(std::string_view word, std::span<const std::string_view> names)
{
    std::string_view best;
    std::size_t bestDistance =
        std::max<std::size_t>(1, word.size() / 3) + 1; // a third may be wrong
    for (std::string_view n : names) {
        if (const std::size_t d = editDistance(word, n); d < bestDistance) {
            best = n;
            bestDistance = d;
        }
    }
    return best.empty() ? "" : "; did you mean '" + std::string(best) + "'?";
}

SchemaChecker::SchemaChecker(std::string_view origin, const JsonLocator& locator)
    : m_origin(origin), m_loc(locator)
{
}

void SchemaChecker::failAt(std::size_t offset, const std::string& pointer, const std::string& what)
{
    const TextPosition pos = m_loc.at(offset);
    m_messages.push_back(m_origin + ':' + std::to_string(pos.line) + ':' +
                         std::to_string(pos.column) + ": at " + (pointer.empty() ? "/" : pointer) +
                         ": " + what);
}

void SchemaChecker::failAtValue(const std::string& p, const std::string& what)
{
    failAt(m_loc.valueOffset(p), p, what);
}

void SchemaChecker::failAtKey(const std::string& p, const std::string& what)
{
    failAt(m_loc.keyOffset(p), p, what);
}

std::vector<std::string> SchemaChecker::keys(const Json& object, const std::string& pointer) const
{
    std::vector<std::string> out;
    for (const auto& [k, _] : object.items())
        out.push_back(k);
    std::sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
        return m_loc.keyOffset(appendPointer(pointer, a)) <
               m_loc.keyOffset(appendPointer(pointer, b));
    });
    return out;
}

void SchemaChecker::object(const Json& v, const std::string& pointer,
                           std::initializer_list<Field> fields)
{
    const std::vector<std::string_view> names = fieldNames(fields);
    if (!v.is_object()) {
        failAtValue(pointer, "got " + shown(v) +
                                 " (expected an object with keys: " + joinNames(names) + ")");
        return;
    }
    for (const std::string& key : keys(v, pointer)) {
        const std::string at = appendPointer(pointer, key);
        auto f = std::find_if(fields.begin(), fields.end(),
                              [&](const Field& x) { return x.key == key; });
        if (f != fields.end())
            f->read(v.at(key), at);
        else
            failAtKey(at, "unknown key '" + key + "' (expected one of: " + joinNames(names) +
                              didYouMean(key, names) + ")");
    }
    for (const Field& f : fields) {
        if (!f.requiredHint.empty() && !v.contains(f.key))
            failAtValue(pointer, "missing required key '" + std::string(f.key) + "' (expected " +
                                     std::string(f.requiredHint) + ")");
    }
}

std::optional<std::uint64_t> SchemaChecker::integer(const Json& v, const std::string& p,
                                                    std::uint64_t min, std::uint64_t max)
{
    const std::string expected =
        "(expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ")";
    if (!v.is_number_integer()) {
        failAtValue(p, "got " + shown(v) + ' ' + expected);
        return std::nullopt;
    }
    if (v.is_number_unsigned() && v.get<std::uint64_t>() >= min && v.get<std::uint64_t>() <= max)
        return v.get<std::uint64_t>();
    failAtValue(p, v.dump() + " is out of range " + expected);
    return std::nullopt;
}

std::optional<bool> SchemaChecker::boolean(const Json& v, const std::string& p)
{
    if (v.is_boolean()) return v.get<bool>();
    failAtValue(p, "got " + shown(v) + " (expected true or false)");
    return std::nullopt;
}

std::optional<std::string> SchemaChecker::string(const Json& v, const std::string& p,
                                                 std::string_view expected)
{
    if (!v.is_string()) {
        failAtValue(p, "got " + shown(v) + " (expected " + std::string(expected) + ")");
        return std::nullopt;
    }
    std::string s = v.get<std::string>();
    if (s.find('\0') != std::string::npos) {
        // Paths and environment values end at a NUL; what follows would silently vanish.
        failAtValue(p,
                    "the string contains a NUL character (expected " + std::string(expected) + ")");
        return std::nullopt;
    }
    return s;
}

std::optional<std::size_t> SchemaChecker::choice(const Json& v, const std::string& p,
                                                 std::span<const std::string_view> names)
{
    const std::string list = "one of: " + joinNames(names);
    auto s = string(v, p, list);
    if (!s) return std::nullopt;
    if (auto it = std::find(names.begin(), names.end(), *s); it != names.end())
        return static_cast<std::size_t>(it - names.begin());
    failAtValue(p, "unknown value '" + *s + "' (expected " + list + didYouMean(*s, names) + ")");
    return std::nullopt;
}

bool SchemaChecker::array(const Json& v, const std::string& p, std::string_view expected)
{
    if (v.is_array()) return true;
    failAtValue(p, "got " + shown(v) + " (expected " + std::string(expected) + ")");
    return false;
}

Status SchemaChecker::result() const
{
    if (m_messages.empty()) return std::nullopt;
    std::string all;
    for (std::size_t i = 0; i < m_messages.size() && i < kMaxMessages; ++i)
        all += (i ? "\n" : "") + m_messages[i];
    if (m_messages.size() > kMaxMessages)
        all += "\n(" + std::to_string(m_messages.size() - kMaxMessages) + " more problems)";
    return inputError(std::move(all));
}

} // namespace sb
