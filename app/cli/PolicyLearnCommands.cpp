// policy suggest: a policy from recorded sessions (learning/PolicySuggest.h); policy compare: a
// candidate run as a shadow beside the enforced policy (learning/PolicyCompare.h).
#include "Commands.h"
#include "learning/PolicyCompare.h"
#include "learning/PolicySuggest.h"
#include "policy/LearnedRules.h"
#include "policy/PolicyEdit.h"
#include "recording/RecordingStore.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

namespace sbcli {
namespace {

struct PolicySuggestArgs {
    std::vector<std::string> sessions;
    std::string policyFile;
    std::string preset;
    std::string output;
    bool json = false;
    bool includeRisky = false;
    bool denyUnseen = false;
};

int policySuggestCommand(const PolicySuggestArgs& args)
{
    auto base = !args.policyFile.empty()
                    ? sb::loadPolicyWithLearned(args.policyFile)
                    : sb::loadPresetWithLearned(args.preset.empty() ? "generic" : args.preset);
    if (!base) return fail(base.error(), kUsageError);
    auto store = sb::RecordingStore::open();
    if (!store) return fail(store.error());
    auto seen = sb::readObservations(*store, args.sessions);
    if (!seen) return fail(seen.error());
    auto suggestion = sb::suggestPolicy(*base, *seen);
    if (!suggestion) return fail(suggestion.error());
    // Hosts the sessions never reached are denied rather than asked about: a day like the
    // recorded ones then asks nothing, and an attempt to reach anywhere else fails at once.
    if (args.denyUnseen) suggestion->base.network.defaultAction = sb::RuleAction::Deny;
    const std::string text = sb::renderSuggestion(*suggestion, args.includeRisky);
    // What is written must read back as a policy: a failure here is Sandbench's own.
    if (auto checked = sb::parsePolicy(text, "the suggested policy"); !checked)
        return fail(checked.error().within("policy suggest wrote a policy it cannot read"));
    if (!args.output.empty())
        if (auto e = sb::savePolicyFile(args.output, text)) return fail(*e);
    if (args.json) {
        nlohmann::json out = sb::suggestionJson(*suggestion);
        if (!args.output.empty()) out["file"] = args.output;
        out["network_default"] = std::string(sb::toString(suggestion->base.network.defaultAction));
        std::printf("%s\n",
                    out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else if (args.output.empty()) {
        std::fputs(text.c_str(), stdout);
    } else {
        std::size_t proposed = 0, risky = 0;
        for (const sb::ProposedRule& r : suggestion->rules)
            ++(r.risk.empty() ? proposed : risky);
        std::fprintf(
            stderr, "sandbench: wrote %s: %zu rule(s) proposed%s\n", args.output.c_str(), proposed,
            risky == 0 ? ""
                       : (", " + std::to_string(risky) + " risky one(s) left as comments").c_str());
    }
    return 0;
}

struct PolicyCompareArgs {
    std::string session;
    bool json = false;
};

int policyCompareCommand(const PolicyCompareArgs& args)
{
    auto store = sb::RecordingStore::open();
    if (!store) return fail(store.error());
    auto comparison = sb::comparePolicies(*store, args.session);
    if (!comparison) return fail(comparison.error());
    if (args.json) {
        std::printf("%s\n", sb::toJson(*comparison)
                                .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                                .c_str());
        return 0;
    }
    std::printf("%s\n", sb::summarise(*comparison).c_str());
    const std::pair<const char*, const std::vector<std::string>*> groups[] = {
        {"allowed where the current policy denied", &comparison->allowedWhereDenied},
        {"denied where the current policy allowed", &comparison->deniedWhereAllowed},
        {"allowed where the current policy asked", &comparison->allowedWhereAsked},
        {"asked where the current policy allowed", &comparison->askedWhereAllowed},
        {"other differences", &comparison->otherDifferences}};
    for (const auto& [title, lines] : groups) {
        if (lines->empty()) continue;
        std::printf("%s (%zu)\n", title, lines->size());
        for (const std::string& line : *lines)
            std::printf("  %s\n", line.c_str());
    }
    return 0;
}

} // namespace

void addPolicyCompareCommand(CLI::App& policy)
{
    auto args = std::make_shared<PolicyCompareArgs>();
    CLI::App* compare = policy.add_subcommand(
        "compare", "Compare, in a session run with --shadow FILE, the enforced policy's decisions "
                   "with the candidate's");
    compare->add_option("session", args->session, "A recorded session run with --shadow")
        ->required();
    compare->add_flag("--json", args->json, "Output as JSON");
    compare->callback([args] { exitWith(policyCompareCommand(*args)); });
}

void addPolicySuggestCommand(CLI::App& policy)
{
    auto args = std::make_shared<PolicySuggestArgs>();
    CLI::App* suggest = policy.add_subcommand(
        "suggest", "Propose a policy from recorded sessions: the base policy plus rules for what "
                   "they did that it would ask about, each with its evidence");
    suggest->add_option("sessions", args->sessions, "Recorded sessions to learn from")->required();
    auto* file =
        suggest
            ->add_option("--policy", args->policyFile, "The base policy file (JSON with comments)")
            ->check(CLI::ExistingFile);
    suggest->add_option("--preset", args->preset, "The base: a shipped preset; default: generic")
        ->excludes(file);
    suggest->add_option("-o,--output", args->output,
                        "Write the proposed policy to this file (atomically) instead of stdout");
    suggest->add_flag("--include-risky", args->includeRisky,
                      "Also propose the rules marked risky (an interpreter running anything…)");
    suggest->add_flag("--deny-unseen", args->denyUnseen,
                      "Deny the hosts the sessions did not reach (network.default deny) instead "
                      "of asking about them");
    suggest->add_flag("--json", args->json, "The proposed rules and their evidence as JSON");
    suggest->callback([args] { exitWith(policySuggestCommand(*args)); });
}

} // namespace sbcli
