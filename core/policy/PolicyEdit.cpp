#include "policy/PolicyEdit.h"

#include "base/AtomicFile.h"
#include "base/JsonLayout.h"
#include "base/JsonLocator.h"
#include "policy/PolicyJson.h"

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace sb {
namespace {

using namespace jsonlayout;

// The document's top-level order, where a missing section goes.
const std::vector<std::string> kSectionOrder = {"version",   "filesystem", "network", "commands",
                                                "approvals", "limits",     "env",     "secrets"};

struct Edit {
    std::size_t begin = 0, end = 0;
    std::string text;
};

// A value to write for a key that is not in the document yet, for the indentation of the key's
// line and for a one-line or a several-line object.
using ValueWriter = std::function<std::string(const std::string& indent, bool multiLine)>;

struct NewMember {
    std::string key;
    ValueWriter value;
};

Members membersOf(const CommandRule& r)
{
    Members m = {{"action", jsonString(toString(r.action))}, {"match", jsonString(r.match)}};
    if (!r.comment.empty()) m.emplace_back("comment", jsonString(r.comment));
    return m;
}

Members membersOf(const NetworkRule& r)
{
    Members m = {{"action", jsonString(toString(r.action))}, {"host", jsonString(r.host)}};
    if (!r.ports.empty()) {
        std::string ports;
        for (std::uint16_t p : r.ports)
            ports += (ports.empty() ? "" : ", ") + std::to_string(p);
        m.emplace_back("ports", "[" + ports + "]");
    }
    if (!r.program.empty()) m.emplace_back("program", jsonString(r.program));
    if (!r.command.empty()) m.emplace_back("command", jsonString(r.command));
    if (!r.comment.empty()) m.emplace_back("comment", jsonString(r.comment));
    return m;
}

bool sameRule(const CommandRule& a, const CommandRule& b)
{
    return a.action == b.action && a.match == b.match && a.comment == b.comment;
}

// `program` and `command` are left out on purpose: the window's editor does not carry them yet,
// and a rule it sends back must keep its text (its program with it) rather than be written anew
// without it, which would widen it. The read-back check then refuses such a save as a whole.
bool sameRule(const NetworkRule& a, const NetworkRule& b)
{
    return a.action == b.action && a.host == b.host && a.ports == b.ports && a.comment == b.comment;
}

template <class Rule> bool sameRules(const std::vector<Rule>& a, const std::vector<Rule>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Rule& x, const Rule& y) { return sameRule(x, y); });
}

template <class Rule>
std::string ruleText(const Rule& rule, const std::string& indent, bool multiLineAllowed,
                     const Style& s)
{
    return objectText(membersOf(rule), multiLineAllowed && s.prettyRules, indent, s);
}

template <class Rule> ValueWriter rulesWriter(const std::vector<Rule>& rules, const Style& s)
{
    return [rules, s](const std::string& indent, bool multiLine) {
        std::vector<std::string> items;
        for (const Rule& r : rules)
            items.push_back(ruleText(r, indent + s.unit, multiLine, s));
        return arrayText(items, multiLine, indent, s);
    };
}

ValueWriter scalarWriter(std::string text)
{
    return [text](const std::string&, bool) { return text; };
}

// One key of a section: whether it changed, how to change it in place, how to write it anew.
struct Key {
    std::string name;
    bool changed = false;
    std::function<void(const std::string& pointer)> replace;
    ValueWriter value;
};

class Rewriter {
  public:
    Rewriter(std::string_view text, const json& root) : m_text(text), m_root(root), m_locator(text)
    {
        detectStyle();
    }

    const Style& style() const { return m_style; }

    // A changed scalar, replaced where it stands.
    void replaceValue(const std::string& pointer, const std::string& text)
    {
        const auto span = *m_locator.span(pointer);
        m_edits.push_back({span.begin, span.end, text});
    }

    // Collects the edits of one section; a section missing altogether is inserted at the end.
    void section(const std::string& name, std::vector<Key> keys)
    {
        const std::string pointer = "/" + name;
        std::vector<std::string> order;
        std::vector<NewMember> missing;
        for (Key& k : keys) {
            order.push_back(k.name);
            if (!k.changed) continue;
            const std::string at = appendPointer(pointer, k.name);
            if (m_locator.span(at))
                k.replace(at);
            else
                missing.push_back({k.name, k.value});
        }
        if (missing.empty()) return;
        if (m_locator.span(pointer)) return insertMembers(pointer, order, std::move(missing));
        m_missingSections.push_back(
            {name, [missing, s = m_style](const std::string& indent, bool multiLine) {
                 Members m;
                 for (const NewMember& k : missing)
                     m.emplace_back(k.key, k.value(indent + s.unit, multiLine));
                 return objectText(m, multiLine, indent, s);
             }});
    }

    template <class Rule>
    void rewriteRules(const std::string& pointer, const std::vector<Rule>& old,
                      const std::vector<Rule>& wanted);

    Result<std::string> finish()
    {
        if (!m_missingSections.empty())
            insertMembers("", kSectionOrder, std::move(m_missingSections));
        std::sort(m_edits.begin(), m_edits.end(), [](const Edit& a, const Edit& b) {
            return a.begin != b.begin ? a.begin > b.begin : a.end > b.end;
        });
        std::string out(m_text);
        std::size_t limit = out.size();
        for (const Edit& e : m_edits) {
            if (e.end > limit || e.begin > e.end)
                return Error{ErrorCode::Internal, 0, "overlapping edits of the policy document"};
            out.replace(e.begin, e.end - e.begin, e.text);
            limit = e.begin;
        }
        return out;
    }

  private:
    struct Piece {           // one rule of an array whose rules each start a line
        std::size_t begin;   // the start of its first line (comments above it included)
        std::size_t itemEnd; // past the rule itself
        std::size_t comma;   // its comma, npos for the last rule
        std::size_t end;     // past the line break ending the line where it ends
    };

    bool spansLines(const JsonLocator::Span& span) const
    {
        return m_text.substr(span.begin, span.end - span.begin).find('\n') != npos;
    }

    void detectStyle()
    {
        const std::size_t nl = m_text.find('\n');
        if (nl != npos && nl > 0 && m_text[nl - 1] == '\r') m_style.nl = "\r\n";
        const auto root = m_locator.span("");
        m_style.multiLine = root && spansLines(*root);
        if (root && m_style.multiLine) {
            std::size_t first = npos;
            for (const auto& [key, value] : m_root.items())
                if (auto s = m_locator.span(appendPointer("", key)))
                    first = std::min(first, s->key);
            const std::string outer = indentOf(m_text, root->begin);
            if (first != npos && startsLine(m_text, first)) {
                std::string indent = indentOf(m_text, first);
                if (indent.starts_with(outer) && indent.size() > outer.size())
                    m_style.unit = indent.substr(outer.size());
            }
        }
        std::optional<JsonLocator::Span> rule;
        for (const char* p : {"/network/rules/0", "/commands/rules/0"})
            if (auto s = m_locator.span(p); s && (!rule || s->begin < rule->begin)) rule = s;
        if (rule) {
            m_style.prettyRules = spansLines(*rule);
            m_style.spaced = m_text[rule->begin + 1] == ' ';
        } else {
            auto count = [&](std::string_view what) {
                std::size_t n = 0;
                for (std::size_t at = m_text.find(what); at != npos; at = m_text.find(what, at + 1))
                    ++n;
                return n;
            };
            m_style.spaced = count("{ \"") >= count("{\"");
        }
    }

    // The keys of the object at `pointer` and where they are, in document order.
    std::vector<std::pair<std::string, JsonLocator::Span>>
    membersAt(const std::string& pointer) const
    {
        const json& object = pointer.empty() ? m_root : m_root.at(json::json_pointer(pointer));
        std::vector<std::pair<std::string, JsonLocator::Span>> found;
        for (const auto& [key, value] : object.items())
            if (auto s = m_locator.span(appendPointer(pointer, key))) found.emplace_back(key, *s);
        std::sort(found.begin(), found.end(),
                  [](const auto& a, const auto& b) { return a.second.key < b.second.key; });
        return found;
    }

    std::string member(const NewMember& m, const std::string& indent, bool multiLine) const
    {
        return jsonString(m.key) + ": " + m.value(indent, multiLine);
    }

    // Inserts `added` (in `order`) into the object at `pointer`, each after the member that
    // precedes it in `order`, or before the first member.
    void insertMembers(const std::string& pointer, const std::vector<std::string>& order,
                       std::vector<NewMember> added)
    {
        const auto object = *m_locator.span(pointer);
        const bool multi = spansLines(object);
        const std::string outer = indentOf(m_text, object.key);
        const auto existing = membersAt(pointer);
        if (existing.empty()) {
            Members m;
            for (const NewMember& a : added)
                m.emplace_back(a.key, a.value(outer + m_style.unit, m_style.multiLine));
            m_edits.push_back(
                {object.begin, object.end, objectText(m, m_style.multiLine, outer, m_style)});
            return;
        }
        auto rank = [&](const std::string& key) {
            return std::find(order.begin(), order.end(), key) - order.begin();
        };
        std::map<int, std::vector<NewMember>> groups; // by anchor; -1: before the first member
        for (NewMember& a : added) {
            int anchor = -1;
            for (std::size_t i = 0; i < existing.size(); ++i) {
                const auto r = rank(existing[i].first);
                if (r < rank(a.key) &&
                    (anchor < 0 || r >= rank(existing[static_cast<std::size_t>(anchor)].first)))
                    anchor = static_cast<int>(i);
            }
            groups[anchor].push_back(std::move(a));
        }
        for (const auto& [anchor, group] : groups) {
            if (anchor < 0)
                insertBefore(object, existing.front().second, group, multi, outer);
            else
                insertAfter(existing[static_cast<std::size_t>(anchor)].second, group, multi, outer);
        }
    }

    std::string memberIndent(const JsonLocator::Span& m, bool multi, const std::string& outer)
    {
        return multi && startsLine(m_text, m.key) ? indentOf(m_text, m.key) : outer + m_style.unit;
    }

    void insertBefore(const JsonLocator::Span& object, const JsonLocator::Span& first,
                      const std::vector<NewMember>& group, bool multi, const std::string& outer)
    {
        const std::string indent = memberIndent(first, multi, outer);
        std::string out;
        if (multi && startsLine(m_text, first.key)) {
            // Just below the opening brace's line: above the first member's own comments.
            std::size_t at = lineStart(m_text, first.key);
            if (const std::size_t brk = lineBreakIn(m_text, object.begin + 1); brk < first.key)
                at = brk + 1;
            for (const NewMember& m : group)
                out += indent + member(m, indent, true) + "," + m_style.nl;
            m_edits.push_back({at, at, out});
            return;
        }
        for (const NewMember& m : group)
            out += member(m, indent, false) + ", ";
        m_edits.push_back({first.key, first.key, out});
    }

    void insertAfter(const JsonLocator::Span& anchor, const std::vector<NewMember>& group,
                     bool multi, const std::string& outer)
    {
        const std::string indent = memberIndent(anchor, multi, outer);
        const std::size_t next = skipTrivia(m_text, anchor.end);
        std::string out;
        if (next < m_text.size() && m_text[next] == ',') {
            // On the lines after the anchor's (its comment stays with it), or on its line.
            if (const std::size_t brk = multi ? lineBreakIn(m_text, next + 1) : npos; brk != npos) {
                for (const NewMember& m : group)
                    out += indent + member(m, indent, true) + "," + m_style.nl;
                m_edits.push_back({brk + 1, brk + 1, out});
            } else {
                for (const NewMember& m : group)
                    out += " " + member(m, indent, false) + ",";
                m_edits.push_back({next + 1, next + 1, out});
            }
            return;
        }
        // After the last member: a comma for it, the new members after its line's comment.
        std::size_t brk = multi ? lineBreakIn(m_text, anchor.end) : npos;
        if (brk != npos) {
            if (brk > anchor.end && m_text[brk - 1] == '\r') --brk;
            out = "," + std::string(m_text.substr(anchor.end, brk - anchor.end));
            for (const NewMember& m : group)
                out += (&m == &group.front() ? "" : ",") + m_style.nl + indent +
                       member(m, indent, true);
            m_edits.push_back({anchor.end, brk, out});
            return;
        }
        for (const NewMember& m : group)
            out += ", " + member(m, indent, false);
        m_edits.push_back({anchor.end, anchor.end, out});
    }

    // The rules of an array as whole lines, when each starts a line of its own and the array's
    // brackets have lines of their own.
    std::optional<std::vector<Piece>> linePieces(const JsonLocator::Span& array,
                                                 const std::vector<JsonLocator::Span>& items) const
    {
        const std::size_t open = lineBreakIn(m_text, array.begin + 1);
        if (open == npos) return std::nullopt;
        std::vector<Piece> pieces;
        std::size_t start = open + 1;
        for (std::size_t i = 0; i < items.size(); ++i) {
            std::size_t comma = npos, from = items[i].end;
            if (i + 1 < items.size()) {
                comma = skipTrivia(m_text, items[i].end);
                from = comma + 1;
            }
            const std::size_t brk = lineBreakIn(m_text, from);
            if (brk == npos) return std::nullopt; // the next rule or the bracket on this line
            pieces.push_back({start, items[i].end, comma, brk + 1});
            start = brk + 1;
        }
        return pieces;
    }

    std::string_view slice(std::size_t begin, std::size_t end) const
    {
        return m_text.substr(begin, end - begin);
    }

    std::string_view m_text;
    const json& m_root;
    JsonLocator m_locator;
    Style m_style;
    std::vector<Edit> m_edits;
    std::vector<NewMember> m_missingSections;
};

template <class Rule>
void Rewriter::rewriteRules(const std::string& pointer, const std::vector<Rule>& old,
                            const std::vector<Rule>& wanted)
{
    const auto array = *m_locator.span(pointer);
    const std::string keyIndent = indentOf(m_text, array.key);
    std::vector<JsonLocator::Span> items;
    for (std::size_t i = 0; i < old.size(); ++i)
        items.push_back(*m_locator.span(appendPointer(pointer, std::to_string(i))));
    // Each wanted rule keeps the text of the first unused document rule equal to it.
    std::vector<int> from(wanted.size(), -1);
    std::vector<bool> used(old.size(), false);
    for (std::size_t j = 0; j < wanted.size(); ++j)
        for (std::size_t i = 0; i < old.size(); ++i)
            if (!used[i] && sameRule(old[i], wanted[j])) {
                used[i] = true;
                from[j] = static_cast<int>(i);
                break;
            }
    const std::string parent = pointer.substr(0, pointer.rfind('/'));
    const bool parentMulti = spansLines(*m_locator.span(parent));

    if (old.empty()) {
        m_edits.push_back(
            {array.begin, array.end, rulesWriter(wanted, m_style)(keyIndent, parentMulti)});
        return;
    }
    if (auto pieces = linePieces(array, items)) {
        const std::string indent = indentOf(m_text, items[0].begin);
        std::string body;
        for (std::size_t j = 0; j < wanted.size(); ++j) {
            const bool comma = j + 1 < wanted.size();
            if (from[j] < 0) {
                body += indent + ruleText(wanted[j], indent, true, m_style) + (comma ? "," : "") +
                        m_style.nl;
                continue;
            }
            const Piece& p = (*pieces)[static_cast<std::size_t>(from[j])];
            if (p.comma == npos)
                body += std::string(slice(p.begin, p.itemEnd)) + (comma ? "," : "") +
                        std::string(slice(p.itemEnd, p.end));
            else if (comma)
                body += slice(p.begin, p.end);
            else
                body +=
                    std::string(slice(p.begin, p.comma)) + std::string(slice(p.comma + 1, p.end));
        }
        const std::string_view opening = slice(array.begin, pieces->front().begin);
        const std::string_view closing = slice(pieces->back().end, array.end);
        if (wanted.empty() && blank(opening.substr(1)) &&
            blank(closing.substr(0, closing.size() - 1)))
            m_edits.push_back({array.begin, array.end, "[]"});
        else
            m_edits.push_back(
                {array.begin, array.end, std::string(opening) + body + std::string(closing)});
        return;
    }
    // Rules sharing lines: the array is written anew, keeping each kept rule's own text.
    const bool oneLine = !spansLines(array);
    const std::string indent = !oneLine && startsLine(m_text, items[0].begin)
                                   ? indentOf(m_text, items[0].begin)
                                   : keyIndent + m_style.unit;
    std::vector<std::string> texts;
    for (std::size_t j = 0; j < wanted.size(); ++j)
        texts.push_back(from[j] >= 0
                            ? std::string(slice(items[static_cast<std::size_t>(from[j])].begin,
                                                items[static_cast<std::size_t>(from[j])].end))
                            : ruleText(wanted[j], indent, !oneLine, m_style));
    std::string out;
    if (texts.empty()) {
        out = "[]";
    } else if (oneLine) {
        const std::string pad = m_text[array.begin + 1] == ' ' ? " " : "";
        for (const std::string& t : texts)
            out += (out.empty() ? "" : ", ") + t;
        out = "[" + pad + out + pad + "]";
    } else {
        out = "[" + m_style.nl;
        for (std::size_t j = 0; j < texts.size(); ++j)
            out += indent + texts[j] + (j + 1 < texts.size() ? "," : "") + m_style.nl;
        out += keyIndent + "]";
    }
    m_edits.push_back({array.begin, array.end, out});
}

std::string actionText(RuleAction action)
{
    return jsonString(toString(action));
}

Result<std::string> rewrite(std::string_view text, const Policy& old, const Policy& wanted)
{
    const json root = json::parse(text, nullptr, false, /*ignore_comments=*/true);
    Rewriter r(text, root);
    const Style& s = r.style();
    const NetworkPolicy &on = old.network, &wn = wanted.network;
    const CommandPolicy &oc = old.commands, &wc = wanted.commands;
    const ApprovalPolicy &oa = old.approvals, &wa = wanted.approvals;
    auto scalar = [&r](std::string value) {
        return [&r, value](const std::string& at) { r.replaceValue(at, value); };
    };
    const std::string mode = jsonString(toString(wn.mode)),
                      netDefault = actionText(wn.defaultAction),
                      cmdDefault = actionText(wc.defaultAction),
                      timeout = std::to_string(wa.timeoutSeconds),
                      onTimeout = actionText(wa.onTimeout);
    r.section("network", {{"mode", on.mode != wn.mode, scalar(mode), scalarWriter(mode)},
                          {"default", on.defaultAction != wn.defaultAction, scalar(netDefault),
                           scalarWriter(netDefault)},
                          {"rules", !sameRules(on.rules, wn.rules),
                           [&](const std::string& at) { r.rewriteRules(at, on.rules, wn.rules); },
                           rulesWriter(wn.rules, s)}});
    r.section("commands", {{"default", oc.defaultAction != wc.defaultAction, scalar(cmdDefault),
                            scalarWriter(cmdDefault)},
                           {"rules", !sameRules(oc.rules, wc.rules),
                            [&](const std::string& at) { r.rewriteRules(at, oc.rules, wc.rules); },
                            rulesWriter(wc.rules, s)}});
    r.section("approvals", {{"timeout_seconds", oa.timeoutSeconds != wa.timeoutSeconds,
                             scalar(timeout), scalarWriter(timeout)},
                            {"on_timeout", oa.onTimeout != wa.onTimeout, scalar(onTimeout),
                             scalarWriter(onTimeout)}});
    return r.finish();
}

} // namespace

Result<std::string> rewritePolicyRules(std::string_view text, std::string_view origin,
                                       const Policy& policy)
{
    auto old = parsePolicy(text, origin);
    if (!old) return old.error();
    Policy expected = *old;
    expected.network = policy.network;
    expected.commands = policy.commands;
    expected.approvals = policy.approvals;
    const auto wanted = policyToJson(expected);
    // The new sections on their own first, so that their mistakes are named as theirs.
    if (auto valid = parsePolicy(wanted.dump(2), "the edited policy"); !valid) return valid.error();
    auto out = rewrite(text, *old, expected);
    if (!out) return out;
    auto back = parsePolicy(*out, origin);
    if (!back || policyToJson(*back) != wanted)
        return Error{ErrorCode::Internal, 0,
                     std::string(origin) +
                         ": the rewritten document would not read back as the edited policy, so "
                         "it was left as it is" +
                         (back ? "" : " (" + back.error().message + ")")};
    return out;
}

Status savePolicyFile(const fs::path& file, std::string_view text)
{
    if (auto policy = parsePolicy(text, file.string()); !policy) return policy.error();
    std::error_code ec;
    // The link stays a link; the file it names is replaced. A missing file is created (Save As).
    const fs::file_status status = fs::symlink_status(file, ec);
    if (ec && status.type() != fs::file_type::not_found)
        return Error{ErrorCode::System, ec.value(), "resolve '" + file.string() + "'"};
    ec.clear();
    const fs::path target = fs::is_symlink(status) ? fs::canonical(file, ec) : file;
    if (ec) return Error{ErrorCode::System, ec.value(), "resolve '" + file.string() + "'"};
    return writeFileAtomically(target, text);
}

} // namespace sb
