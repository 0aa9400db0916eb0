// A suggestion as a policy document a person reads before using it: the base's sections as
// policyToJson() writes them, each rule on a line of its own, every proposed rule under a
// comment with its evidence, risky ones commented out.
#include "learning/PolicySuggest.h"
#include "policy/PolicyJson.h"

#include <sstream>

namespace sb {
namespace {

// One line, with a space after each ':' and ',' (nlohmann's compact form has none).
std::string oneLine(const nlohmann::ordered_json& j)
{
    if (j.is_object()) {
        std::string out = "{";
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (it != j.begin()) out += ", ";
            out += nlohmann::json(it.key()).dump() + ": " + oneLine(it.value());
        }
        return out + "}";
    }
    if (j.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < j.size(); ++i)
            out += (i > 0 ? ", " : "") + oneLine(j[i]);
        return out + "]";
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::ordered_json ruleJson(const ProposedRule& p)
{
    // The base's own rules are written by policyToJson; a proposed one alone, the same way.
    Policy one;
    if (p.section == ProposedRule::Section::Commands) {
        one.commands.rules = {p.command};
        return policyToJson(one)["commands"]["rules"][0];
    }
    one.network.rules = {p.network};
    return policyToJson(one)["network"]["rules"][0];
}

// A comment stays on its line: control characters are written as escapes, and a long example
// is cut.
std::string commentSafe(std::string_view text)
{
    constexpr std::size_t kMax = 160;
    std::string out;
    for (char c : text) {
        if (out.size() >= kMax) {
            out += "…";
            break;
        }
        if (c == '\n')
            out += "\\n";
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += ' ';
        else
            out += c;
    }
    return out;
}

std::string evidenceText(const ProposedRule& p)
{
    std::string out = std::to_string(p.evidence.count) +
                      (p.evidence.count == 1 ? " time in " : " times in ") +
                      std::to_string(p.evidence.sessions.size()) +
                      (p.evidence.sessions.size() == 1 ? " session (" : " sessions (");
    for (std::size_t i = 0; i < p.evidence.sessions.size() && i < 3; ++i)
        out += (i > 0 ? ", " : "") + p.evidence.sessions[i];
    if (p.evidence.sessions.size() > 3) out += ", …";
    out += "), e.g. " + commentSafe(p.evidence.example);
    if (!p.note.empty()) out += "; " + p.note;
    return out;
}

// The rules of one section: the proposed ones placed before the base rule that asked.
void writeRules(std::ostream& out, const nlohmann::ordered_json& baseRules, const Suggestion& s,
                ProposedRule::Section section, bool includeRisky, const std::string& indent)
{
    struct Line {
        std::string comment, element; // element empty: a comment alone
    };
    std::vector<Line> lines;
    auto proposedBefore = [&](int index) {
        for (const ProposedRule& p : s.rules) {
            if (p.section != section || p.before != index) continue;
            const std::string rule = oneLine(ruleJson(p));
            if (p.risk.empty() || includeRisky)
                lines.push_back(
                    {"proposed: " + evidenceText(p) + (p.risk.empty() ? "" : "; risky: " + p.risk),
                     rule});
            else
                lines.push_back({"not proposed (" + p.risk + "; --include-risky adds it): " + rule +
                                     "; " + evidenceText(p),
                                 {}});
        }
    };
    for (std::size_t i = 0; i < baseRules.size(); ++i) {
        proposedBefore(static_cast<int>(i));
        lines.push_back({{}, oneLine(baseRules[i])});
    }
    proposedBefore(-1);
    std::size_t elements = 0;
    for (const Line& l : lines)
        elements += l.element.empty() ? 0 : 1;
    out << "[";
    if (lines.empty()) {
        out << "]";
        return;
    }
    out << "\n";
    std::size_t written = 0;
    for (const Line& l : lines) {
        if (!l.comment.empty()) out << indent << "  // " << l.comment << "\n";
        if (l.element.empty()) continue;
        out << indent << "  " << l.element << (++written < elements ? "," : "") << "\n";
    }
    out << indent << "]";
}

// A value written by nlohmann with two spaces, its lines after the first indented further.
std::string indented(const nlohmann::ordered_json& value, const std::string& indent)
{
    std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string out;
    for (char c : text) {
        out += c;
        if (c == '\n') out += indent;
    }
    return out;
}

} // namespace

std::string renderSuggestion(const Suggestion& s, bool includeRisky)
{
    const nlohmann::ordered_json doc = policyToJson(s.base);
    std::ostringstream out;
    out << "// Suggested by sandbench-cli policy suggest: the base policy, and rules for what the\n"
           "// recorded sessions did that it would ask about. Read each before you use it.\n{\n";
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        out << "  " << nlohmann::json(it.key()).dump() << ": ";
        const bool withRules = (it.key() == "commands" || it.key() == "network") &&
                               it.value().is_object() && it.value().contains("rules");
        if (!withRules) {
            out << indented(it.value(), "  ");
        } else {
            out << "{\n";
            const auto& section = it.value();
            for (auto field = section.begin(); field != section.end(); ++field) {
                out << "    " << nlohmann::json(field.key()).dump() << ": ";
                if (field.key() == "rules")
                    writeRules(out, field.value(), s,
                               it.key() == "commands" ? ProposedRule::Section::Commands
                                                      : ProposedRule::Section::Network,
                               includeRisky, "    ");
                else
                    out << indented(field.value(), "    ");
                out << (std::next(field) != section.end() ? ",\n" : "\n");
            }
            out << "  }";
        }
        out << (std::next(it) != doc.end() ? ",\n" : "\n");
    }
    out << "}\n";
    return out.str();
}

nlohmann::json suggestionJson(const Suggestion& s)
{
    nlohmann::json proposed = nlohmann::json::array();
    for (const ProposedRule& p : s.rules) {
        nlohmann::json entry = {
            {"section", p.section == ProposedRule::Section::Commands ? "commands" : "network"},
            {"rule", nlohmann::json(ruleJson(p))},
            {"before", p.before},
            {"evidence",
             {{"count", p.evidence.count},
              {"sessions", p.evidence.sessions},
              {"example", p.evidence.example},
              {"example_at",
               {{"session", p.evidence.exampleSession}, {"t_ns", p.evidence.exampleTNs}}}}},
            {"proposed", p.risk.empty()}};
        if (!p.risk.empty()) entry["risk"] = p.risk;
        if (!p.note.empty()) entry["note"] = p.note;
        proposed.push_back(std::move(entry));
    }
    return {{"proposed", proposed}};
}

} // namespace sb
