// The generalisation is the suggester's (PolicySuggest.cpp): the same judgement of programs and
// hosts, expressed as an answer's scope so that the supervisor's ruleFromAnswer() saves it.
#include "learning/AnswerGeneralisation.h"

#include "learning/PolicySuggest.h"
#include "learning/RegistrableDomain.h"
#include "policy/LearnedRules.h"
#include "policy/NetworkRules.h"

#include <filesystem>
#include <variant>

namespace sb {
namespace {

std::string inWords(const LearnedRule& rule)
{
    if (const auto* c = std::get_if<CommandRule>(&rule)) return c->match;
    const auto& n = std::get<NetworkRule>(rule);
    std::string out = n.host;
    for (std::size_t i = 0; i < n.ports.size(); ++i)
        out += (i == 0 ? " port " : ",") + std::to_string(n.ports[i]);
    if (!n.program.empty()) out += " by " + n.program;
    return out;
}

Result<std::string> ruleInWords(const ApprovalRequest& request, const ApprovalAnswer& answer)
{
    auto rule = ruleFromAnswer(request, answer);
    if (!rule) return rule.error();
    return inWords(*rule);
}

std::string baseName(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

void generaliseCommand(const ApprovalRequest& r, const ApprovalAnswer& exact, GeneralisedAnswer& g)
{
    const std::string name = baseName(r.program.empty() ? r.argv.front() : r.program);
    if (isInterpreter(name)) {
        g.risk = GeneralisedAnswer::Risk::Interpreter;
        g.riskSubject = name;
        return;
    }
    if (isDestructive(name, r.argv)) {
        g.risk = GeneralisedAnswer::Risk::Destructive;
        g.riskSubject = name;
        return;
    }
    ApprovalAnswer general = exact;
    const bool sub = r.argv.size() >= 2 && isSubcommandWord(r.argv[1]);
    general.scope = sub ? ApprovalScope::Subcommand : ApprovalScope::AnyArguments;
    auto rule = ruleInWords(r, general);
    if (!rule) return;
    g.scope = general.scope;
    g.rule = *rule;
    const std::string head = sub ? name + " " + r.argv[1] : name;
    g.alsoAllows.push_back({Allowance::Kind::OtherArguments, head, {}, 0});
    // The destructive forms the pattern covers, which the suggester would never write itself.
    for (const char* flag : {"--force", "--hard", "--delete", "-rf", "-R"}) {
        std::vector<std::string> argv = {name};
        if (sub) argv.push_back(r.argv[1]);
        argv.push_back(flag);
        if (isDestructive(name, argv)) {
            g.alsoAllows.push_back({Allowance::Kind::DestructiveForm, head + " " + flag, {}, 0});
            break;
        }
    }
    g.alsoAllows.push_back(
        {Allowance::Kind::SameNameElsewhere, name, r.program.empty() ? name : r.program, 0});
}

Status generaliseConnection(const ApprovalRequest& r, const ApprovalAnswer& exact,
                            GeneralisedAnswer& g)
{
    std::string host = r.host;
    for (char& c : host)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (host.ends_with('.')) host.pop_back();
    if (ipLiteral(host)) {
        g.risk = GeneralisedAnswer::Risk::Address;
        g.riskSubject = host;
        return std::nullopt;
    }
    auto found = registrableDomain(host);
    if (!found) return found.error();
    if (!*found) {
        g.risk = GeneralisedAnswer::Risk::NotPlaced;
        g.riskSubject = host;
        return std::nullopt;
    }
    const std::string program = r.process.empty() ? std::string() : r.process.front().program;
    if (!program.empty() && isTransferTool(baseName(program))) {
        g.risk = GeneralisedAnswer::Risk::TransferTool;
        g.riskSubject = baseName(program);
        return std::nullopt;
    }
    ApprovalAnswer general = exact;
    general.scope = ApprovalScope::Domain;
    general.samePort = true;
    general.programOnly = program.starts_with('/');
    auto rule = ruleFromAnswer(r, general);
    if (!rule) return std::nullopt;
    const std::string domain = (*found)->domain;
    // The domain scope's own guess (without the list) must be the owner's domain: never a
    // shared platform's (github.io for alice.github.io).
    if (std::get<NetworkRule>(*rule).host != "*." + domain) {
        g.risk = GeneralisedAnswer::Risk::PastOwner;
        g.riskSubject = domain;
        return std::nullopt;
    }
    g.scope = general.scope;
    g.samePort = true;
    g.programOnly = general.programOnly;
    g.rule = inWords(*rule);
    g.alsoAllows.push_back({Allowance::Kind::NamesUnderDomain, domain, host, r.port});
    if (!general.programOnly) g.alsoAllows.push_back({Allowance::Kind::AnyProgram, {}, {}, 0});
    return std::nullopt;
}

} // namespace

Result<GeneralisedAnswer> generaliseAnswer(const ApprovalRequest& request)
{
    GeneralisedAnswer g;
    ApprovalAnswer exact;
    exact.allow = true;
    exact.duration = ApprovalDuration::Always;
    const bool command = request.kind == ApprovalKind::Command;
    exact.scope = command ? ApprovalScope::ExactCommand : ApprovalScope::HostPort;
    auto words = ruleInWords(request, exact);
    if (!words) return words.error();
    g.scope = exact.scope;
    g.exact = g.rule = *words;
    if (command)
        generaliseCommand(request, exact, g);
    else if (auto e = generaliseConnection(request, exact, g))
        return *e;
    return g;
}

std::string describe(const Allowance& a)
{
    switch (a.kind) {
    case Allowance::Kind::OtherArguments:
        return a.what + " with any other arguments";
    case Allowance::Kind::DestructiveForm:
        return "its destructive forms too, such as " + a.what;
    case Allowance::Kind::SameNameElsewhere:
        return "a program named " + a.what + " wherever it is, not only " + a.exact;
    case Allowance::Kind::NamesUnderDomain:
        return "every name under " + a.what + " on port " + std::to_string(a.port) + ", not only " +
               a.exact;
    case Allowance::Kind::AnyProgram:
        return "any program: the one that connected is unknown";
    }
    return {};
}

std::string describeRisk(const GeneralisedAnswer& g)
{
    using Risk = GeneralisedAnswer::Risk;
    const std::string& s = g.riskSubject;
    switch (g.risk) {
    case Risk::None:
        return {};
    case Risk::Interpreter:
        return "an interpreter: \"" + s + " *\" would let it run any program";
    case Risk::Destructive:
        return s + " destroys or overwrites what it is pointed at";
    case Risk::TransferTool:
        return "a transfer tool (" + s + ") sends and fetches whatever it is told";
    case Risk::Address:
        return "an address (" + s + ") has no domain";
    case Risk::NotPlaced:
        return "the public suffix list cannot place " + s;
    case Risk::PastOwner:
        return "a domain rule would reach past " + s + ", its owner's domain";
    }
    return {};
}

ApprovalAnswer withGeneralisation(ApprovalAnswer answer, const GeneralisedAnswer& generalised)
{
    answer.scope = generalised.scope;
    answer.programOnly = generalised.programOnly;
    answer.samePort = generalised.samePort;
    return answer;
}

} // namespace sb
