#include "ExecutionSummary.h"

#include "base/Bytes.h"
#include "recording/RecordingTypes.h"

#include <cstdio>
#include <string>

namespace sbcli {

using json = nlohmann::json;

namespace {

// The first line of `text`, at most `width` characters' worth of bytes, with "…" when cut.
std::string firstLine(const std::string& text, std::size_t width = 72)
{
    std::string line = text.substr(0, text.find('\n'));
    const bool more = line.size() < text.size() &&
                      text.find_first_not_of(" \n", line.size()) != std::string::npos;
    if (line.size() > width)
        return std::string(sb::completeUtf8Prefix(line.substr(0, width))) + "…";
    return more ? line + " …" : line;
}

std::string sizeText(std::uint64_t bytes)
{
    if (bytes < 1024) return std::to_string(bytes) + " B";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
    return buffer;
}

std::string partText(const json& part)
{
    std::string out = part.value("mime", "?");
    if (part.contains("omitted"))
        return out + " (" + sizeText(part.value("bytes", 0ULL)) +
               ", not recorded: " + part.value("omitted", "") + ")";
    if (part.contains("text") && part["text"].is_string() && out != "text/html" &&
        out != "image/svg+xml")
        return out + " " +
               json(firstLine(part["text"].get<std::string>(), 48))
                   .dump(-1, ' ', false, json::error_handler_t::replace);
    out += " " + sizeText(part.value("bytes", 0ULL));
    if (part.value("truncated", false)) out += " (cut)";
    return out;
}

} // namespace

sb::Result<json> loadExecutions(sb::RecordingStore& store, const std::string& id)
{
    json out = json::array();
    if (auto e = store.forEachStructuredEvent(id, [&](const sb::RecordedEvent& event) {
            if (event.kind != sb::EventKind::CodeExecution) return true;
            json j = json::parse(event.data, nullptr, false);
            if (j.is_object()) {
                j["t_ns"] = event.tNs;
                out.push_back(std::move(j));
            }
            return true;
        }))
        return *e;
    return out;
}

void printExecutions(const json& executions)
{
    if (executions.empty()) return;
    std::printf("code executions (%zu)\n", executions.size());
    for (const json& x : executions) {
        const std::string count =
            x.contains("execution_count") ? "[" + x["execution_count"].dump() + "]" : "[-]";
        std::string where = x.value("language", "");
        if (where.empty()) where = "python";
        const std::string context = x.value("context", "");
        where += context.empty() ? " (default context)" : " (context " + context + ")";
        std::printf("  %s %s: %s\n", count.c_str(), where.c_str(),
                    firstLine(x.value("code", "")).c_str());
        const json& results = x.contains("results") ? x["results"] : json::array();
        for (std::size_t i = 0; i < results.size(); ++i) {
            std::string parts;
            for (const json& part : results[i].value("parts", json::array()))
                parts += (parts.empty() ? "" : ", ") + partText(part);
            std::printf("      result %zu%s: %s\n", i + 1,
                        results[i].value("main", false) ? " (main)" : "", parts.c_str());
        }
        if (x.contains("results_omitted"))
            std::printf("      %s more result(s) not recorded\n",
                        x["results_omitted"].dump().c_str());
        if (x.contains("error") && x["error"].is_object())
            std::printf("      error %s: %s\n", x["error"].value("name", "").c_str(),
                        firstLine(x["error"].value("value", "")).c_str());
    }
}

} // namespace sbcli
