// From observations to proposed rules: only what the base asks about is proposed (what it
// allows needs no rule, what it denies stays denied), each rule generalised as far as is safe
// and placed just before the base rule that asked, so that every base rule before it, denials
// included, still decides first.
#include "learning/PolicySuggest.h"

#include "learning/RegistrableDomain.h"
#include "policy/ClientPattern.h"
#include "policy/CommandRules.h"
#include "policy/NetworkRules.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

namespace sb {
namespace {

std::string baseName(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

} // namespace

// Programs that run whatever their arguments say: "python3 *" would allow any program.
bool isInterpreter(const std::string& name)
{
    static const std::set<std::string, std::less<>> kNames = {
        "sh",   "bash", "dash",  "zsh",     "fish",   "ksh", "node",  "nodejs",  "deno",
        "bun",  "perl", "ruby",  "php",     "lua",    "env", "xargs", "sudo",    "su",
        "doas", "nice", "nohup", "timeout", "strace", "awk", "gawk",  "busybox", "npx"};
    return kNames.contains(name) || name.starts_with("python") || name.starts_with("perl");
}

// Commands that destroy or overwrite whatever they are pointed at: only the exact command
// line seen is proposed, never its pattern (rm -rf build must not become rm -rf *).
bool isDestructive(const std::string& name, const std::vector<std::string>& argv)
{
    auto has = [&](std::initializer_list<std::string_view> flags) {
        for (std::size_t i = 1; i < argv.size(); ++i) {
            const std::string& a = argv[i];
            for (std::string_view f : flags) {
                if (a == f) return true;
                // Short options bundled: -rf holds r and f.
                if (f.size() == 2 && f[0] == '-' && a.size() > 1 && a[0] == '-' && a[1] != '-' &&
                    a.find(f[1]) != std::string::npos)
                    return true;
            }
        }
        return false;
    };
    if (name == "rm" || name == "rmdir") return has({"-r", "-R", "-f", "--recursive", "--force"});
    if (name == "chmod" || name == "chown" || name == "chgrp") return has({"-R", "--recursive"});
    if (name == "git" && argv.size() > 1) {
        if (argv[1] == "push") return has({"-f", "--force", "--force-with-lease", "--delete"});
        if (argv[1] == "reset") return has({"--hard"});
        if (argv[1] == "clean") return true;
    }
    return name == "dd" || name == "shred" || name == "mkfs" || name.starts_with("mkfs.") ||
           name == "truncate";
}

// Programs that send whatever they are told to wherever they are told: a rule that lets one
// reach a host lets any file go there (curl -d @~/.netrc) and any script come from there
// (curl … | sh), so the host is shown, never proposed. A purpose-made client (git, npm, pip)
// speaks one protocol to the host it was set up for.
bool isTransferTool(const std::string& name)
{
    static const std::set<std::string, std::less<>> kNames = {
        "curl",           "wget",  "wget2",   "nc",         "ncat",   "netcat", "nc.openbsd",
        "nc.traditional", "socat", "telnet",  "ftp",        "tftp",   "lftp",   "aria2c",
        "http",           "xh",    "openssl", "gnutls-cli", "busybox"};
    return kNames.contains(name);
}

// A word that names a subcommand (git push, npm install, cargo build), not a file or option.
bool isSubcommandWord(const std::string& word)
{
    if (word.empty() || word.size() > 32 || !(word[0] >= 'a' && word[0] <= 'z')) return false;
    return std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

namespace {

// A pattern's words taken literally as a command line ("rm -rf /*" → rm, -rf, /*): what a rule
// written for it surely covers.
std::optional<std::pair<std::string, std::vector<std::string>>>
literalCommand(const std::string& match)
{
    auto pattern = parseCommandPattern(match);
    if (!pattern || pattern->words.empty()) return std::nullopt;
    std::vector<std::string> argv = pattern->words;
    if (pattern->anyRest) argv.push_back("anything");
    return std::pair{argv.front(), argv};
}

// Whether `pattern` would also allow what a deny rule of the base denies.
bool coversADenial(const std::string& pattern, const Policy& base)
{
    auto compiled = parseCommandPattern(pattern);
    if (!compiled) return true;
    for (const CommandRule& rule : base.commands.rules) {
        if (rule.action != RuleAction::Deny) continue;
        auto denied = literalCommand(rule.match);
        if (denied && matchesCommand(*compiled, denied->first, denied->second)) return true;
    }
    return false;
}

void addEvidence(Evidence& e, const std::string& session, const std::string& example,
                 std::int64_t tNs)
{
    if (e.count++ == 0) {
        e.example = example;
        e.exampleSession = session;
        e.exampleTNs = tNs;
    }
    if (std::find(e.sessions.begin(), e.sessions.end(), session) == e.sessions.end())
        e.sessions.push_back(session);
}

void proposeCommands(const Suggestion& s, const Observations& seen, std::vector<ProposedRule>& out)
{
    const CommandMatcher matcher(s.base.commands);
    std::map<std::pair<int, std::string>, ProposedRule> byPattern; // (before, match)
    for (const ObservedCommand& c : seen.commands) {
        const CommandDecision d = matcher.decide(c.program, c.argv);
        if (d.action != RuleAction::Ask) continue;
        const std::string name = baseName(c.program);
        std::vector<std::string> words = c.argv;
        words.front() = name;
        const std::string exact = quoteCommandLine(words);
        std::string pattern = exact, risk;
        if (isInterpreter(name)) {
            // The exact command; its program with any arguments would run anything.
        } else if (!isDestructive(name, c.argv)) {
            pattern = c.argv.size() >= 2 && isSubcommandWord(c.argv[1])
                          ? quoteCommandWord(name) + " " + quoteCommandWord(c.argv[1]) + " *"
                          : quoteCommandWord(name) + " *";
            if (coversADenial(pattern, s.base)) pattern = exact;
        }
        if (coversADenial(pattern, s.base))
            risk = "it would also allow what a deny rule of the base policy denies";
        ProposedRule& rule = byPattern[{d.ruleIndex, pattern}];
        if (rule.evidence.count == 0) {
            rule.section = ProposedRule::Section::Commands;
            rule.command = {RuleAction::Allow, pattern, {}};
            rule.before = d.ruleIndex;
            rule.risk = risk;
            if (!risk.empty()) rule.remark = ProposedRule::Remark::CoversADenial;
        }
        addEvidence(rule.evidence, c.session, exact, c.tNs);
    }
    // An interpreter seen running several things: its pattern is shown, never proposed.
    std::map<std::string, ProposedRule> interpreters;
    for (auto& [key, rule] : byPattern) {
        const std::string name = rule.command.match.substr(0, rule.command.match.find(' '));
        if (isInterpreter(name) && rule.command.match != name + " *") {
            ProposedRule& any = interpreters[name];
            if (any.evidence.count == 0) {
                any = rule;
                any.command.match = name + " *";
                any.risk = "an interpreter running anything: it would allow every program";
                any.remark = ProposedRule::Remark::Interpreter;
            } else {
                any.evidence.count += rule.evidence.count;
                for (const std::string& session : rule.evidence.sessions)
                    if (std::find(any.evidence.sessions.begin(), any.evidence.sessions.end(),
                                  session) == any.evidence.sessions.end())
                        any.evidence.sessions.push_back(session);
                any.note = "seen running several commands";
            }
        }
        out.push_back(std::move(rule));
    }
    for (auto& [name, rule] : interpreters)
        if (!rule.note.empty()) out.push_back(std::move(rule));
}

// The rules' host pattern for `host`: its registrable domain and every name under it, or the
// host itself (an address, a name the public suffix list cannot place, or a domain a base deny
// rule reaches into).
Result<std::pair<std::string, std::string>> hostPattern(const std::string& host, const Policy& base)
{
    auto found = registrableDomain(host);
    if (!found) return found.error();
    const auto& domain = *found;
    if (!domain) return std::pair{host, std::string()};
    const std::string pattern = "*." + domain->domain;
    for (const NetworkRule& rule : base.network.rules) {
        if (rule.action != RuleAction::Deny) continue;
        std::string denied = rule.host;
        if (denied.starts_with("*.")) denied.erase(0, 2);
        if (denied == domain->domain || denied.ends_with("." + domain->domain))
            return std::pair{host, std::string()};
    }
    return std::pair{pattern, domain->tenant ? "one party's names on a shared platform (" +
                                                   domain->domain + "), not the platform's"
                                             : std::string()};
}

Status proposeConnections(const Suggestion& s, const Observations& seen,
                          std::vector<ProposedRule>& out)
{
    auto rules = NetworkRules::compile(s.base.network);
    if (!rules) return rules.error();
    if (s.base.network.mode != NetworkMode::Filtered) return std::nullopt;
    struct Group {
        ProposedRule rule;
        std::set<std::uint16_t> ports;
    };
    std::map<std::tuple<int, std::string, std::string>, Group> groups; // (before, host, program)
    for (const ObservedConnection& c : seen.connections) {
        ProcessChain chain;
        if (!c.program.empty()) chain.push_back({0, c.program, {c.program}});
        auto decision = rules->decideHost(c.host, c.port, {}, chain);
        if (decision.action != RuleAction::Ask) continue;
        auto generalised = hostPattern(c.host, s.base);
        if (!generalised) return generalised.error();
        const auto& [pattern, note] = *generalised;
        // Which base rule asked: the rule's position is in its text ("rule 3 (…)").
        int before = -1;
        if (decision.rule.starts_with("rule ")) {
            const char* digits = decision.rule.data() + 5;
            int position = 0;
            if (std::from_chars(digits, decision.rule.data() + decision.rule.size(), position).ec ==
                    std::errc() &&
                position >= 1)
                before = position - 1;
        }
        Group& g = groups[{before, pattern, c.program}];
        if (g.rule.evidence.count == 0) {
            g.rule.section = ProposedRule::Section::Network;
            g.rule.network.action = RuleAction::Allow;
            g.rule.network.host = pattern;
            g.rule.network.program =
                c.program.empty() ? std::string() : programPatternFor(c.program);
            g.rule.before = before;
            g.rule.note = note;
            if (!note.empty()) {
                g.rule.remark = ProposedRule::Remark::SharedPlatform;
                g.rule.platform = pattern.substr(2); // "*.alice.github.io" → "alice.github.io"
            }
            if (!c.program.empty() && isTransferTool(baseName(c.program))) {
                g.rule.risk = "a transfer tool (" + baseName(c.program) +
                              ") sends and fetches whatever it is told: any file could go to "
                              "this host, any script come from it";
                g.rule.remark = ProposedRule::Remark::TransferTool;
                g.rule.platform = baseName(c.program);
            }
        }
        g.ports.insert(c.port);
        const std::string where =
            (c.host.find(':') != std::string::npos ? "[" + c.host + "]" : c.host) + ":" +
            std::to_string(c.port);
        addEvidence(g.rule.evidence, c.session,
                    c.program.empty() ? where : where + " by " + baseName(c.program), c.tNs);
    }
    for (auto& [key, g] : groups) {
        g.rule.network.ports.assign(g.ports.begin(), g.ports.end());
        out.push_back(std::move(g.rule));
    }
    return std::nullopt;
}

} // namespace

Result<Suggestion> suggestPolicy(const Policy& base, const Observations& seen)
{
    Suggestion s{base, {}};
    proposeCommands(s, seen, s.rules);
    if (auto e = proposeConnections(s, seen, s.rules)) return *e;
    return s;
}

} // namespace sb
