#include "ResumeBaseline.h"

#include "SessionHistory.h"
#include "base/ActivityKinds.h"
#include "policy/PolicyJson.h"

#include <QCoreApplication>
#include <QLocale>

namespace sbui {
namespace {

constexpr const char* kContext = "sbui::ResumeBaseline";

QString translated(const char* text)
{
    return QCoreApplication::translate(kContext, text);
}

int rankOf(sb::NetworkMode mode)
{
    return mode == sb::NetworkMode::None ? 0 : mode == sb::NetworkMode::Filtered ? 1 : 2;
}

int rankOf(sb::RuleAction action)
{
    return action == sb::RuleAction::Deny ? 0 : action == sb::RuleAction::Ask ? 1 : 2;
}

QString nameOf(sb::NetworkMode mode)
{
    return mode == sb::NetworkMode::None
               ? QCoreApplication::translate("sbui::ResumeBaseline", "none")
           : mode == sb::NetworkMode::Filtered
               ? QCoreApplication::translate("sbui::ResumeBaseline", "filtered")
               : QCoreApplication::translate("sbui::ResumeBaseline", "host");
}

QString nameOf(sb::RuleAction action)
{
    return action == sb::RuleAction::Deny
               ? QCoreApplication::translate("sbui::ResumeBaseline", "deny")
           : action == sb::RuleAction::Ask
               ? QCoreApplication::translate("sbui::ResumeBaseline", "ask")
               : QCoreApplication::translate("sbui::ResumeBaseline", "allow");
}

QString number(std::uint64_t value)
{
    return QLocale().toString(static_cast<qulonglong>(value));
}

// A limit (0: none) raised or lifted: "no time limit (it ran with 180 s)".
void compareLimit(QStringList& out, std::uint64_t ran, std::uint64_t next, const char* lifted,
                  const char* raised)
{
    if (ran == 0 || (next != 0 && next <= ran)) return;
    out << (next == 0 ? translated(lifted).arg(number(ran))
                      : translated(raised).arg(number(next), number(ran)));
}

} // namespace

ResumeBaseline resumeBaseline(const QString& sessionId, const SessionHistory& history)
{
    ResumeBaseline b;
    b.sessionId = sessionId;
    const nlohmann::json& recorded = history.policy;
    if (recorded.is_object()) {
        b.policyFile = QString::fromStdString(recorded.value("file", ""));
        b.preset = QString::fromStdString(recorded.value("preset", ""));
    }
    // A live update may have moved it to another file (Save as in the Policy tab).
    for (auto it = history.events.rbegin(); it != history.events.rend(); ++it)
        if (it->value("kind", "") == sb::activity::kPolicy && it->value("type", "") == "update" &&
            it->contains("policy")) {
            if (const std::string file = it->value("file", ""); !file.empty()) {
                b.policyFile = QString::fromStdString(file);
                b.preset.clear();
            }
            break;
        }
    b.document = policyRanUnder(history);
    if (b.document.is_object())
        if (auto policy = sb::parsePolicy(b.document.dump(), "the recorded policy"))
            b.ran = std::move(*policy);
    return b;
}

QStringList loosenings(const sb::Policy& ran, const sb::Policy& next)
{
    QStringList out;
    if (rankOf(next.network.mode) > rankOf(ran.network.mode))
        out << QCoreApplication::translate("sbui::ResumeBaseline", "network %1 (it ran with %2)")
                   .arg(nameOf(next.network.mode), nameOf(ran.network.mode));
    if (rankOf(next.commands.defaultAction) > rankOf(ran.commands.defaultAction))
        out << QCoreApplication::translate("sbui::ResumeBaseline",
                                           "other commands: %1 (it ran with %2)")
                   .arg(nameOf(next.commands.defaultAction), nameOf(ran.commands.defaultAction));
    if (rankOf(next.network.defaultAction) > rankOf(ran.network.defaultAction))
        out << QCoreApplication::translate("sbui::ResumeBaseline",
                                           "other hosts: %1 (it ran with %2)")
                   .arg(nameOf(next.network.defaultAction), nameOf(ran.network.defaultAction));
    const auto rules = [](const auto& section) {
        return nlohmann::json::parse(section.dump()).value("rules", nlohmann::json());
    };
    const auto ranJson = sb::policyToJson(ran), nextJson = sb::policyToJson(next);
    if (rules(ranJson["commands"]) != rules(nextJson["commands"]))
        out << QCoreApplication::translate("sbui::ResumeBaseline",
                                           "other command rules than it ran with");
    if (rules(ranJson["network"]) != rules(nextJson["network"]))
        out << QCoreApplication::translate("sbui::ResumeBaseline",
                                           "other network rules than it ran with");
    compareLimit(out, ran.limits.memoryMb, next.limits.memoryMb,
                 QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "no memory limit (it ran with %1 MB)"),
                 QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "memory %1 MB (it ran with %2 MB)"));
    compareLimit(
        out, ran.limits.pids, next.limits.pids,
        QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "no process limit (it ran with %1 processes)"),
        QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "%1 processes (it ran with %2 processes)"));
    compareLimit(out, ran.limits.cpuPercent, next.limits.cpuPercent,
                 QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "no CPU limit (it ran with %1 %)"),
                 QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "CPU %1 % (it ran with %2 %)"));
    compareLimit(out, ran.limits.wallSeconds, next.limits.wallSeconds,
                 QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "no time limit (it ran with %1 s)"),
                 QT_TRANSLATE_NOOP("sbui::ResumeBaseline", "time limit %1 s (it ran with %2 s)"));
    if (next.approvals.onTimeout == sb::RuleAction::Allow &&
        ran.approvals.onTimeout != sb::RuleAction::Allow)
        out << QCoreApplication::translate("sbui::ResumeBaseline",
                                           "unanswered requests allowed (it ran denying them)");
    return out;
}

} // namespace sbui
