#include "PolicyTester.h"

#include "RuleText.h"
#include "policy/CommandRules.h"
#include "policy/LearnedRules.h"
#include "policy/NetworkRules.h"

#include <QRegularExpression>
#include <QStandardPaths>

namespace sbui {
namespace {

// The chain a connection by `program` alone would carry: that process, no parents known.
sb::ProcessChain processOf(const QString& program)
{
    const QString path = program.trimmed();
    if (path.isEmpty()) return {};
    return {sb::ProcessInfo{0, path.toStdString(), {path.toStdString()}}};
}

// Which rule of the merged list came from where: the merge keeps each rule's comment, so a tag
// in the comment survives it ("u3": the user's row 3, "l0": learned row 0).
struct Origin {
    int user = -1;
    int learned = -1;
};

template <class Rule> void tag(std::vector<Rule>& rules, char kind)
{
    for (std::size_t i = 0; i < rules.size(); ++i)
        rules[i].comment = kind + std::to_string(i);
}

template <class Rule> Origin originOf(const Rule& merged)
{
    Origin o;
    if (merged.comment.size() < 2) return o;
    const int i = std::stoi(merged.comment.substr(1));
    (merged.comment[0] == 'u' ? o.user : o.learned) = i;
    return o;
}

// The core's text of a rule ends with its comment, here the tag: left out.
template <class Rule> QString untagged(QString text, const Rule& merged)
{
    const QString tag = QStringLiteral(": ") + QString::fromStdString(merged.comment);
    if (!merged.comment.empty() && text.endsWith(tag)) text.chop(tag.size());
    return text;
}

// The policy a session would run: the user's rules with the learned ones merged in, tagged.
sb::Policy merged(const sb::NetworkPolicy* network, const std::vector<sb::NetworkRule>* learnedNet,
                  const sb::CommandPolicy* commands,
                  const std::vector<sb::CommandRule>* learnedCommands)
{
    sb::Policy policy;
    sb::LearnedRules learned;
    if (network) {
        policy.network = *network;
        tag(policy.network.rules, 'u');
        learned.network = *learnedNet;
        tag(learned.network, 'l');
    }
    if (commands) {
        policy.commands = *commands;
        tag(policy.commands.rules, 'u');
        learned.commands = *learnedCommands;
        tag(learned.commands, 'l');
    }
    sb::mergeLearned(policy, learned);
    return policy;
}

template <class Rule> int positionAmongUser(const std::vector<Rule>& merged, int learnedRow)
{
    int users = 0;
    for (const Rule& r : merged) {
        const Origin o = originOf(r);
        if (o.learned == learnedRow) return users;
        if (o.user >= 0) ++users;
    }
    return users;
}

// "rule 3 (deny 10.0.0.0/8)" → 2 and "deny 10.0.0.0/8"; the core numbers rules from 1.
bool splitRuleText(const std::string& text, int* index, QString* rule)
{
    static const QRegularExpression shape(QStringLiteral("^rule (\\d+) \\((.*)\\)$"));
    const QRegularExpressionMatch m = shape.match(QString::fromStdString(text));
    if (!m.hasMatch()) return false;
    *index = m.captured(1).toInt() - 1;
    *rule = m.captured(2);
    return true;
}

// "commands.rules[2] (ask \"git push *\")" → "ask \"git push *\"".
QString commandRuleText(const std::string& text)
{
    const QString t = QString::fromStdString(text);
    const qsizetype open = t.indexOf(u'(');
    return open >= 0 && t.endsWith(u')') ? t.mid(open + 1, t.size() - open - 2) : t;
}

} // namespace

int PolicyTester::effectivePosition(const std::vector<sb::NetworkRule>& user,
                                    const std::vector<sb::NetworkRule>& learned, int learnedRow)
{
    sb::NetworkPolicy policy;
    policy.rules = user;
    return positionAmongUser(merged(&policy, &learned, nullptr, nullptr).network.rules, learnedRow);
}

int PolicyTester::effectivePosition(const std::vector<sb::CommandRule>& user,
                                    const std::vector<sb::CommandRule>& learned, int learnedRow)
{
    sb::CommandPolicy policy;
    policy.rules = user;
    return positionAmongUser(merged(nullptr, nullptr, &policy, &learned).commands.rules,
                             learnedRow);
}

QString PolicyTester::headline(sb::RuleAction action)
{
    switch (action) {
    case sb::RuleAction::Allow:
        return tr("Allowed");
    case sb::RuleAction::Ask:
        return tr("Asked: held until you answer");
    case sb::RuleAction::Deny:
        return tr("Denied");
    }
    return {};
}

TestVerdict PolicyTester::testConnection(const sb::NetworkPolicy& policy,
                                         const std::vector<sb::NetworkRule>& learned,
                                         const QString& destination,
                                         const sb::SessionAnswers* answers, const QString& program)
{
    TestVerdict v;
    QString host = destination.trimmed();
    int port = 443;
    bool portGiven = false;
    static const QRegularExpression bracketed(QStringLiteral("^\\[([^\\]]*)\\](?::(\\d+))?$"));
    if (auto m = bracketed.match(host); m.hasMatch()) {
        host = m.captured(1);
        portGiven = m.capturedLength(2) > 0;
        if (portGiven) port = m.captured(2).toInt();
    } else if (host.count(u':') == 1) {
        bool ok = false;
        port = host.section(u':', 1).toInt(&ok);
        if (!ok) {
            v.reason = tr("“%1” is not a port number.").arg(host.section(u':', 1));
            return v;
        }
        host = host.section(u':', 0, 0);
        portGiven = true;
    }
    if (host.isEmpty()) {
        v.reason = tr("Write a host and a port, such as api.example.com:443.");
        return v;
    }
    if (port < 1 || port > 65535) {
        v.reason = tr("The port must be a number from 1 to 65535.");
        return v;
    }
    auto normalised = sb::normaliseHost(host.toStdString());
    if (!normalised) {
        v.reason = QString::fromStdString(normalised.error().message);
        return v;
    }
    v.evaluated = true;
    v.host = QString::fromStdString(*normalised);
    v.port = static_cast<std::uint16_t>(port);
    if (!portGiven) v.note = tr("No port given: port 443 assumed.");

    if (policy.mode == sb::NetworkMode::Host) {
        v.action = sb::RuleAction::Allow;
        v.headline = headline(v.action);
        v.reason = tr("The network mode is “host”: the agent uses this machine's network "
                      "unfiltered, and no rule applies.");
        return v;
    }
    const sb::Policy all = merged(&policy, &learned, nullptr, nullptr);
    auto rules = sb::NetworkRules::compile(all.network);
    if (!rules) {
        v.evaluated = false;
        v.reason = tr("Fix the rules first: %1").arg(QString::fromStdString(rules.error().message));
        return v;
    }
    const std::vector<sb::IpAddress> own = sb::hostAddresses();
    const sb::ProcessChain process = processOf(program);
    const sb::NetworkDecision d = rules->decideHost(*normalised, v.port, own, process);
    v.action = d.action;
    v.headline = headline(d.action);
    int index = -1;
    QString ruleText;
    if (policy.mode == sb::NetworkMode::None) {
        v.reason = tr("The network mode is “none”: the sandbox has no network at all.");
    } else if (splitRuleText(d.rule, &index, &ruleText) && index >= 0 &&
               index < static_cast<int>(all.network.rules.size())) {
        const sb::NetworkRule& rule = all.network.rules[static_cast<std::size_t>(index)];
        const Origin o = originOf(rule);
        ruleText = untagged(ruleText, rule);
        v.userRule = o.user;
        v.learnedRule = o.learned;
        v.reason = o.user >= 0
                       ? tr("Your rule %1 decides: %2.").arg(o.user + 1).arg(ruleText)
                       : tr("Learned rule %1 decides: %2.").arg(o.learned + 1).arg(ruleText);
    } else if (d.rule.starts_with("built-in: ")) {
        v.reason = tr("A built-in block decides: %1. Only a rule that names this destination "
                      "exactly opens it.")
                       .arg(QString::fromStdString(d.rule.substr(10)));
    } else {
        v.reason = tr("No rule matches, so the default decides (%1).")
                       .arg(RuleText::actionLabel(policy.defaultAction));
    }
    if (d.action == sb::RuleAction::Ask && answers && policy.mode == sb::NetworkMode::Filtered)
        if (const auto answered = answers->decideConnection(*normalised, v.port, process)) {
            v.action = *answered ? sb::RuleAction::Allow : sb::RuleAction::Deny;
            v.headline = headline(v.action);
            v.userRule = v.learnedRule = -1;
            v.reason = *answered ? tr("Your answer earlier in this session decides: the rules "
                                      "would ask, and the session allows it without asking again.")
                                 : tr("Your answer earlier in this session decides: the rules "
                                      "would ask, and the session denies it without asking again.");
        }
    v.dependsOnAddresses = !d.final;
    if (v.dependsOnAddresses) {
        const QString more = tr("Before connecting, the proxy checks the addresses the name "
                                "resolves to: loopback, private networks or an address rule can "
                                "still decide otherwise.");
        v.note = v.note.isEmpty() ? more : tr("%1 %2").arg(v.note, more);
    }
    return v;
}

QStringList PolicyTester::testAddresses(const sb::NetworkPolicy& policy,
                                        const std::vector<sb::NetworkRule>& learned,
                                        const QString& host, std::uint16_t port,
                                        const QList<QHostAddress>& addresses,
                                        const QString& program)
{
    QStringList lines;
    const sb::Policy all = merged(&policy, &learned, nullptr, nullptr);
    auto rules = sb::NetworkRules::compile(all.network);
    if (!rules) return lines;
    const std::vector<sb::IpAddress> own = sb::hostAddresses();
    for (const QHostAddress& a : addresses) {
        auto ip = sb::IpAddress::parse(a.toString().section(u'%', 0, 0).toStdString());
        if (!ip) continue;
        const sb::NetworkDecision d =
            rules->decideAddress(host.toStdString(), *ip, port, own, processOf(program));
        int index = -1;
        QString ruleText;
        QString by = QString::fromStdString(d.rule);
        if (splitRuleText(d.rule, &index, &ruleText) && index >= 0 &&
            index < static_cast<int>(all.network.rules.size())) {
            const sb::NetworkRule& rule = all.network.rules[static_cast<std::size_t>(index)];
            const Origin o = originOf(rule);
            ruleText = untagged(ruleText, rule);
            by = o.user >= 0 ? tr("your rule %1 (%2)").arg(o.user + 1).arg(ruleText)
                             : tr("learned rule %1 (%2)").arg(o.learned + 1).arg(ruleText);
        } else if (d.rule.starts_with("built-in: ")) {
            by = tr("a built-in block (%1)").arg(QString::fromStdString(d.rule.substr(10)));
        } else if (d.rule.starts_with("default")) {
            by = tr("the default");
        }
        lines << tr("%1: %2, by %3")
                     .arg(QString::fromStdString(ip->toString()), headline(d.action), by);
    }
    return lines;
}

TestVerdict PolicyTester::testCommand(const sb::CommandPolicy& policy,
                                      const std::vector<sb::CommandRule>& learned,
                                      const QString& commandLine, const sb::SessionAnswers* answers)
{
    TestVerdict v;
    auto argv = sb::splitCommandLine(commandLine.toStdString());
    if (!argv) {
        v.reason = QString::fromStdString(argv.error().message);
        return v;
    }
    if (argv->empty()) {
        v.reason = tr("Write a command line, such as git push origin main.");
        return v;
    }
    v.evaluated = true;
    std::string program = argv->front();
    if (program.find('/') == std::string::npos) {
        const QString found = QStandardPaths::findExecutable(QString::fromStdString(program));
        if (found.isEmpty()) {
            v.note = tr("“%1” is not on this machine's PATH: matched by its name alone.")
                         .arg(QString::fromStdString(program));
        } else {
            program = found.toStdString();
            v.note = tr("The program is %1.").arg(found);
        }
    }
    if (answers)
        if (const auto answered = answers->decideCommand(program, *argv)) {
            v.action = *answered ? sb::RuleAction::Allow : sb::RuleAction::Deny;
            v.headline = headline(v.action);
            v.reason = *answered ? tr("Your answer earlier in this session decides, before any "
                                      "rule: the session allows it without asking.")
                                 : tr("Your answer earlier in this session decides, before any "
                                      "rule: the session denies it without asking.");
            return v;
        }
    const sb::Policy all = merged(nullptr, nullptr, &policy, &learned);
    const sb::CommandMatcher matcher(all.commands);
    const sb::CommandDecision d = matcher.decide(program, *argv);
    v.action = d.action;
    v.headline = headline(d.action);
    if (d.ruleIndex >= 0 && d.ruleIndex < static_cast<int>(all.commands.rules.size())) {
        const sb::CommandRule& matched = all.commands.rules[static_cast<std::size_t>(d.ruleIndex)];
        const Origin o = originOf(matched);
        const QString rule = untagged(commandRuleText(d.rule), matched);
        v.userRule = o.user;
        v.learnedRule = o.learned;
        v.reason = o.user >= 0 ? tr("Your rule %1 decides: %2.").arg(o.user + 1).arg(rule)
                               : tr("Learned rule %1 decides: %2.").arg(o.learned + 1).arg(rule);
    } else {
        v.reason = tr("No rule matches, so the default decides (%1).")
                       .arg(RuleText::actionLabel(policy.defaultAction));
    }
    return v;
}

} // namespace sbui
