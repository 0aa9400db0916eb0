#include "e2b/ExecutionRecord.h"

#include "base/Bytes.h"

#include <array>
#include <utility>

namespace sb::e2b {

using json = nlohmann::json;

namespace {

// Well under a control frame (16 MiB): the supervisor keeps less still.
constexpr std::size_t kMaxText = std::size_t{1} << 20;
constexpr std::size_t kMaxPart = std::size_t{4} << 20;
constexpr std::size_t kMaxParts = std::size_t{8} << 20;
constexpr std::size_t kMaxResults = 64;

constexpr std::array<std::pair<const char*, const char*>, 12> kFormats = {{
    {"text", "text/plain"},
    {"html", "text/html"},
    {"markdown", "text/markdown"},
    {"svg", "image/svg+xml"},
    {"png", "image/png"},
    {"jpeg", "image/jpeg"},
    {"pdf", "application/pdf"},
    {"latex", "text/latex"},
    {"json", "application/json"},
    {"javascript", "application/javascript"},
    {"data", "e2b/data"},
    {"chart", "e2b/chart"},
}};

} // namespace

std::string mimeOfResultField(const std::string& field)
{
    for (const auto& [name, mime] : kFormats)
        if (field == name) return mime;
    return {};
}

ExecutionTranscript::ExecutionTranscript(std::string code, std::string context,
                                         std::string language)
    : m_code(std::move(code)), m_context(std::move(context)), m_language(std::move(language))
{
}

void ExecutionTranscript::addText(std::string& into, const std::string& text)
{
    if (into.size() >= kMaxText) return;
    into += text.substr(0, kMaxText - into.size());
}

void ExecutionTranscript::add(const json& line)
{
    const std::string type = line.value("type", "");
    if (type == "stdout") return addText(m_stdout, line.value("text", ""));
    if (type == "stderr") return addText(m_stderr, line.value("text", ""));
    if (type == "number_of_executions") {
        m_count = line.value("execution_count", std::int64_t{-1});
        return;
    }
    if (type == "error") {
        m_error = {{"name", line.value("name", "")},
                   {"value", line.value("value", "")},
                   {"traceback", line.value("traceback", "")}};
        m_error["traceback"] = m_error["traceback"].get<std::string>().substr(0, kMaxText);
        return;
    }
    if (type != "result") return;
    if (m_results.size() >= kMaxResults) {
        ++m_omitted;
        return;
    }
    json parts = json::array();
    // In the order of kFormats: pictures before their text stand-in is no matter, the reader
    // picks what it shows by type.
    for (const auto& [field, mime] : kFormats) {
        if (!line.contains(field)) continue;
        const json& value = line[field];
        const bool isJson = value.is_object() || value.is_array();
        const std::size_t size =
            isJson ? dumpJson(value).size() : value.get_ref<const std::string&>().size();
        if (size > kMaxPart || m_bytes + size > kMaxParts) {
            parts.push_back({{"mime", mime}, {"bytes", size}, {"omitted", "too large to record"}});
            continue;
        }
        m_bytes += size;
        const std::string_view m(mime);
        const char* key =
            isJson                                                                        ? "json"
            : (m.starts_with("image/") && m != "image/svg+xml") || m == "application/pdf" ? "base64"
                                                                                          : "text";
        parts.push_back({{"mime", mime}, {key, value}});
    }
    m_results.push_back(
        {{"main", line.value("is_main_result", false)}, {"parts", std::move(parts)}});
}

json ExecutionTranscript::record() const
{
    json out = {{"code", m_code.substr(0, kMaxText)},
                {"context", m_context},
                {"language", m_language},
                {"stdout", m_stdout},
                {"stderr", m_stderr},
                {"results", m_results},
                {"duration_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::steady_clock::now() - m_start)
                                    .count()}};
    if (m_count >= 0) out["execution_count"] = m_count;
    if (m_omitted > 0) out["results_omitted"] = m_omitted;
    if (!m_error.is_null()) out["error"] = m_error;
    return out;
}

} // namespace sb::e2b
