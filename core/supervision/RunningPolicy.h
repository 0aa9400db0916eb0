// The policy a running session enforces, as its clients see and change it (policy_update,
// docs/protocol.md): the user's document with the run's overrides, the learned rules merged
// before its rules, and where both live. The session loop's thread owns it; not thread-safe.
#pragma once

#include "base/Error.h"
#include "control/Protocol.h"
#include "policy/LearnedRules.h"
#include "policy/Policy.h"

#include <filesystem>
#include <string>
#include <vector>

namespace sb {

struct PolicySource {
    std::filesystem::path file;             // the document; empty for a preset or a built policy
    std::string preset;                     // the preset's name; empty otherwise
    std::filesystem::path learnedRulesFile; // empty: "always" answers last the session only
};

// A checked update, not yet in force.
struct PreparedPolicy {
    Policy user;          // the running policy after it; sections that cannot change keep theirs
    LearnedRules learned; // as the learned-rules file holds them now
    Policy merged;        // user with learned merged in: what the session enforces
    PolicySource source;
    std::string origin;                // "policy update from NAME", as messages name the document
    std::vector<std::string> applied;  // sections that change now
    std::vector<std::string> deferred; // sections that changed, for new sessions only
};

// The activity event of an update taken: {"kind": "policy", "type": "update", "by", "origin",
// "file", "commands_rules", "network_rules", "learned_rules", "applied", "deferred", "policy"}
// ("policy": the user's rules now in force, a whole document).
nlohmann::json updateEvent(const PreparedPolicy& change, const std::string& client);
// "applied commands, network; for new sessions only: nothing"
std::string describeUpdate(const proto::PolicyUpdateResult& result);

class RunningPolicy {
  public:
    RunningPolicy(Policy user, LearnedRules learned, PolicySource source);

    const Policy& user() const { return m_user; }
    const Policy& merged() const { return m_merged; }
    const PolicySource& source() const { return m_source; }

    // Reads `update.policy` as parsePolicy reads a file (messages name "policy update from
    // CLIENT"), re-reads the learned rules (from beside `update.file` when it names one), and
    // says what would change. What a running session cannot change (filesystem, network.mode,
    // limits, env) keeps the session's values and is listed as deferred; so are the network
    // rules when `networkLive` is false (no proxy: mode none or host). Changes nothing.
    Result<PreparedPolicy> prepare(const proto::PolicyUpdate& update, const std::string& client,
                                   bool networkLive) const;
    void commit(PreparedPolicy change);

    // The summary's policy fields: the short "policy", where the documents are, the effective
    // policy (user rules only) and the learned rules as their file holds them now.
    void describe(proto::SessionSummary& summary) const;

  private:
    Policy m_user;
    LearnedRules m_learned;
    Policy m_merged;
    PolicySource m_source;
};

} // namespace sb
