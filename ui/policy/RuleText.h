// Words and checks shared by the policy editors: action names and icons as the tables show them,
// the ports column's text, and the core's own verdict on a single rule entry (the policy parser's
// messages, without the file position a lone entry does not have).
#pragma once

#include "policy/Policy.h"

#include <QCoreApplication>
#include <QIcon>
#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

namespace sbui {

class RuleText {
    Q_DECLARE_TR_FUNCTIONS(RuleText)

  public:
    // "Allow", "Ask", "Deny" (translated), and their icons.
    static QString actionLabel(sb::RuleAction action);
    static QIcon actionIcon(sb::RuleAction action);
    // The policy's own word: "allow", "ask", "deny".
    static QString actionKeyword(sb::RuleAction action);

    // "443, 8443"; empty for any port.
    static QString portsText(const std::vector<std::uint16_t>& ports);
    // The ports column's text as a policy's "ports" value: numbers where a word is a number, the
    // word itself otherwise, so that the core says what is wrong with it. Null for an empty text
    // (any port).
    static nlohmann::json portsJson(const QString& text);
    // The numbers of a ports text that are ports; the rest is dropped (see portsJson()).
    static std::vector<std::uint16_t> ports(const QString& text);

    // The core's messages on one `network.rules` or `commands.rules` entry, one a line, each
    // without its position ("'a b' is not a valid host name (…)"); `field` receives the key of
    // the first problem ("host", "ports", "match"). Empty when the entry is fine.
    static QString networkRuleProblem(const nlohmann::json& rule, QString* field = nullptr);
    static QString commandRuleProblem(const nlohmann::json& rule, QString* field = nullptr);

    // A policy message ("FILE:LINE:COL: at /pointer: what") without "FILE:LINE:COL: ".
    static QString withoutPosition(const std::string& message);

    // The core's English for the rule that decided ("rule 2 (ask api.example.com)" for a
    // connection, "commands.rules[0] (ask \"git push *\")" for a command) in the window's
    // language, the rule itself as written; any other text as it is.
    static QString decidingRule(const QString& rule);
};

} // namespace sbui
