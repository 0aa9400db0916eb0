#include "recording/CodeExecution.h"

#include "base/Bytes.h"

#include <algorithm>
#include <initializer_list>

namespace sb {

using json = nlohmann::json;

namespace {

Status onlyFields(const json& object, std::initializer_list<std::string_view> known,
                  const std::string& where)
{
    for (const auto& [key, value] : object.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            return inputError(where + ": unknown field '" + key + "'");
    return {};
}

// object[field] as a string ("" when absent), or an error naming it.
Result<std::string> textField(const json& object, const char* field, const std::string& where)
{
    if (!object.contains(field) || object[field].is_null()) return std::string();
    if (!object[field].is_string()) return inputError(where + "." + field + " must be a string");
    return object[field].get<std::string>();
}

// `text` cut to `limit` bytes at a character's boundary, with "…" after it.
std::string cut(std::string_view text, std::size_t limit)
{
    if (text.size() <= limit) return std::string(text);
    return std::string(completeUtf8Prefix(text.substr(0, limit))) + "…";
}

// into[field] = text, cut to `limit`; "<field>_bytes" says how long it was when it was cut.
void putCut(json& into, const char* field, const std::string& text, std::size_t limit)
{
    if (text.empty()) return;
    into[field] = cut(text, limit);
    if (text.size() > limit) into[std::string(field) + "_bytes"] = text.size();
}

struct Budget {
    std::size_t left;
};

Result<json> recordedPart(const json& part, const std::string& where, const ExecutionLimits& limits,
                          Budget& budget)
{
    if (!part.is_object()) return inputError(where + " must be an object");
    if (auto e = onlyFields(part, {"mime", "text", "base64", "json", "bytes", "omitted"}, where))
        return *e;
    auto mime = textField(part, "mime", where);
    if (!mime) return mime.error();
    if (mime->empty() || mime->size() > 128 || mime->find('/') == std::string::npos)
        return inputError(where + ".mime must be a MIME type such as image/png");
    json out = {{"mime", *mime}};
    const PartEncoding encoding = partEncoding(*mime);
    const char* field = encoding == PartEncoding::Base64 ? "base64"
                        : encoding == PartEncoding::Json ? "json"
                                                         : "text";
    for (const char* other : {"text", "base64", "json"})
        if (std::string_view(other) != field && part.contains(other))
            return inputError(where + ": a part of type " + *mime + " carries \"" + field +
                              "\", not \"" + other + "\"");
    // Left out before it reached the supervisor (serve bounds what it collects too).
    if (part.contains("omitted")) {
        auto why = textField(part, "omitted", where);
        if (!why) return why.error();
        out["omitted"] = cut(*why, 256);
        if (part.contains("bytes") && part["bytes"].is_number_integer() &&
            part["bytes"].get<std::int64_t>() >= 0)
            out["bytes"] = part["bytes"];
        return out;
    }
    if (!part.contains(field)) return inputError(where + " has no \"" + field + "\"");
    std::size_t size = 0;  // what it takes in the record
    std::size_t bytes = 0; // what it is (decoded pictures)
    if (encoding == PartEncoding::Json) {
        if (!part[field].is_object() && !part[field].is_array())
            return inputError(where + ".json must be an object or an array");
        size = bytes = dumpJson(part[field]).size();
    } else {
        if (!part[field].is_string()) return inputError(where + "." + field + " must be a string");
        const std::string& text = part[field].get_ref<const std::string&>();
        size = bytes = text.size();
        if (encoding == PartEncoding::Base64) {
            // Jupyter's base64 ends in a newline, and others wrap theirs into lines.
            std::string compact;
            compact.reserve(text.size());
            for (char c : text)
                if (c != '\n' && c != '\r' && c != ' ' && c != '\t') compact += c;
            auto decoded = fromBase64(compact);
            if (!decoded) {
                out["bytes"] = bytes;
                out["omitted"] = "not base64";
                return out;
            }
            bytes = decoded->size();
        }
    }
    out["bytes"] = bytes;
    const std::size_t room = std::min(limits.part, budget.left);
    if (size <= room) {
        out[field] = part[field];
        budget.left -= size;
        return out;
    }
    // A text is kept in part; a picture or JSON cut short would be no picture, no JSON.
    if (encoding == PartEncoding::Text && room >= 1024) {
        out[field] = cut(part[field].get_ref<const std::string&>(), room);
        out["truncated"] = true;
        budget.left -= out[field].get_ref<const std::string&>().size();
        return out;
    }
    out["omitted"] = size > limits.part ? "larger than the recording keeps of one result (" +
                                              std::to_string(limits.part / 1024) + " KiB)"
                                        : "over what the recording keeps of one execution (" +
                                              std::to_string(limits.total / 1024) + " KiB)";
    return out;
}

} // namespace

PartEncoding partEncoding(std::string_view mime)
{
    if (mime == "image/svg+xml") return PartEncoding::Text;
    if (mime.starts_with("image/") || mime == "application/pdf") return PartEncoding::Base64;
    if (mime == "application/json" || mime.ends_with("+json") || mime == "e2b/data" ||
        mime == "e2b/chart")
        return PartEncoding::Json;
    return PartEncoding::Text;
}

Result<json> recordedExecution(const json& execution, const ExecutionLimits& limits)
{
    const std::string where = "execution";
    if (!execution.is_object()) return inputError("execution must be an object");
    if (auto e = onlyFields(execution,
                            {"language", "context", "execution_count", "code", "stdout", "stderr",
                             "results", "results_omitted", "error", "duration_ms"},
                            where))
        return *e;
    json out = {{"kind", "execution"}};
    for (const char* field : {"language", "context"}) {
        auto text = textField(execution, field, where);
        if (!text) return text.error();
        out[field] = cut(*text, 256);
    }
    for (const char* field : {"execution_count", "duration_ms"}) {
        if (!execution.contains(field) || execution[field].is_null()) continue;
        if (!execution[field].is_number_integer() || execution[field].get<std::int64_t>() < 0)
            return inputError(where + "." + field + " must be a whole number, 0 or more");
        out[field] = execution[field];
    }
    for (const char* field : {"code", "stdout", "stderr"}) {
        auto text = textField(execution, field, where);
        if (!text) return text.error();
        putCut(out, field, *text, limits.code);
    }
    if (!out.contains("code")) out["code"] = "";
    std::size_t omittedResults = 0;
    if (execution.contains("results_omitted")) {
        if (!execution["results_omitted"].is_number_unsigned())
            return inputError(where + ".results_omitted must be a whole number, 0 or more");
        omittedResults = execution["results_omitted"].get<std::size_t>();
    }
    json results = json::array();
    Budget budget{limits.total};
    if (execution.contains("results") && !execution["results"].is_null()) {
        if (!execution["results"].is_array())
            return inputError(where + ".results must be an array");
        const json& list = execution["results"];
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = where + ".results[" + std::to_string(i) + "]";
            const json& result = list[i];
            if (!result.is_object()) return inputError(at + " must be an object");
            if (auto e = onlyFields(result, {"main", "parts"}, at)) return *e;
            if (result.contains("main") && !result["main"].is_boolean())
                return inputError(at + ".main must be true or false");
            if (!result.contains("parts") || !result["parts"].is_array())
                return inputError(at + ".parts must be an array");
            if (i >= limits.results) {
                ++omittedResults;
                continue;
            }
            json parts = json::array();
            for (std::size_t p = 0; p < result["parts"].size(); ++p) {
                auto part = recordedPart(result["parts"][p],
                                         at + ".parts[" + std::to_string(p) + "]", limits, budget);
                if (!part) return part.error();
                parts.push_back(std::move(*part));
            }
            results.push_back({{"main", result.value("main", false)}, {"parts", std::move(parts)}});
        }
    }
    out["results"] = std::move(results);
    if (omittedResults > 0) out["results_omitted"] = omittedResults;
    if (execution.contains("error") && !execution["error"].is_null()) {
        const json& error = execution["error"];
        if (!error.is_object()) return inputError(where + ".error must be an object");
        if (auto e = onlyFields(error, {"name", "value", "traceback"}, where + ".error")) return *e;
        json recorded = json::object();
        for (const char* field : {"name", "value", "traceback"}) {
            auto text = textField(error, field, where + ".error");
            if (!text) return text.error();
            recorded[field] = cut(*text, limits.traceback);
        }
        out["error"] = std::move(recorded);
    }
    return out;
}

} // namespace sb
