// "Would this be allowed?": the core's own matchers (sb::NetworkRules, sb::CommandMatcher) run
// over the rules as edited, with the learned rules merged in as a session merges them
// (sb::mergeLearned), and the verdict names the rule that decides: one of the user's rules, a
// learned rule, the default, or a built-in block.
#pragma once

#include "policy/Policy.h"
#include "policy/SessionAnswers.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QList>
#include <QString>
#include <vector>

namespace sbui {

struct TestVerdict {
    bool evaluated = false; // false: the input could not be read; `reason` says why
    sb::RuleAction action = sb::RuleAction::Deny;
    QString headline;     // "Allowed", "Denied", "Asked"
    QString reason;       // which rule decides, as a sentence
    QString note;         // what else to know (a name's addresses, how the program was found)
    int userRule = -1;    // the deciding row among the user's rules
    int learnedRule = -1; // or among the learned rules
    // Network: the name's addresses can still change the outcome (see NetworkRules::decideHost).
    bool dependsOnAddresses = false;
    QString host; // network: the normalised host
    std::uint16_t port = 0;
};

class PolicyTester {
    Q_DECLARE_TR_FUNCTIONS(PolicyTester)

  public:
    // `destination`: "host:port", "[v6]:port", or a host alone (port 443 then). `answers`: a
    // running session's answers for itself, which decide what its rules would ask. `program`:
    // the program that connects (/usr/bin/ssh), for rules that name one; empty: unknown, as
    // when the supervisor cannot tell, and then no such rule matches.
    static TestVerdict testConnection(const sb::NetworkPolicy& policy,
                                      const std::vector<sb::NetworkRule>& learned,
                                      const QString& destination,
                                      const sb::SessionAnswers* answers = nullptr,
                                      const QString& program = {});
    // After resolving a name: the decision for each of its addresses, a line each.
    static QStringList testAddresses(const sb::NetworkPolicy& policy,
                                     const std::vector<sb::NetworkRule>& learned,
                                     const QString& host, std::uint16_t port,
                                     const QList<QHostAddress>& addresses,
                                     const QString& program = {});
    // A command line as a shell would split it; a program without '/' is looked up on this
    // machine's PATH (the sandbox sees the same /usr), else matched by its name. A running
    // session's `answers` for itself come before the rules, as the session applies them.
    static TestVerdict testCommand(const sb::CommandPolicy& policy,
                                   const std::vector<sb::CommandRule>& learned,
                                   const QString& commandLine,
                                   const sb::SessionAnswers* answers = nullptr);

    // Where a learned rule takes effect among the user's rules, as sb::mergeLearned places it:
    // the number of the user's rules before it.
    static int effectivePosition(const std::vector<sb::NetworkRule>& user,
                                 const std::vector<sb::NetworkRule>& learned, int learnedRow);
    static int effectivePosition(const std::vector<sb::CommandRule>& user,
                                 const std::vector<sb::CommandRule>& learned, int learnedRow);

    static QString headline(sb::RuleAction action);
};

} // namespace sbui
