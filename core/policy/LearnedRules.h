// Rules learned from "always" answers. They live in a file of their own beside the policy, so
// the user's policy file, its comments and its formatting are never rewritten.
// Format, location and precedence: docs/policy.md, "Learned rules".
#pragma once

#include "base/Error.h"
#include "policy/Approval.h"
#include "policy/Policy.h"

#include <filesystem>
#include <string_view>
#include <variant>
#include <vector>

namespace sb {

using LearnedRule = std::variant<CommandRule, NetworkRule>;

struct LearnedRules {
    std::vector<CommandRule> commands;
    std::vector<NetworkRule> network;
};

// X.json → X.learned.json in the same folder (any other name gets ".learned.json" appended).
std::filesystem::path learnedRulesPath(const std::filesystem::path& policyFile);
// $XDG_CONFIG_HOME/sandbench/learned/NAME.learned.json (~/.config when the variable is unset).
// Presets are shipped read-only, so their learned rules live with the user's configuration.
std::filesystem::path learnedRulesPathForPreset(std::string_view presetName);

// {"version": 1, "commands": [rule…], "network": [rule…]}, rules as in a policy. Messages are
// positioned as the policy parser's are.
Result<LearnedRules> parseLearnedRules(std::string_view text, std::string_view origin);
// A missing file is no rules, not an error: nothing has been learned yet.
Result<LearnedRules> loadLearnedRules(const std::filesystem::path& file);

// Learned rules go before the user's rules, so an answer takes effect, with one exception: a
// learned allow (or ask) rule is placed just after the last user deny rule that it could
// otherwise shadow and that is at least as specific. So a user's deny is never overridden by a
// learned allow for the same or a broader pattern; only a strictly narrower learned rule (an
// exact command under a "deny git push *") goes first. Specificity: commands count the words a
// pattern fixes (CommandPattern::specificity); network rules rank "*" < CIDR < "*.domain" <
// name or address, then listed ports above none, then a rule naming a program or command above
// one that does not.
void mergeLearned(Policy& policy, const LearnedRules& learned);
Status mergeLearned(Policy& policy, const std::filesystem::path& learnedFile);

// The policy (or preset) with its learned rules merged in.
Result<Policy> loadPolicyWithLearned(const std::filesystem::path& policyFile);
Result<Policy> loadPresetWithLearned(std::string_view presetName);

// The rule an answer stands for. Commands: ExactCommand → the program's path and the arguments,
// quoted ("/usr/bin/git commit -m 'a b'"); Subcommand → "git commit *"; AnyArguments → "git *".
// Network: HostPort → host + [port]; Host → host; Domain → "*.example.com" for the host's
// registrable domain; with `samePort`, Host and Domain keep the request's port; with
// `programOnly`, the rule's `program` is the request's program's exact
// path. InvalidInput when the scope does not fit the request (a subcommand of a
// program run without arguments, the domain of an IP address, a command scope for a connection).
Result<LearnedRule> ruleFromAnswer(const ApprovalRequest& request, const ApprovalAnswer& answer);

// Adds `rule` to the learned-rules file, replacing an earlier rule for the same pattern (the
// newer answer wins). The file is rewritten atomically (temporary file, fsync, rename) under an
// exclusive lock on its folder, so concurrent sessions do not lose each other's rules; the folder
// is created if needed. A learned-rules file that does not parse is left alone and reported.
Status appendLearnedRule(const std::filesystem::path& learnedFile, const LearnedRule& rule);

// Replaces the whole learned-rules file with `rules` (atomically, under the same lock as
// appendLearnedRule): for removing a learned rule, or dropping one that was promoted into the
// policy. Refuses, writing nothing, rules the file's parser would refuse.
Status writeLearnedRules(const std::filesystem::path& learnedFile, const LearnedRules& rules);

} // namespace sb
