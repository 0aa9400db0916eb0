#include "policy/LearnedRules.h"

#include "base/AtomicFile.h"
#include "base/JsonLocator.h"
#include "base/Paths.h"
#include "base/UniqueFd.h"
#include "policy/ClientPattern.h"
#include "policy/CommandRules.h"
#include "policy/PolicyRules.h"
#include "policy/SchemaChecker.h"

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <fnmatch.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace sb {
namespace {

constexpr std::size_t kMaxLearnedBytes = 1024 * 1024;

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view baseName(std::string_view path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Without the public suffix list: the last two labels, or three under a two-letter country code
// whose second level is a generic one ("bbc.co.uk", "example.com.au"). Wrong for rare suffixes,
// and then too narrow rather than too broad.
std::string registrableDomain(const std::string& host)
{
    std::vector<std::string_view> labels;
    for (std::size_t start = 0; start <= host.size();) {
        std::size_t dot = host.find('.', start);
        if (dot == std::string::npos) dot = host.size();
        labels.push_back(std::string_view(host).substr(start, dot - start));
        start = dot + 1;
    }
    static constexpr std::string_view kGenericSecondLevel[] = {"co",  "com", "net", "org", "gov",
                                                               "edu", "ac",  "or",  "ne",  "go"};
    std::size_t keep = 2;
    if (labels.size() >= 3 && labels.back().size() == 2 &&
        std::find(std::begin(kGenericSecondLevel), std::end(kGenericSecondLevel),
                  labels[labels.size() - 2]) != std::end(kGenericSecondLevel))
        keep = 3;
    keep = std::min(keep, labels.size());
    std::string out;
    for (std::size_t i = labels.size() - keep; i < labels.size(); ++i)
        out += (out.empty() ? "" : ".") + std::string(labels[i]);
    return out;
}

std::string commandLine(const ApprovalRequest& r)
{
    std::string out =
        quoteCommandWord(r.program.empty() && !r.argv.empty() ? r.argv[0] : r.program);
    for (std::size_t i = 1; i < r.argv.size(); ++i)
        out += ' ' + quoteCommandWord(r.argv[i]);
    return out;
}

std::string learnedComment(const ApprovalRequest& r, const ApprovalAnswer& a)
{
    std::string what =
        r.kind == ApprovalKind::Command ? commandLine(r) : r.host + ':' + std::to_string(r.port);
    if (r.kind == ApprovalKind::Network && !r.process.empty())
        what += " from " + r.process.front().program;
    if (what.size() > 200) what = what.substr(0, 197) + "...";
    return std::string("learned: ") + (a.allow ? "allowed" : "denied") + " always" +
           (a.answeredBy.empty() ? "" : " by " + a.answeredBy) + " when asked about " + what;
}

Result<LearnedRule> commandRuleFromAnswer(const ApprovalRequest& r, const ApprovalAnswer& a)
{
    const std::string program = r.program.empty() && !r.argv.empty() ? r.argv[0] : r.program;
    if (program.empty()) return inputError("the approval request names no program");
    if (a.programOnly)
        return inputError("\"this program only\" applies to connections; a command's scope "
                          "names its program already");
    CommandRule rule;
    rule.action = a.allow ? RuleAction::Allow : RuleAction::Deny;
    rule.comment = learnedComment(r, a);
    switch (a.scope) {
    case ApprovalScope::ExactCommand:
        rule.match = quoteCommandWord(program);
        for (std::size_t i = 1; i < r.argv.size(); ++i)
            rule.match += ' ' + quoteCommandWord(r.argv[i]);
        break;
    case ApprovalScope::Subcommand:
        if (r.argv.size() < 2)
            return inputError("'" + program +
                              "' was run without arguments, so it has no "
                              "subcommand (expected scope exact or any arguments)");
        rule.match = quoteCommandWord(baseName(program)) + ' ' + quoteCommandWord(r.argv[1]) + " *";
        break;
    case ApprovalScope::AnyArguments:
        rule.match = quoteCommandWord(baseName(program)) + " *";
        break;
    default:
        return inputError("a host scope does not apply to a command (expected exact, subcommand "
                          "or any arguments)");
    }
    // The rule must at least decide the very command it was made from.
    auto pattern = parseCommandPattern(rule.match);
    if (!pattern || !matchesCommand(*pattern, program, r.argv))
        return Error{ErrorCode::Internal, 0,
                     "the rule '" + rule.match + "' does not match '" + commandLine(r) + "'"};
    return LearnedRule(std::move(rule));
}

Result<LearnedRule> networkRuleFromAnswer(const ApprovalRequest& r, const ApprovalAnswer& a)
{
    // Host names are case-insensitive and "example.com." is "example.com".
    std::string host = lower(r.host);
    if (host.ends_with('.')) host.pop_back();
    auto kind = checkHostPattern(host);
    if (!kind) return inputError("cannot make a rule for host " + kind.error().message);
    const bool address = *kind == HostPatternKind::IPv4 || *kind == HostPatternKind::IPv6;
    if (!address && *kind != HostPatternKind::Name)
        return inputError("cannot make a rule for host '" + r.host +
                          "' (expected a name or an "
                          "address)");
    NetworkRule rule;
    rule.action = a.allow ? RuleAction::Allow : RuleAction::Deny;
    rule.comment = learnedComment(r, a);
    switch (a.scope) {
    case ApprovalScope::HostPort:
        if (r.port == 0) return inputError("the approval request names no port");
        rule.host = host;
        rule.ports = {r.port};
        break;
    case ApprovalScope::Host:
        rule.host = host;
        break;
    case ApprovalScope::Domain:
        if (address)
            return inputError("'" + host +
                              "' is an address, which has no domain (expected scope "
                              "host or host and port)");
        rule.host = "*." + registrableDomain(host);
        break;
    default:
        return inputError("a command scope does not apply to a connection (expected host and "
                          "port, host or domain)");
    }
    if (a.samePort && a.scope != ApprovalScope::HostPort) {
        if (r.port == 0) return inputError("the approval request names no port");
        rule.ports = {r.port};
    }
    if (a.programOnly) {
        // The exact executable: a file name would let any program of that name through.
        const std::string program = r.process.empty() ? "" : r.process.front().program;
        if (program.empty() || program.front() != '/')
            return inputError("the program that connected to " + r.host +
                              " is unknown, so the answer cannot be limited to it");
        rule.program = programPatternFor(program);
        auto pattern = ClientPattern::compile(rule.program, "");
        if (!pattern || !pattern->matches(r.process))
            return Error{ErrorCode::Internal, 0,
                         "the program '" + rule.program + "' does not match '" + program + "'"};
    }
    return LearnedRule(std::move(rule));
}

std::string ruleLine(const LearnedRule& rule)
{
    std::string out = "{\"action\": ";
    std::visit(
        [&](const auto& r) {
            out += json(std::string(toString(r.action))).dump();
            if constexpr (std::is_same_v<std::decay_t<decltype(r)>, CommandRule>) {
                out += ", \"match\": " + json(r.match).dump();
            } else {
                out += ", \"host\": " + json(r.host).dump();
                if (!r.ports.empty()) out += ", \"ports\": " + json(r.ports).dump();
                if (!r.program.empty()) out += ", \"program\": " + json(r.program).dump();
                if (!r.command.empty()) out += ", \"command\": " + json(r.command).dump();
            }
            if (!r.comment.empty()) out += ", \"comment\": " + json(r.comment).dump();
        },
        rule);
    return out + "}";
}

std::string serialize(const LearnedRules& rules)
{
    auto list = [](const auto& items) {
        if (items.empty()) return std::string("[]");
        std::string out = "[\n";
        for (std::size_t i = 0; i < items.size(); ++i)
            out += "    " + ruleLine(items[i]) + (i + 1 < items.size() ? ",\n" : "\n");
        return out + "  ]";
    };
    return "// Rules learned from \"always\" answers to Sandbench's approval prompts, loaded with\n"
           "// the policy beside them. Sandbench rewrites this file when you answer \"always\";\n"
           "// edit or delete rules freely (comments here are not kept). See docs/policy.md.\n"
           "{\n  \"version\": 1,\n  \"commands\": " +
           list(rules.commands) + ",\n  \"network\": " + list(rules.network) + "\n}\n";
}

Result<std::string> readSmallFile(const fs::path& file)
{
    const UniqueFd owned(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    const int fd = owned.get();
    if (!owned) {
        Error e = sysError("cannot open learned rules '" + file.string() + "'");
        if (e.sysErrno == ENOENT) e.code = ErrorCode::NotFound;
        return e;
    }
    std::string text;
    struct stat st {};
    Status failure;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        failure = inputError("learned rules '" + file.string() + "' is not a regular file");
    } else {
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) failure = sysError("cannot read learned rules '" + file.string() + "'");
            if (n <= 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
            if (text.size() > kMaxLearnedBytes) break; // parseLearnedRules words the refusal
        }
    }
    if (failure) return *failure;
    return text;
}

bool sameTarget(const LearnedRule& a, const LearnedRule& b)
{
    if (a.index() != b.index()) return false;
    if (const auto* c = std::get_if<CommandRule>(&a)) return c->match == std::get<0>(b).match;
    const NetworkRule& x = std::get<1>(a);
    const NetworkRule& y = std::get<1>(b);
    return lower(x.host) == lower(y.host) && x.ports == y.ports && x.program == y.program &&
           x.command == y.command;
}

// Could some command match both patterns? Over-approximated: a glob is assumed to match whatever
// it is compared with, which at worst keeps a learned rule behind a user's deny rule.
bool wordsMayOverlap(const std::string& a, const std::string& b)
{
    auto hasGlob = [](const std::string& w) {
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (w[i] == '\\')
                ++i;
            else if (w[i] == '*' || w[i] == '?' || w[i] == '[')
                return true;
        }
        return false;
    };
    auto unescape = [](const std::string& w) {
        std::string out;
        for (std::size_t i = 0; i < w.size(); ++i)
            out += w[i] == '\\' && i + 1 < w.size() ? w[++i] : w[i];
        return out;
    };
    const bool ga = hasGlob(a), gb = hasGlob(b);
    if (ga && gb) return true;
    if (ga) return ::fnmatch(a.c_str(), unescape(b).c_str(), 0) == 0;
    if (gb) return ::fnmatch(b.c_str(), unescape(a).c_str(), 0) == 0;
    return unescape(a) == unescape(b);
}

bool commandsMayOverlap(const CommandPattern& a, const CommandPattern& b)
{
    const std::size_t na = a.words.size(), nb = b.words.size();
    if ((na < nb && !a.anyRest) || (nb < na && !b.anyRest)) return false;
    // A path pattern and a name pattern meet in the path's last component.
    auto program = [&](const CommandPattern& p, bool asPath) {
        return asPath || !p.programIsPath ? p.words[0] : std::string(baseName(p.words[0]));
    };
    const bool bothPaths = a.programIsPath && b.programIsPath;
    if (!wordsMayOverlap(program(a, bothPaths), program(b, bothPaths))) return false;
    for (std::size_t i = 1; i < std::min(na, nb); ++i) {
        if (!wordsMayOverlap(a.words[i], b.words[i])) return false;
    }
    return true;
}

int hostRank(HostPatternKind kind)
{
    switch (kind) {
    case HostPatternKind::Any:
        return 0;
    case HostPatternKind::Cidr4:
    case HostPatternKind::Cidr6:
        return 1;
    case HostPatternKind::Suffix:
        return 2;
    default:
        return 3;
    }
}

// A rule naming a program or command is narrower than the same rule for every process.
int networkSpecificity(const NetworkRule& rule, HostPatternKind kind)
{
    const bool limited = !rule.program.empty() || !rule.command.empty();
    return hostRank(kind) * 4 + (rule.ports.empty() ? 0 : 2) + (limited ? 1 : 0);
}

// Names are compared as names; anything involving an address or a range is assumed to overlap,
// since a name can resolve to any address.
bool networkMayOverlap(const NetworkRule& a, HostPatternKind ka, const NetworkRule& b,
                       HostPatternKind kb)
{
    if (!a.ports.empty() && !b.ports.empty() &&
        std::none_of(a.ports.begin(), a.ports.end(), [&](std::uint16_t p) {
            return std::find(b.ports.begin(), b.ports.end(), p) != b.ports.end();
        }))
        return false;
    auto isName = [](HostPatternKind k) {
        return k == HostPatternKind::Name || k == HostPatternKind::Suffix;
    };
    if (!isName(ka) || !isName(kb)) return true;
    const std::string x = lower(a.host), y = lower(b.host);
    auto under = [](const std::string& name, const std::string& suffixRule) {
        const std::string parent = suffixRule.substr(2);
        return name == parent || name.ends_with("." + parent);
    };
    if (ka == HostPatternKind::Name && kb == HostPatternKind::Name) return x == y;
    if (ka == HostPatternKind::Suffix && kb == HostPatternKind::Suffix)
        return under(x.substr(2), y) || under(y.substr(2), x);
    return ka == HostPatternKind::Suffix ? under(y, x) : under(x, y);
}

// Inserts each learned rule at the front, or just after the last user rule it must not shadow.
template <class Rule, class Blocks>
std::vector<Rule> insertLearned(const std::vector<Rule>& user, const std::vector<Rule>& learned,
                                Blocks blocks)
{
    std::vector<std::vector<Rule>> after(user.size() + 1); // [0]: before every user rule
    for (const Rule& l : learned) {
        std::size_t slot = 0;
        if (l.action != RuleAction::Deny) {
            for (std::size_t i = 0; i < user.size(); ++i) {
                if (user[i].action == RuleAction::Deny && blocks(l, user[i])) slot = i + 1;
            }
        }
        after[slot].push_back(l);
    }
    std::vector<Rule> merged = after[0];
    for (std::size_t i = 0; i < user.size(); ++i) {
        merged.push_back(user[i]);
        merged.insert(merged.end(), after[i + 1].begin(), after[i + 1].end());
    }
    return merged;
}

// Among learned rules the most specific goes first, and deny before allow at equal specificity:
// answers are not ordered by the user, so their order in the file must not matter.
template <class Rule, class Specificity>
std::vector<Rule> byPrecedence(std::vector<Rule> rules, Specificity specificity)
{
    std::stable_sort(rules.begin(), rules.end(), [&](const Rule& a, const Rule& b) {
        const int sa = specificity(a), sb = specificity(b);
        if (sa != sb) return sa > sb;
        return a.action == RuleAction::Deny && b.action != RuleAction::Deny;
    });
    return rules;
}

int commandSpecificity(const CommandRule& rule)
{
    auto pattern = parseCommandPattern(rule.match);
    return pattern ? pattern->specificity() : 0;
}

int networkSpecificity(const NetworkRule& rule)
{
    auto kind = checkHostPattern(rule.host);
    return kind ? networkSpecificity(rule, *kind) : 0;
}

} // namespace

void mergeLearned(Policy& policy, const LearnedRules& learned)
{
    policy.commands.rules = insertLearned(
        policy.commands.rules, byPrecedence(learned.commands, commandSpecificity),
        [](const CommandRule& l, const CommandRule& d) {
            auto pl = parseCommandPattern(l.match);
            auto pd = parseCommandPattern(d.match);
            if (!pl || !pd) return true; // unparsable: stay behind, the safe side
            return pd->specificity() >= pl->specificity() && commandsMayOverlap(*pl, *pd);
        });
    policy.network.rules = insertLearned(
        policy.network.rules,
        byPrecedence(learned.network, [](const NetworkRule& r) { return networkSpecificity(r); }),
        [](const NetworkRule& l, const NetworkRule& d) {
            auto kl = checkHostPattern(l.host);
            auto kd = checkHostPattern(d.host);
            if (!kl || !kd) return true;
            return networkSpecificity(d, *kd) >= networkSpecificity(l, *kl) &&
                   networkMayOverlap(l, *kl, d, *kd);
        });
}

fs::path learnedRulesPath(const fs::path& policyFile)
{
    const std::string name = policyFile.filename().string();
    const std::string stem = policyFile.extension() == ".json" ? policyFile.stem().string() : name;
    return policyFile.parent_path() / (stem + ".learned.json");
}

fs::path learnedRulesPathForPreset(std::string_view presetName)
{
    return configDirectory() / "learned" / (std::string(presetName) + ".learned.json");
}

Result<LearnedRules> parseLearnedRules(std::string_view text, std::string_view origin)
{
    if (text.size() > kMaxLearnedBytes)
        return inputError(std::string(origin) + ": the file is larger than " +
                          std::to_string(kMaxLearnedBytes) + " bytes");
    json root;
    try {
        root = json::parse(text, nullptr, true, /*ignore_comments=*/true);
    } catch (const json::parse_error& e) {
        // Sandbench writes this file, so plain wording is enough; the position still helps.
        const std::string what = e.what();
        const TextPosition pos = positionAt(text, e.byte > 0 ? e.byte - 1 : 0);
        return inputError(std::string(origin) + ':' + std::to_string(pos.line) + ':' +
                          std::to_string(pos.column) +
                          ": invalid JSON: " + what.substr(what.find("] ") + 2));
    } catch (const json::exception& e) {
        return inputError(std::string(origin) + ": invalid JSON: " + e.what());
    }
    const JsonLocator locator(text);
    if (locator.tooDeep() || locator.duplicate())
        return inputError(std::string(origin) +
                          ": nested too deeply or a repeated key (expected the format Sandbench "
                          "writes; delete the file to start afresh)");
    SchemaChecker c(origin, locator);
    LearnedRules out;
    auto rules = [&](auto& target, auto reader, std::string_view expected) {
        return [&c, &target, reader, expected](const json& x, const std::string& at) {
            if (!c.array(x, at, expected)) return;
            for (std::size_t i = 0; i < x.size(); ++i) {
                typename std::decay_t<decltype(target)>::value_type rule;
                reader(c, x[i], appendPointer(at, std::to_string(i)), rule);
                target.push_back(std::move(rule));
            }
        };
    };
    try {
        c.object(root, "",
                 {{"version", [&](const json& x, const std::string& at) { c.integer(x, at, 1, 1); },
                   "\"version\": 1"},
                  {"commands", rules(out.commands, readCommandRule, "an array of command rules")},
                  {"network", rules(out.network, readNetworkRule, "an array of network rules")}});
    } catch (const json::exception& e) {
        return Error{ErrorCode::Internal, 0, std::string(origin) + ": " + e.what()};
    }
    if (auto e = c.result()) return *e;
    return out;
}

Result<LearnedRules> loadLearnedRules(const fs::path& file)
{
    auto text = readSmallFile(file);
    if (!text) {
        if (text.error().code == ErrorCode::NotFound) return LearnedRules{};
        return text.error();
    }
    return parseLearnedRules(*text, file.string());
}

Status mergeLearned(Policy& policy, const fs::path& learnedFile)
{
    auto learned = loadLearnedRules(learnedFile);
    if (!learned) return learned.error();
    mergeLearned(policy, *learned);
    return std::nullopt;
}

Result<Policy> loadPolicyWithLearned(const fs::path& policyFile)
{
    auto policy = loadPolicyFile(policyFile);
    if (!policy) return policy;
    if (auto e = mergeLearned(*policy, learnedRulesPath(policyFile))) return *e;
    return policy;
}

Result<Policy> loadPresetWithLearned(std::string_view presetName)
{
    auto policy = loadPreset(presetName); // validates the name before it becomes a path
    if (!policy) return policy;
    if (auto e = mergeLearned(*policy, learnedRulesPathForPreset(presetName))) return *e;
    return policy;
}

Result<LearnedRule> ruleFromAnswer(const ApprovalRequest& request, const ApprovalAnswer& answer)
{
    return request.kind == ApprovalKind::Command ? commandRuleFromAnswer(request, answer)
                                                 : networkRuleFromAnswer(request, answer);
}

namespace {

// Runs `update` with the learned-rules file's folder created, open and locked: two sessions
// answering "always" at once must not lose one of the rules. `update` gets the folder's fd.
template <class Update> Status underLearnedLock(const fs::path& learnedFile, Update update)
{
    const fs::path dir = learnedFile.parent_path().empty() ? "." : learnedFile.parent_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error{ErrorCode::System, ec.value(), "create folder '" + dir.string() + "'"};
    const UniqueFd dirFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dirFd) return sysError("open folder '" + dir.string() + "'");
    if (::flock(dirFd.get(), LOCK_EX) != 0) return sysError("lock folder '" + dir.string() + "'");
    return update(dirFd.get()); // the lock goes with the descriptor
}

// Learned rules are the user's decisions about their own machine: private by default.
AtomicWriteOptions learnedWrite(int dirFd)
{
    return AtomicWriteOptions{dirFd, 0600};
}

} // namespace

Status appendLearnedRule(const fs::path& learnedFile, const LearnedRule& rule)
{
    return underLearnedLock(learnedFile, [&](int dirFd) -> Status {
        auto existing = loadLearnedRules(learnedFile);
        if (!existing) {
            Error e = existing.error();
            e.message = "learned rules not saved, '" + learnedFile.string() +
                        "' is left as it is: " + e.message;
            return e;
        }
        LearnedRules& rules = *existing;
        auto replace = [&](auto& list, const auto& added) {
            std::erase_if(list, [&](const auto& r) { return sameTarget(LearnedRule(r), rule); });
            list.push_back(added);
        };
        if (const auto* c = std::get_if<CommandRule>(&rule))
            replace(rules.commands, *c);
        else
            replace(rules.network, std::get<NetworkRule>(rule));
        return writeFileAtomically(learnedFile, serialize(rules), learnedWrite(dirFd));
    });
}

Status writeLearnedRules(const fs::path& learnedFile, const LearnedRules& rules)
{
    const std::string text = serialize(rules);
    // Only what a session can read back: a rule the parser would refuse is never written.
    if (auto parsed = parseLearnedRules(text, learnedFile.string()); !parsed)
        return Error{parsed.error().code, 0,
                     "learned rules not saved, '" + learnedFile.string() +
                         "' is left as it is: " + parsed.error().message};
    return underLearnedLock(learnedFile, [&](int dirFd) {
        return writeFileAtomically(learnedFile, text, learnedWrite(dirFd));
    });
}

} // namespace sb
