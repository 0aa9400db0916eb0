#include "RuleText.h"

#include "base/JsonLocator.h"
#include "policy/PolicyRules.h"
#include "policy/SchemaChecker.h"

#include <QRegularExpression>
#include <QStringList>

namespace sbui {
namespace {

// Runs one entry through the core's reader, as the policy parser would read it.
template <class Rule, class Reader>
QString problemOf(const nlohmann::json& entry, Reader read, QString* field)
{
    const std::string text = entry.dump();
    const sb::JsonLocator locator(text);
    sb::SchemaChecker checker("rule", locator);
    Rule out;
    read(checker, entry, std::string(), out);
    const sb::Status status = checker.result();
    if (!status) return {};
    QStringList lines;
    for (const QString& line : QString::fromStdString(status->message).split(u'\n')) {
        // "rule:1:10: at /ports/0: what" → the key for the caller, "what" for people.
        static const QRegularExpression shape(QStringLiteral("^[^ ]*: at (/[^:]*|/): (.*)$"));
        const QRegularExpressionMatch m = shape.match(line);
        if (!m.hasMatch()) {
            lines << line;
            continue;
        }
        if (field && field->isEmpty()) *field = m.captured(1).section(u'/', 1, 1);
        lines << m.captured(2);
    }
    return lines.join(u'\n');
}

} // namespace

QString RuleText::actionLabel(sb::RuleAction action)
{
    switch (action) {
    case sb::RuleAction::Allow:
        return tr("Allow");
    case sb::RuleAction::Ask:
        return tr("Ask");
    case sb::RuleAction::Deny:
        return tr("Deny");
    }
    return {};
}

QIcon RuleText::actionIcon(sb::RuleAction action)
{
    switch (action) {
    case sb::RuleAction::Allow:
        return QIcon(QStringLiteral(":/icons/allow.svg"));
    case sb::RuleAction::Ask:
        return QIcon(QStringLiteral(":/icons/approval.svg"));
    case sb::RuleAction::Deny:
        return QIcon(QStringLiteral(":/icons/deny.svg"));
    }
    return {};
}

QString RuleText::actionKeyword(sb::RuleAction action)
{
    return QString::fromLatin1(sb::toString(action).data(),
                               static_cast<qsizetype>(sb::toString(action).size()));
}

QString RuleText::portsText(const std::vector<std::uint16_t>& ports)
{
    QStringList words;
    for (std::uint16_t p : ports)
        words << QString::number(p);
    return words.join(QStringLiteral(", "));
}

nlohmann::json RuleText::portsJson(const QString& text)
{
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    const QStringList words = text.split(separators, Qt::SkipEmptyParts);
    if (words.isEmpty()) return nullptr;
    nlohmann::json out = nlohmann::json::array();
    for (const QString& w : words) {
        bool ok = false;
        const qlonglong n = w.toLongLong(&ok);
        if (ok && n >= 0)
            out.push_back(static_cast<std::uint64_t>(n));
        else if (ok)
            out.push_back(static_cast<std::int64_t>(n));
        else
            out.push_back(w.toStdString());
    }
    return out;
}

std::vector<std::uint16_t> RuleText::ports(const QString& text)
{
    std::vector<std::uint16_t> out;
    const nlohmann::json words = portsJson(text);
    if (!words.is_array()) return out;
    for (const auto& w : words)
        if (w.is_number_unsigned() && w.get<std::uint64_t>() >= 1 &&
            w.get<std::uint64_t>() <= 65535)
            out.push_back(static_cast<std::uint16_t>(w.get<std::uint64_t>()));
    return out;
}

QString RuleText::networkRuleProblem(const nlohmann::json& rule, QString* field)
{
    return problemOf<sb::NetworkRule>(rule, sb::readNetworkRule, field);
}

QString RuleText::commandRuleProblem(const nlohmann::json& rule, QString* field)
{
    return problemOf<sb::CommandRule>(rule, sb::readCommandRule, field);
}

QString RuleText::withoutPosition(const std::string& message)
{
    static const QRegularExpression position(QStringLiteral("^[^\\n]*?:\\d+:\\d+: "),
                                             QRegularExpression::MultilineOption);
    QString text = QString::fromStdString(message);
    return text.remove(position);
}

QString RuleText::decidingRule(const QString& rule)
{
    static const QRegularExpression network(QStringLiteral("^rule (\\d+) \\((.*)\\)$"));
    static const QRegularExpression command(
        QStringLiteral("^commands\\.rules\\[(\\d+)\\] \\((.*)\\)$"));
    if (const auto match = network.match(rule); match.hasMatch())
        return tr("rule %1 (%2)").arg(match.captured(1), match.captured(2));
    if (const auto match = command.match(rule); match.hasMatch())
        return tr("command rule %1 (%2)")
            .arg(QString::number(match.captured(1).toInt() + 1), match.captured(2));
    return rule;
}

} // namespace sbui
