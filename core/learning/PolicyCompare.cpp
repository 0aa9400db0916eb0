#include "learning/PolicyCompare.h"

#include "learning/RecordedJson.h"
#include "recording/RecordingStore.h"

#include <filesystem>

namespace sb {
namespace {

using recorded::text;

std::string words(const nlohmann::json& argv)
{
    std::string out;
    if (!argv.is_array()) return out;
    for (const auto& a : argv)
        if (a.is_string()) out += (out.empty() ? "" : " ") + a.get<std::string>();
    return out;
}

// What a decision was about, in a few words.
std::string subject(const nlohmann::json& j, bool command)
{
    if (command) return j.contains("argv") ? words(j["argv"]) : text(j, "program");
    std::string host = text(j, "host");
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    std::string out = host + ":" + std::to_string(j.value("port", 0));
    if (auto p = j.find("process");
        p != j.end() && p->is_array() && !p->empty() && p->front().is_object())
        out += " by " + std::filesystem::path(text(p->front(), "program")).filename().string();
    return out;
}

} // namespace

Result<Comparison> comparePolicies(RecordingStore& store, const std::string& session)
{
    Comparison out;
    auto visit = [&](const RecordedEvent& event) {
        const bool command = event.kind == EventKind::ExecDecision;
        if (!command && event.kind != EventKind::NetworkDecision) return true;
        auto j = nlohmann::json::parse(event.data, nullptr, false);
        if (!j.is_object()) return true;
        auto shadow = j.find("shadow");
        if (shadow == j.end() || !shadow->is_object()) return true;
        // What the enforced policy said: an ask is an ask however it was answered (or would
        // have been, observing).
        std::string current = text(j, "decision");
        if (j.value("asked", false) || j.value("would_ask", false)) current = "ask";
        const std::string candidate = text(*shadow, "decision");
        ++out.decisions;
        out.currentAsks += current == "ask" ? 1 : 0;
        out.candidateAsks += candidate == "ask" ? 1 : 0;
        if (current == candidate) return true;
        const std::string line = subject(j, command) + ": " + current + " → " + candidate + " (" +
                                 text(*shadow, "rule") + ")";
        if (candidate == "allow")
            (current == "deny" ? out.allowedWhereDenied : out.allowedWhereAsked).push_back(line);
        else if (current == "allow")
            (candidate == "deny" ? out.deniedWhereAllowed : out.askedWhereAllowed).push_back(line);
        else
            out.otherDifferences.push_back(line);
        return true;
    };
    if (auto found = store.session(session); !found) return found.error();
    if (auto e = store.forEachStructuredEvent(session, visit)) return *e;
    if (out.decisions == 0)
        return Error{ErrorCode::InvalidInput, 0,
                     "session " + session +
                         " has no decisions with a candidate beside them: run it with --shadow "
                         "FILE"};
    return out;
}

std::string summarise(const Comparison& c)
{
    auto things = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " thing" : " things"); };
    std::string out = "The candidate would have asked ";
    if (c.candidateAsks < c.currentAsks)
        out += std::to_string(c.currentAsks - c.candidateAsks) + " time(s) fewer";
    else if (c.candidateAsks > c.currentAsks)
        out += std::to_string(c.candidateAsks - c.currentAsks) + " time(s) more";
    else
        out += "as often";
    out += " (" + std::to_string(c.candidateAsks) + " instead of " + std::to_string(c.currentAsks) +
           ", of " + std::to_string(c.decisions) + " decisions)";
    std::vector<std::string> parts;
    if (!c.allowedWhereDenied.empty())
        parts.push_back("allowed " + things(c.allowedWhereDenied.size()) +
                        " the current policy denied");
    if (!c.deniedWhereAllowed.empty())
        parts.push_back("denied " + things(c.deniedWhereAllowed.size()) +
                        " the current policy allowed");
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return out + ".";
}

nlohmann::json toJson(const Comparison& c)
{
    return {{"decisions", c.decisions},
            {"current_asks", c.currentAsks},
            {"candidate_asks", c.candidateAsks},
            {"allowed_where_denied", c.allowedWhereDenied},
            {"denied_where_allowed", c.deniedWhereAllowed},
            {"allowed_where_asked", c.allowedWhereAsked},
            {"asked_where_allowed", c.askedWhereAllowed},
            {"other_differences", c.otherDifferences},
            {"summary", summarise(c)}};
}

} // namespace sb
