// policy test: what a policy (with its learned rules) decides for one connection or one command,
// and which rule decides it, without a session.
#include "Commands.h"
#include "Format.h"
#include "policy/CommandRules.h"
#include "policy/LearnedRules.h"
#include "policy/NetworkRules.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

namespace sbcli {
namespace {

struct PolicyTestArgs {
    std::string policyFile;
    std::string preset;
    std::string host;
    unsigned port = 443;
    std::string program;
    std::string command;
    std::vector<std::string> parents;
    bool json = false;
};

// A command line as typed, as the process that would run it: the program is --program, or else
// the line's first word.
sb::Result<sb::ProcessInfo> processOf(const std::string& line, const std::string& program,
                                      const char* option)
{
    auto argv = sb::splitCommandLine(line);
    if (!argv) return sb::inputError(std::string(option) + ": " + argv.error().message);
    if (argv->empty() && program.empty())
        return sb::inputError(std::string(option) + " is empty (expected a command line)");
    sb::ProcessInfo p;
    p.argv = std::move(*argv);
    p.program = !program.empty() ? program : p.argv.front();
    if (p.argv.empty()) p.argv.push_back(p.program);
    return p;
}

int report(const PolicyTestArgs& args, sb::RuleAction action, const std::string& rule,
           const std::string& note)
{
    if (args.json) {
        nlohmann::json out = {{"action", std::string(sb::toString(action))}, {"rule", rule}};
        if (!note.empty()) out["note"] = note;
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("%s: %s\n", std::string(sb::toString(action)).c_str(), rule.c_str());
        if (!note.empty()) std::printf("%s\n", note.c_str());
    }
    return 0;
}

int policyTestCommand(const PolicyTestArgs& args)
{
    auto policy = !args.policyFile.empty()
                      ? sb::loadPolicyWithLearned(args.policyFile)
                      : sb::loadPresetWithLearned(args.preset.empty() ? "generic" : args.preset);
    if (!policy) return fail(policy.error(), kUsageError);

    if (args.host.empty()) {
        if (args.command.empty())
            return fail("policy test needs --host (a connection) or --command (a command)",
                        kUsageError);
        if (!args.parents.empty())
            return fail("--parent applies to connections only (expected --host)", kUsageError);
        auto p = processOf(args.command, args.program, "--command");
        if (!p) return fail(p.error(), kUsageError);
        const sb::CommandDecision d = sb::decideCommand(policy->commands, p->program, p->argv);
        return report(args, d.action, d.rule, "");
    }

    auto host = sb::normaliseHost(args.host);
    if (!host) return fail("--host: " + host.error().message, kUsageError);
    if (policy->network.mode == sb::NetworkMode::Host)
        return report(args, sb::RuleAction::Allow, "network mode host", "");
    // The process that connects and the ones that started it, or none: an unknown process.
    sb::ProcessChain chain;
    if (!args.program.empty() || !args.command.empty()) {
        if (!args.command.empty()) {
            auto p = processOf(args.command, args.program, "--command");
            if (!p) return fail(p.error(), kUsageError);
            chain.push_back(std::move(*p));
        } else {
            chain.push_back({0, args.program, {args.program}});
        }
        for (const std::string& line : args.parents) {
            auto p = processOf(line, "", "--parent");
            if (!p) return fail(p.error(), kUsageError);
            chain.push_back(std::move(*p));
        }
    } else if (!args.parents.empty()) {
        return fail("--parent needs --program or --command (the process that connects)",
                    kUsageError);
    }
    auto rules = sb::NetworkRules::compile(policy->network);
    if (!rules) return fail(rules.error(), kUsageError);
    const auto port = static_cast<std::uint16_t>(args.port);
    const sb::NetworkDecision d = rules->decideHost(*host, port, {}, chain);
    // A name's addresses are decided again when it is resolved: only a denial can change here.
    std::string note;
    const bool namesAProcess = std::any_of(
        policy->network.rules.begin(), policy->network.rules.end(),
        [](const sb::NetworkRule& r) { return !r.program.empty() || !r.command.empty(); });
    if (d.action == sb::RuleAction::Deny && !d.final)
        note = "unless an address rule allows what " + *host + " resolves to";
    else if (chain.empty() && namesAProcess)
        note = "no process given (--program, --command): rules naming one did not apply";
    return report(args, d.action, d.rule, note);
}

} // namespace

void addPolicyTestCommand(CLI::App& policy)
{
    auto args = std::make_shared<PolicyTestArgs>();
    CLI::App* test = policy.add_subcommand(
        "test", "Say what a policy and its learned rules decide for a connection (--host) or a "
                "command (--command), and which rule decides");
    auto* file = test->add_option("--policy", args->policyFile, "Policy file (JSON with comments)")
                     ->check(CLI::ExistingFile);
    test->add_option("--preset", args->preset, "Shipped policy preset; default: generic")
        ->excludes(file);
    test->add_option("--host", args->host, "The host the connection names (a name or address)");
    test->add_option("--port", args->port, "The connection's port (default: 443)")
        ->check(wholeNumber(1, 65535));
    test->add_option("--program", args->program,
                     "The executable's path of the process that connects (or runs --command)");
    test->add_option("--command", args->command,
                     "The command line of the process that connects, or the command to decide "
                     "without --host; its program is --program, else its first word");
    test->add_option("--parent", args->parents,
                     "A command line of a process that started it, its parent first "
                     "(repeatable, up to the session's command)")
        ->expected(1)
        ->take_all();
    test->add_flag("--json", args->json, "Output as JSON");
    test->callback([args] { exitWith(policyTestCommand(*args)); });
}

} // namespace sbcli
