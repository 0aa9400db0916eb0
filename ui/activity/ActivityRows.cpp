// What each activity event says in its row (ActivityModel::makeRow): its category, decision and
// summary, for every kind the supervisor sends (docs/protocol.md, "Activity events").
#include "ActivityModel.h"
#include "base/ActivityKinds.h"
#include "policy/CommandRules.h"
#include "policy/RuleText.h"

#include <QLocale>

using json = nlohmann::json;

namespace sbui {
namespace {

QString str(const json& event, const char* key)
{
    auto it = event.find(key);
    if (it == event.end() || it->is_null()) return {};
    if (it->is_string()) return QString::fromStdString(it->get<std::string>());
    return QString::fromStdString(it->dump());
}

// Field readers that never throw: a field of an unexpected type reads as absent.
std::string text(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& e, const char* key)
{
    auto it = e.find(key);
    return it != e.end() && it->is_boolean() && it->get<bool>();
}

std::int64_t number(const json& e, const char* key, std::int64_t otherwise = 0)
{
    auto it = e.find(key);
    return it != e.end() && it->is_number() ? it->get<std::int64_t>() : otherwise;
}

QString hostPort(const json& e)
{
    QString host = str(e, "host");
    if (host.contains(u':')) host = u'[' + host + u']';
    return host + u':' + str(e, "port");
}

QString words(const json& argv)
{
    QStringList out;
    for (const json& a : argv)
        out << QString::fromStdString(
            sb::quoteCommandWord(a.is_string() ? a.get<std::string>() : a.dump()));
    return out.join(u' ');
}

QString bytes(std::int64_t n)
{
    return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat);
}

QString humanWords(QString s)
{
    return s.replace(u'_', u' ');
}

// A model request through the proxy's gateway (docs/recording.md, model_request).
QString modelSummary(const json& e)
{
    const QLocale locale;
    auto count = [&](const char* key) {
        auto it = e.find(key);
        return locale.toString(it != e.end() && it->is_number_unsigned() ? it->get<qulonglong>()
                                                                         : qulonglong{0});
    };
    QString text =
        ActivityModel::tr("model %1 at %2: %3 tokens in, %4 out, %5 read from cache, "
                          "%6 written to cache (%7 s)")
            .arg(str(e, "model"), hostPort(e), count("input_tokens"), count("output_tokens"),
                 count("cache_read_tokens"), count("cache_write_tokens"))
            .arg(locale.toString(static_cast<double>(number(e, "duration_ms")) / 1000.0, 'f', 1));
    if (const std::int64_t status = number(e, "status"); status != 200 && status != 0)
        text += ActivityModel::tr(", status %1").arg(status);
    return text;
}

// What an approval asks about, from its fields (the "what" text is the CLI's English).
QString askedWhat(const json& e)
{
    if (auto argv = e.find("argv"); argv != e.end() && argv->is_array() && !argv->empty())
        return ActivityModel::tr("command %1 (in %2)").arg(words(*argv), str(e, "cwd"));
    if (e.contains("host") && e.contains("port"))
        return ActivityModel::tr("connection to %1 (%2)").arg(hostPort(e), str(e, "protocol"));
    return str(e, "what");
}

// A program's process (docs/protocol.md, "Processes"): started, or how it ended.
QString execSummary(const json& e)
{
    auto argv = e.find("argv");
    const QString command =
        argv != e.end() && argv->is_array() && !argv->empty() ? words(*argv) : str(e, "id");
    const QString by = str(e, "by");
    if (text(e, "type") == "start")
        return by.isEmpty() ? ActivityModel::tr("process started: %1").arg(command)
                            : ActivityModel::tr("process started by %1: %2").arg(by, command);
    QString how;
    if (const QString denied = str(e, "denied"); !denied.isEmpty())
        how = ActivityModel::tr("denied by %1").arg(RuleText::decidingRule(denied));
    else if (const QString error = str(e, "error"); !error.isEmpty())
        how = ActivityModel::tr("did not run: %1").arg(error);
    else if (flag(e, "timed_out"))
        how = ActivityModel::tr("timed out");
    else if (const QString signal = str(e, "signal"); !signal.isEmpty())
        how = ActivityModel::tr("killed by %1").arg(signal);
    else
        how = ActivityModel::tr("exit %1").arg(number(e, "exit_code"));
    return ActivityModel::tr("process %1 ended: %2 (%3 ms)")
        .arg(str(e, "id"), how)
        .arg(number(e, "duration_ms"));
}

// A program's file request (docs/protocol.md, "Files").
QString filesSummary(const json& e)
{
    const std::string op = text(e, "op");
    const QString path = str(e, "path");
    QString what;
    if (op == "write")
        what = e.contains("bytes")
                   ? ActivityModel::tr("wrote %1 (%2)").arg(path, bytes(number(e, "bytes")))
                   : ActivityModel::tr("wrote %1").arg(path);
    else if (op == "remove")
        what = ActivityModel::tr("removed %1").arg(path);
    else if (op == "rename")
        what = ActivityModel::tr("renamed %1 to %2").arg(path, str(e, "to"));
    else if (op == "mkdir")
        what = ActivityModel::tr("made folder %1").arg(path);
    else if (op == "symlink")
        what = ActivityModel::tr("linked %1 to %2").arg(path, str(e, "target"));
    else
        what = ActivityModel::tr("%1 %2").arg(QString::fromStdString(op), path);
    const QString by = str(e, "by");
    return by.isEmpty() ? what : ActivityModel::tr("%1, by %2").arg(what, by);
}

} // namespace

// A file event (docs/protocol.md, "File events").
QString ActivityModel::fileSummary(const json& e)
{
    const std::string change = text(e, "change");
    const QString path = str(e, "path");
    const bool folder = text(e, "type") == "directory";
    if (change == "added")
        return folder ? tr("added folder %1").arg(path) : tr("added %1").arg(path);
    if (change == "modified") return tr("modified %1").arg(path);
    if (change == "deleted")
        return folder ? tr("deleted folder %1").arg(path) : tr("deleted %1").arg(path);
    if (change == "renamed") return tr("renamed %1 to %2").arg(str(e, "from"), path);
    if (change == "more") {
        const int count = static_cast<int>(number(e, "count"));
        QString summary = path.isEmpty()
                              ? tr("%n more file change(s)", nullptr, count)
                              : tr("%n more file change(s) in %1", nullptr, count).arg(path);
        QStringList parts;
        if (int n = static_cast<int>(number(e, "added")); n > 0)
            parts << tr("%n added", nullptr, n);
        if (int n = static_cast<int>(number(e, "modified")); n > 0)
            parts << tr("%n modified", nullptr, n);
        if (int n = static_cast<int>(number(e, "deleted")); n > 0)
            parts << tr("%n deleted", nullptr, n);
        if (int n = static_cast<int>(number(e, "renamed")); n > 0)
            parts << tr("%n renamed", nullptr, n);
        if (!parts.isEmpty())
            summary += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
        return summary;
    }
    return change.empty() ? path : tr("%1 %2").arg(QString::fromStdString(change), path);
}

// A limit event (docs/protocol.md, "Limit events").
QString ActivityModel::limitSummary(const json& e)
{
    const std::string limit = text(e, "limit");
    const std::string action = text(e, "action");
    const std::string unit = text(e, "unit");
    const QString value = str(e, "value");
    const int count = static_cast<int>(number(e, "count", 1));
    QString amount = value;
    if (unit == "MiB")
        amount = tr("%1 MiB").arg(value);
    else if (unit == "s")
        amount = tr("%1 s").arg(value);
    if (limit == "memory" && action == "throttled")
        return tr("memory limit (%1) reached: the kernel reclaimed memory (%n time(s))", nullptr,
                  count)
            .arg(amount);
    if (limit == "memory" && action == "killed")
        return tr("memory limit (%1) reached: %n process(es) killed", nullptr, count).arg(amount);
    if (limit == "pids" && action == "refused")
        return tr("process limit (%1) reached: %n new process(es) refused", nullptr, count)
            .arg(amount);
    if (limit == "wall" && action == "stopped")
        return tr("time limit (%1) reached: the session was stopped").arg(amount);
    if (limit == "cpu_time" && action == "killed")
        return tr("CPU time limit (%1) reached: the command was killed (SIGXCPU)").arg(amount);
    if (limit == "file_size" && action == "killed")
        return tr("file size limit (%1) reached: the command was killed (SIGXFSZ)").arg(amount);
    QString summary = tr("limit: %1").arg(humanWords(QString::fromStdString(limit)));
    QStringList more;
    if (e.contains("value")) more << value;
    if (e.contains("action")) more << QString::fromStdString(action);
    if (!more.isEmpty()) summary += QStringLiteral(" (%1)").arg(more.join(QStringLiteral(", ")));
    return summary;
}

ActivityModel::Row ActivityModel::makeRow(const json& e)
{
    Row row;
    if (!e.is_object()) {
        row.kind = QStringLiteral("?");
        row.summary = QString::fromStdString(e.dump());
        row.json = e.dump();
        row.search = row.summary.toLower().toStdString();
        return row;
    }
    row.timeUnixMs = number(e, "time_unix_ms");
    const std::string kind = text(e, "kind");
    const std::string type = text(e, "type");
    const std::string decision = text(e, "decision");
    row.kind = QString::fromStdString(kind);
    auto verdict = [&](const std::string& d) {
        if (d == "allow") return Decision::Allowed;
        if (d == "deny") return Decision::Denied;
        if (d == "ask") return Decision::Asked;
        return Decision::None;
    };

    if (kind == sb::activity::kCommand) {
        row.category = Category::Command;
        row.decision = verdict(decision);
        row.commandId = number(e, "id", -1);
        auto argv = e.find("argv");
        row.summary = argv != e.end() && argv->is_array() && !argv->empty() ? words(*argv)
                                                                            : str(e, "program");
    } else if (kind == sb::activity::kNetwork) {
        row.category = Category::Network;
        if (type == "decided") {
            row.decision = verdict(decision);
            // A connection its command's process was refused: that command is refused too.
            row.commandId = number(e, "command_id", -1);
            row.refusal = row.decision == Decision::Denied && row.commandId >= 0;
            QString how = row.decision == Decision::Allowed ? tr("allowed") : tr("denied");
            // What decided, in the window's language when the event says it ("rule" is the
            // CLI's English text, kept for what the window has no words for).
            const std::string by = text(e, "decided_by");
            QString rule = str(e, "rule");
            if (by == "rule")
                row.summary =
                    tr("%1 %2 by rule %3").arg(hostPort(e), how).arg(number(e, "rule_number"));
            else if (by == "default")
                row.summary = tr("%1 %2 by the default action").arg(hostPort(e), how);
            else if (by == "answer")
                row.summary = tr("%1 %2 when asked").arg(hostPort(e), how);
            else
                row.summary = rule.isEmpty() ? tr("%1 %2").arg(hostPort(e), how)
                                             : tr("%1 %2 by %3").arg(hostPort(e), how, rule);
        } else if (type == "failed") {
            row.summary = tr("%1 failed: %2").arg(hostPort(e), str(e, "detail"));
        } else if (type == "malformed") {
            row.summary = tr("malformed proxy request: %1").arg(str(e, "detail"));
        } else if (type == "closed") {
            row.summary =
                tr("%1 closed (%2 up, %3 down)")
                    .arg(hostPort(e), bytes(number(e, "bytes_up")), bytes(number(e, "bytes_down")));
        } else if (type == "lookup") {
            // A name the sandbox's resolver answered: its addresses, or why none.
            QStringList addresses;
            if (auto list = e.find("addresses"); list != e.end() && list->is_array())
                for (const auto& a : *list)
                    if (a.is_string()) addresses << QString::fromStdString(a.get<std::string>());
            row.summary = tr("looked up %1 (%2): %3")
                              .arg(str(e, "host"), str(e, "query_type"),
                                   addresses.isEmpty() ? str(e, "rcode")
                                                       : addresses.join(QStringLiteral(", ")));
        } else {
            row.summary = hostPort(e);
        }
    } else if (kind == sb::activity::kApproval) {
        row.category = Category::Approval;
        const QString id = str(e, "request_id");
        row.requestId = number(e, "request_id", -1);
        row.commandId = number(e, "command_id", -1);
        row.outcome = type != "request";
        if (type == "request") {
            row.decision = Decision::Asked;
            row.summary = tr("approval #%1 asked: %2").arg(id, askedWhat(e));
        } else {
            const bool allow = decision == "allow";
            const QString how = allow ? tr("allowed") : tr("denied");
            if (flag(e, "timed_out")) {
                row.decision = Decision::TimedOut;
                row.summary = tr("approval #%1 timed out: %2").arg(id, how);
            } else if (flag(e, "cancelled")) {
                row.decision = allow ? Decision::Allowed : Decision::Denied;
                row.summary = tr("approval #%1 cancelled: %2").arg(id, how);
            } else {
                row.decision = allow ? Decision::Allowed : Decision::Denied;
                row.summary = tr("approval #%1 %2 (%3, by %4)")
                                  .arg(id, how, str(e, "duration"), str(e, "answered_by"));
            }
        }
    } else if (kind == sb::activity::kFile) {
        row.category = Category::File;
        row.summary = fileSummary(e);
    } else if (kind == sb::activity::kLimit) {
        row.category = Category::Limit;
        row.summary = limitSummary(e);
    } else if (kind == sb::activity::kLifecycle) {
        row.category = Category::Lifecycle;
        if (type == "exit") {
            const std::int64_t status = number(e, "status", -1);
            row.summary = status > 128 ? tr("exit %1 (signal %2)").arg(status).arg(status - 128)
                                       : tr("exit %1").arg(status);
        } else {
            QString what = str(e, "phase");
            if (what.isEmpty()) what = str(e, "type");
            row.summary = humanWords(what);
            QString detail = str(e, "detail");
            if (detail.isEmpty()) detail = str(e, "message");
            if (!detail.isEmpty()) row.summary += QStringLiteral(": ") + detail;
        }
    } else if (kind == sb::activity::kPolicy && type == "update") {
        // The running session took a new policy (policy_update; the recording's policy_change).
        row.category = Category::Lifecycle;
        auto sections = [&](const char* key) {
            QStringList out;
            if (auto it = e.find(key); it != e.end() && it->is_array())
                for (const json& s : *it)
                    if (s.is_string()) out << QString::fromStdString(s.get<std::string>());
            return out.join(QStringLiteral(", "));
        };
        row.summary = tr("policy changed by %1: %2 command rules, %3 network rules")
                          .arg(str(e, "by"))
                          .arg(number(e, "commands_rules"))
                          .arg(number(e, "network_rules"));
        if (const QString applied = sections("applied"); !applied.isEmpty())
            row.summary += tr("; applied: %1").arg(applied);
        if (const QString deferred = sections("deferred"); !deferred.isEmpty())
            row.summary += tr("; for new sessions only: %1").arg(deferred);
    } else if (kind == sb::activity::kPolicy) {
        // A rule learned from an "always" answer (the recording's policy_change).
        row.category = Category::Approval;
        row.summary =
            tr("policy: %1 rule %2 (%3)").arg(str(e, "section"), str(e, "rule"), str(e, "source"));
    } else if (kind == sb::activity::kError) {
        row.category = Category::Lifecycle;
        row.summary = tr("error: %1").arg(str(e, "message"));
    } else if (kind == sb::activity::kPort) {
        row.category = Category::Lifecycle;
        row.summary =
            text(e, "action") == "exposed"
                ? tr("port %1 exposed at 127.0.0.1:%2 by %3")
                      .arg(number(e, "port"))
                      .arg(number(e, "host_port"))
                      .arg(str(e, "by"))
                : tr("port %1 no longer exposed (%2)").arg(number(e, "port")).arg(str(e, "by"));
    } else if (kind == sb::activity::kRefusal) {
        // A call the sandbox refused (mount, unshare, ptrace…), under the command that made it.
        row.category = Category::Command;
        row.decision = Decision::Denied;
        row.commandId = number(e, "command_id", -1);
        row.refusal = true;
        QString who;
        if (auto process = e.find("process"); process != e.end() && process->is_array() &&
                                              !process->empty() && process->front().is_object()) {
            const json& p = process->front();
            auto argv = p.find("argv");
            who = argv != p.end() && argv->is_array() && !argv->empty() ? words(*argv)
                                                                        : str(p, "program");
        }
        row.summary =
            who.isEmpty()
                ? tr("%1 refused by the sandbox's system call filter").arg(str(e, "syscall"))
                : tr("%1 refused by the sandbox's system call filter: %2 (pid %3)")
                      .arg(str(e, "syscall"), who, str(e, "pid"));
    } else if (kind == sb::activity::kExec) {
        row.category = Category::Lifecycle;
        row.summary = execSummary(e);
        if (e.contains("denied")) row.decision = Decision::Denied;
    } else if (kind == sb::activity::kFiles) {
        row.category = Category::File;
        row.summary = filesSummary(e);
    } else if (kind == sb::activity::kSnapshot) {
        row.category = Category::Lifecycle;
        row.summary = tr("snapshot %1 taken by %2 (the sandbox frozen %3 ms)")
                          .arg(str(e, "name"), str(e, "by"))
                          .arg(QLocale().toString(e.value("frozen_ms", 0.0), 'f', 1));
    } else if (kind == sb::activity::kRecording) {
        // The recording stopped (a full disk, a database locked by another program) or went on.
        row.category = Category::Lifecycle;
        row.summary = str(e, "message");
    } else if (kind == sb::activity::kModel) {
        row.category = Category::Network;
        row.commandId = number(e, "command_id", -1);
        row.summary = modelSummary(e);
    } else if (kind == sb::activity::kLeak) {
        // Refused, and the one row of the timeline that must not go unseen (LeakBanner too).
        row.category = Category::Network;
        row.decision = Decision::Denied;
        row.refused = true;
        row.commandId = number(e, "command_id", -1);
        row.summary = tr("ATTEMPTED SECRET LEAK: %1 on its way to %2 (in the %3), refused")
                          .arg(str(e, "secret"), hostPort(e), str(e, "where"));
    } else if (kind == sb::activity::kExecution) {
        // A code interpreter's execution; its results are in the Results tab.
        row.category = Category::Command;
        const QString code = str(e, "code").trimmed();
        const QString first = code.section(u'\n', 0, 0);
        const int results = e.contains("results") && e["results"].is_array()
                                ? static_cast<int>(e["results"].size())
                                : 0;
        row.summary =
            e.contains("error") && e["error"].is_object()
                ? tr("code ran: %1 (error %2)").arg(first.left(120), str(e["error"], "name"))
                : tr("code ran: %1 (%n result(s))", nullptr, results).arg(first.left(120));
    } else {
        row.category = Category::Lifecycle;
        json rest = e;
        rest.erase("kind");
        rest.erase("time_unix_ms");
        row.summary = tr("%1: %2").arg(row.kind, QString::fromStdString(rest.dump()));
    }
    // A timed-out request took the policy's on_timeout action; it counts as refused when denied.
    row.refused = row.decision == Decision::Denied ||
                  (row.decision == Decision::TimedOut && decision == "deny");
    row.json = e.dump();

    QString search = row.summary + u'\n' + decisionName(row.decision);
    for (const auto& [key, value] : e.items())
        search += u'\n' + QString::fromStdString(key) + u' ' + fieldText(key, value);
    row.search = search.toLower().toStdString();
    return row;
}

QString ActivityModel::fieldText(const std::string& key, const json& value)
{
    if (value.is_string()) return QString::fromStdString(value.get<std::string>());
    if (key == "argv" && value.is_array()) return words(value);
    // An execution's results by type and size: the pictures themselves are the Results tab's.
    if (key == "results" && value.is_array()) {
        QStringList parts;
        for (const json& result : value)
            if (result.is_object() && result.contains("parts") && result["parts"].is_array())
                for (const json& part : result["parts"])
                    if (part.is_object())
                        parts << QStringLiteral("%1 (%2)").arg(
                            str(part, "mime"),
                            QLocale().formattedDataSize(part.value("bytes", qint64{0})));
        return parts.join(QStringLiteral(", "));
    }
    return QString::fromStdString(value.dump());
}

} // namespace sbui
