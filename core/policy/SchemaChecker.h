// Checks a parsed JSON document against a schema written as nested tables of fields, and words
// every problem as "ORIGIN:LINE:COLUMN: at /json/pointer: what is wrong (expected …)".
#pragma once

#include "base/Error.h"
#include "base/JsonLocator.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sb {

// "a, b, c"
std::string joinNames(std::span<const std::string_view> names);
// "; did you mean 'x'?" when one name is a near miss for `word` (a typo, a transposition), else "".
std::string didYouMean(std::string_view word, std::span<const std::string_view> names);
// A value as a message shows it: scalars as written (long strings cut), containers by kind.
std::string shown(const nlohmann::json& value);

class SchemaChecker {
  public:
    using Json = nlohmann::json;
    struct Field {
        std::string_view key;
        std::function<void(const Json&, const std::string& pointer)> read;
        std::string_view requiredHint = {}; // non-empty: the key is required; shown when missing
    };

    SchemaChecker(std::string_view origin, const JsonLocator& locator);

    // An object whose keys are among `fields`: each present one is handed to its reader in document
    // order; an unknown key is reported at the key, a missing required one at the object.
    void object(const Json& v, const std::string& pointer, std::initializer_list<Field> fields);

    // Each returns the value, or reports why not (at the value) and returns nothing.
    std::optional<std::uint64_t> integer(const Json& v, const std::string& pointer,
                                         std::uint64_t min, std::uint64_t max);
    std::optional<bool> boolean(const Json& v, const std::string& pointer);
    std::optional<std::string> string(const Json& v, const std::string& pointer,
                                      std::string_view expected);
    // The index of a string among `names`.
    std::optional<std::size_t> choice(const Json& v, const std::string& pointer,
                                      std::span<const std::string_view> names);
    bool array(const Json& v, const std::string& pointer, std::string_view expected);

    // Keys of an object in document order (nlohmann sorts them), so messages read top to bottom.
    std::vector<std::string> keys(const Json& object, const std::string& pointer) const;

    void failAtValue(const std::string& pointer, const std::string& what);
    void failAtKey(const std::string& pointer, const std::string& what);

    // Every problem found, one a line (the first ten), or nothing.
    Status result() const;

  private:
    void failAt(std::size_t offset, const std::string& pointer, const std::string& what);

    std::string m_origin;
    const JsonLocator& m_loc;
    std::vector<std::string> m_messages;
};

} // namespace sb
