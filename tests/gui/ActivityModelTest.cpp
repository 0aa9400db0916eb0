// ActivityModel and ActivityFilterModel: rows for the events the supervisor sends (payloads as
// SessionLoop builds them), batching, the model contract, and the filters.
#include "activity/ActivityModel.h"

#include "activity/ActivityFilterModel.h"
#include "recording/RecordingTypes.h"
#include "sessions/SessionHistory.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QSignalSpy>
#include <QTest>

using json = nlohmann::json;
using sbui::ActivityFilterModel;
using sbui::ActivityModel;
using Category = ActivityModel::Category;
using Decision = ActivityModel::Decision;

namespace {

constexpr std::int64_t kStart = 1'764'465'704'000;

json command(std::vector<std::string> argv, const std::string& decision, std::int64_t at = 1000)
{
    return {{"kind", "command"},
            {"program", "/usr/bin/" + argv.front()},
            {"argv", argv},
            {"cwd", "/home/u/project"},
            {"pid", 42},
            {"decision", decision},
            {"rule", decision == "allow" ? "commands.default"
                                         : "commands.rules[0] (" + decision + " \"git push *\")"},
            {"time_unix_ms", kStart + at}};
}

json networkDecided(const std::string& host, const std::string& decision, bool asked = false)
{
    return {{"kind", "network"},     {"type", "decided"},
            {"host", host},          {"port", 443},
            {"protocol", "connect"}, {"address", "93.184.216.34"},
            {"decision", decision},  {"rule", "network.rules[0] (allow \"*.example.com\")"},
            {"asked", asked},        {"time_unix_ms", kStart + 2000}};
}

json approvalRequest(int id)
{
    return {{"kind", "approval"},
            {"type", "request"},
            {"request_id", id},
            {"what", "git push origin"},
            {"rule", "git push *"},
            {"deadline_unix_ms", kStart + 120000},
            {"time_unix_ms", kStart + 3000}};
}

json approvalOutcome(int id, const std::string& decision, bool timedOut = false)
{
    return {{"kind", "approval"},
            {"type", "outcome"},
            {"request_id", id},
            {"decision", decision},
            {"timed_out", timedOut},
            {"cancelled", false},
            {"answered_by", "gui"},
            {"scope", "subcommand"},
            {"duration", "session"},
            {"latency_ms", 2300},
            {"time_unix_ms", kStart + 4000}};
}

// One event of every kind, in the order a session could send them.
std::vector<json> sessionEvents()
{
    return {
        {{"kind", "lifecycle"}, {"type", "started"}, {"time_unix_ms", kStart}},
        command({"git", "status"}, "allow"),
        command({"git", "push", "origin"}, "ask"),
        approvalRequest(3),
        approvalOutcome(3, "allow"),
        networkDecided("example.com", "allow"),
        networkDecided("tracker.invalid", "deny"),
        command({"rm", "-rf", "/"}, "deny"),
        approvalOutcome(4, "deny", true),
        {{"kind", "file"},
         {"path", "src/main.cpp"},
         {"change", "modified"},
         {"time_unix_ms", kStart + 5000}},
        {{"kind", "limit"},
         {"limit", "memory"},
         {"value", 4096},
         {"action", "kill"},
         {"time_unix_ms", kStart + 6000}},
        {{"kind", "error"},
         {"message", "seccomp: bad notification"},
         {"time_unix_ms", kStart + 6500}},
        {{"kind", "recording"},
         {"state", "stopped"},
         {"message", "recording stopped: database or disk is full"},
         {"time_unix_ms", kStart + 6600}},
        {{"kind", "lifecycle"}, {"type", "exit"}, {"status", 0}, {"time_unix_ms", kStart + 7000}},
    };
}

void fill(ActivityModel& model, const std::vector<json>& events)
{
    for (const json& e : events)
        model.addEvent(e);
    model.flush();
}

int findRow(const ActivityModel& model, const QString& summary)
{
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.summary(r) == summary) return r;
    return -1;
}

QString cell(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole)
{
    return model.index(row, column).data(role).toString();
}

QStringList summaries(const QAbstractItemModel& model)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << cell(model, r, ActivityModel::SummaryColumn);
    return out;
}

} // namespace

class ActivityModelTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // A call the sandbox refused (as SessionLoop sends it) is a denied row naming the call and
    // the process, and the command that made it, shown as started until then, is refused too;
    // another command keeps its decision.
    void aRefusedCallMarksItsCommandRefused()
    {
        ActivityModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        json mount = command({"mount", "-t", "tmpfs", "none", "/tmp"}, "allow", 1000);
        mount["id"] = 7;
        json other = command({"ls"}, "allow", 1100);
        other["id"] = 8;
        fill(model, {mount, other});
        const int commandRow = findRow(model, QStringLiteral("mount -t tmpfs none /tmp"));
        QVERIFY(commandRow >= 0);
        QCOMPARE(model.decision(commandRow), Decision::Allowed);
        // In a later batch, as it comes in a running session.
        fill(model, {{{"kind", "refusal"},
                      {"syscall", "mount"},
                      {"rule", "the sandbox's system call filter"},
                      {"pid", 12},
                      {"command_id", 7},
                      {"process",
                       {{{"pid", 12},
                         {"program", "/usr/bin/mount"},
                         {"argv", {"mount", "-t", "tmpfs", "none", "/tmp"}}}}},
                      {"time_unix_ms", kStart + 1200}}});
        const QString refusal = QStringLiteral("mount refused by the sandbox's system call "
                                               "filter: mount -t tmpfs none /tmp (pid 12)");
        const int refusalRow = findRow(model, refusal);
        QVERIFY2(refusalRow >= 0, qPrintable(summaries(model).join(u'\n')));
        QCOMPARE(model.category(refusalRow), Category::Command);
        QCOMPARE(model.decision(refusalRow), Decision::Denied);
        QVERIFY(model.refused(refusalRow));
        QCOMPARE(cell(model, refusalRow, ActivityModel::KindColumn), QStringLiteral("refusal"));
        QCOMPARE(model.decision(commandRow), Decision::Denied);
        QVERIFY(model.refused(commandRow));
        QCOMPARE(model.decision(findRow(model, QStringLiteral("ls"))), Decision::Allowed);

        // A connection refused to a command's process marks that command too.
        json curl = command({"curl", "http://tracker.invalid/"}, "allow", 1300);
        curl["id"] = 9;
        json refusedConnection = networkDecided("tracker.invalid", "deny");
        refusedConnection["command_id"] = 9;
        fill(model, {curl});
        fill(model, {refusedConnection});
        const int curlRow = findRow(model, QStringLiteral("curl http://tracker.invalid/"));
        QCOMPARE(model.decision(curlRow), Decision::Denied);
        QVERIFY(model.refused(curlRow));
    }

    void summariesAndDecisionsForEachKind()
    {
        ActivityModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(model, sessionEvents());
        QCOMPARE(model.rowCount(), 14);
        QCOMPARE(model.columnCount(), int(ActivityModel::ColumnCount));

        const QStringList all = summaries(model);
        const QString listing = all.join(u'\n');
        auto expect = [&](const QString& summary, Category category, Decision decision,
                          bool refused) {
            const int row = findRow(model, summary);
            QVERIFY2(row >= 0, qPrintable(summary + QStringLiteral(" not in:\n") + listing));
            QCOMPARE(model.category(row), category);
            QCOMPARE(model.decision(row), decision);
            QCOMPARE(model.refused(row), refused);
            QCOMPARE(model.index(row, 0).data(ActivityModel::RefusedRole).toBool(), refused);
            QCOMPARE(model.index(row, 0).data(ActivityModel::CategoryRole).toInt(), int(category));
        };
        expect(QStringLiteral("git status"), Category::Command, Decision::Allowed, false);
        expect(QStringLiteral("git push origin"), Category::Command, Decision::Asked, false);
        expect(QStringLiteral("rm -rf /"), Category::Command, Decision::Denied, true);
        // Its outcome came: the request's row says how it ended.
        expect(QStringLiteral("approval #3 asked: git push origin"), Category::Approval,
               Decision::Allowed, false);
        expect(QStringLiteral("approval #3 allowed (session, by gui)"), Category::Approval,
               Decision::Allowed, false);
        expect(QStringLiteral("approval #4 timed out: denied"), Category::Approval,
               Decision::TimedOut, true);
        expect(QStringLiteral("example.com:443 allowed by network.rules[0] (allow "
                              "\"*.example.com\")"),
               Category::Network, Decision::Allowed, false);
        expect(QStringLiteral("tracker.invalid:443 denied by network.rules[0] (allow "
                              "\"*.example.com\")"),
               Category::Network, Decision::Denied, true);
        expect(QStringLiteral("modified src/main.cpp"), Category::File, Decision::None, false);
        expect(QStringLiteral("limit: memory (4096, kill)"), Category::Limit, Decision::None,
               false);
        expect(QStringLiteral("error: seccomp: bad notification"), Category::Lifecycle,
               Decision::None, false);
        expect(QStringLiteral("recording stopped: database or disk is full"), Category::Lifecycle,
               Decision::None, false);
        QCOMPARE(cell(model,
                      findRow(model, QStringLiteral("recording stopped: database or disk is full")),
                      ActivityModel::KindColumn),
                 QStringLiteral("recording"));
        expect(QStringLiteral("exit 0"), Category::Lifecycle, Decision::None, false);
        expect(QStringLiteral("started"), Category::Lifecycle, Decision::None, false);

        const int denied = findRow(model, QStringLiteral("rm -rf /"));
        QCOMPARE(cell(model, denied, ActivityModel::DecisionColumn), QStringLiteral("denied"));
        QCOMPARE(cell(model, denied, ActivityModel::KindColumn), QStringLiteral("command"));
        QVERIFY(model.index(denied, ActivityModel::DecisionColumn)
                    .data(Qt::ForegroundRole)
                    .value<QColor>()
                    .isValid());
        QVERIFY(!model.index(denied, ActivityModel::KindColumn)
                     .data(Qt::DecorationRole)
                     .value<QIcon>()
                     .isNull());
        QCOMPARE(cell(model, denied, 0, ActivityModel::KindNameRole), QStringLiteral("command"));
        // The raw event for the details pane.
        const json raw = model.event(denied);
        QCOMPARE(raw.value("cwd", ""), std::string("/home/u/project"));
        QVERIFY(cell(model, denied, 0, ActivityModel::JsonRole)
                    .contains(QStringLiteral("\"pid\": 42")));
        QVERIFY2(model.detailsText(denied).contains(QStringLiteral("cwd: /home/u/project")),
                 qPrintable(model.detailsText(denied)));
        QVERIFY(model.detailsText(denied).contains(QStringLiteral("argv: rm -rf /")));
    }

    // An allowed command is a program that started, and says so; an asked one and its request
    // follow the answer when it comes, in the same batch or a later one.
    void approvalsKeepTheirRowsCurrent()
    {
        ActivityModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        json started = command({"cat", "/root/.ssh/id_ed25519"}, "allow");
        started["id"] = 1;
        json held = command({"rm", "-rf", "/root/.ssh"}, "ask", 2000);
        held["id"] = 2;
        json request = approvalRequest(5);
        request["command_id"] = 2;
        json refused = command({"git", "push"}, "ask", 3000);
        refused["id"] = 3;
        json second = approvalRequest(6);
        second["command_id"] = 3;
        fill(model, {started, held, request, refused, second});
        QCOMPARE(cell(model, 0, ActivityModel::DecisionColumn), QStringLiteral("started"));
        QVERIFY(cell(model, 0, ActivityModel::DecisionColumn, Qt::ToolTipRole)
                    .contains(QLatin1String("confined by the sandbox")));
        QCOMPARE(cell(model, 1, ActivityModel::DecisionColumn), QStringLiteral("asked"));
        QCOMPARE(cell(model, 2, ActivityModel::DecisionColumn), QStringLiteral("asked"));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        fill(model, {approvalOutcome(5, "allow")});
        QVERIFY(changed.count() >= 1);
        QCOMPARE(model.decision(1), Decision::Allowed);
        QCOMPARE(cell(model, 1, ActivityModel::DecisionColumn), QStringLiteral("started"));
        QCOMPARE(model.decision(2), Decision::Allowed);
        QCOMPARE(cell(model, 2, ActivityModel::DecisionColumn), QStringLiteral("allowed"));

        // Timed out into a denial: the command never ran.
        fill(model, {approvalOutcome(6, "deny", true)});
        QCOMPARE(model.decision(3), Decision::Denied);
        QVERIFY(model.refused(3));
        QCOMPARE(model.decision(4), Decision::TimedOut);
        QVERIFY(model.refused(4));

        // Within one batch as well.
        json late = command({"make"}, "ask", 5000);
        late["id"] = 9;
        json asked = approvalRequest(7);
        asked["command_id"] = 9;
        fill(model, {late, asked, approvalOutcome(7, "deny")});
        QCOMPARE(model.decision(7), Decision::Denied);
        QCOMPARE(model.decision(8), Decision::Denied);
    }

    // The sandbox's resolver's answers: the name, its type, and the addresses or why none.
    void lookupsReadAsSentences()
    {
        ActivityModel model;
        fill(model, {json{{"kind", "network"},
                          {"type", "lookup"},
                          {"host", "api.example.com"},
                          {"query_type", "A"},
                          {"rcode", "NOERROR"},
                          {"addresses", {"192.0.2.1", "192.0.2.2"}}},
                     json{{"kind", "network"},
                          {"type", "lookup"},
                          {"host", "tracker.invalid"},
                          {"query_type", "AAAA"},
                          {"rcode", "NXDOMAIN"},
                          {"addresses", json::array()}}});
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(findRow(model, QStringLiteral("looked up api.example.com (A): 192.0.2.1, "
                                              "192.0.2.2")) >= 0);
        const int refused = findRow(model, QStringLiteral("looked up tracker.invalid (AAAA): "
                                                          "NXDOMAIN"));
        QVERIFY(refused >= 0);
        QCOMPARE(model.category(refused), Category::Network);
    }

    void exitBySignalAndQuotedArguments()
    {
        ActivityModel model;
        fill(model, {{{"kind", "lifecycle"}, {"type", "exit"}, {"status", 137}},
                     command({"git", "commit", "-m", "fix it"}, "allow")});
        QCOMPARE(model.summary(0), QStringLiteral("exit 137 (signal 9)"));
        QCOMPARE(model.summary(1), QStringLiteral("git commit -m 'fix it'"));
    }

    void fileAndLimitEventsReadAsSentences()
    {
        ActivityModel model;
        auto file = [](json fields) {
            fields["kind"] = "file";
            fields["time_unix_ms"] = kStart;
            return fields;
        };
        auto limit = [](json fields) {
            fields["kind"] = "limit";
            fields["time_unix_ms"] = kStart;
            return fields;
        };
        fill(model,
             {file({{"change", "added"}, {"path", "src/new.c"}, {"type", "file"}}),
              file({{"change", "added"}, {"path", "build"}, {"type", "directory"}}),
              file({{"change", "deleted"}, {"path", "old"}, {"type", "directory"}}),
              file({{"change", "renamed"}, {"path", "b.txt"}, {"from", "a.txt"}}),
              file({{"change", "more"},
                    {"count", 1234},
                    {"path", "node_modules"},
                    {"added", 1200},
                    {"modified", 34},
                    {"deleted", 0},
                    {"renamed", 0}}),
              limit({{"limit", "memory"},
                     {"value", 512},
                     {"unit", "MiB"},
                     {"action", "killed"},
                     {"count", 2}}),
              limit({{"limit", "memory"},
                     {"value", 512},
                     {"unit", "MiB"},
                     {"action", "throttled"},
                     {"count", 40}}),
              limit({{"limit", "pids"},
                     {"value", 64},
                     {"unit", "processes"},
                     {"action", "refused"},
                     {"count", 3}}),
              limit({{"limit", "wall"}, {"value", 60}, {"unit", "s"}, {"action", "stopped"}}),
              limit({{"limit", "cpu_time"},
                     {"value", 5},
                     {"unit", "s"},
                     {"action", "killed"},
                     {"signal", "SIGXCPU"}}),
              limit({{"limit", "file_size"},
                     {"value", 1},
                     {"unit", "MiB"},
                     {"action", "killed"},
                     {"signal", "SIGXFSZ"}})});
        QCOMPARE(summaries(model),
                 QStringList({
                     QStringLiteral("added src/new.c"),
                     QStringLiteral("added folder build"),
                     QStringLiteral("deleted folder old"),
                     QStringLiteral("renamed a.txt to b.txt"),
                     QStringLiteral("1234 more file change(s) in node_modules (1200 added, 34 "
                                    "modified)"),
                     QStringLiteral("memory limit (512 MiB) reached: 2 process(es) killed"),
                     QStringLiteral("memory limit (512 MiB) reached: the kernel reclaimed memory "
                                    "(40 time(s))"),
                     QStringLiteral("process limit (64) reached: 3 new process(es) refused"),
                     QStringLiteral("time limit (60 s) reached: the session was stopped"),
                     QStringLiteral("CPU time limit (5 s) reached: the command was killed "
                                    "(SIGXCPU)"),
                     QStringLiteral("file size limit (1 MiB) reached: the command was killed "
                                    "(SIGXFSZ)"),
                 }));
        for (int r = 0; r < 5; ++r)
            QCOMPARE(model.category(r), Category::File);
        for (int r = 5; r < model.rowCount(); ++r) {
            QCOMPARE(model.category(r), Category::Limit);
            QCOMPARE(cell(model, r, ActivityModel::KindColumn), QStringLiteral("limit"));
        }
        QCOMPARE(cell(model, 0, ActivityModel::KindColumn), QStringLiteral("file"));
    }

    // From a recording: live file events as sent, the end's net result left out (it repeats
    // them), a recording from before live events shown as it was; limits as sent.
    void recordedFileAndLimitEventsForTheTimeline()
    {
        auto recorded = [](sb::EventKind kind, const json& payload) {
            sb::RecordedEvent e;
            e.kind = kind;
            e.tNs = 2'000'000'000;
            e.data = payload.dump();
            return sbui::activityEvent(e, kStart);
        };
        const json live = {{"kind", "file"},
                           {"change", "renamed"},
                           {"path", "b.txt"},
                           {"from", "a.txt"},
                           {"time_unix_ms", kStart + 1500}};
        auto shown = recorded(sb::EventKind::WorkspaceChange, live);
        QVERIFY(shown);
        QVERIFY(*shown == live);
        QVERIFY(!recorded(sb::EventKind::WorkspaceChange,
                          {{"path", "b.txt"}, {"kind", "added"}, {"final", true}}));
        auto old = recorded(sb::EventKind::WorkspaceChange, {{"path", "x.c"}, {"kind", "added"}});
        QVERIFY(old);
        QCOMPARE(old->value("kind", ""), std::string("file"));
        QCOMPARE(old->value("change", ""), std::string("added"));
        QCOMPARE(old->value("time_unix_ms", std::int64_t{0}), kStart + 2000);
        auto hit = recorded(sb::EventKind::LimitHit,
                            {{"kind", "limit"}, {"limit", "wall"}, {"action", "stopped"}});
        QVERIFY(hit);
        ActivityModel model;
        fill(model, {*shown, *old, *hit});
        QCOMPARE(model.summary(0), QStringLiteral("renamed a.txt to b.txt"));
        QCOMPARE(model.summary(1), QStringLiteral("added x.c"));
        QCOMPARE(model.category(2), Category::Limit);
    }

    void aPolicyUpdateReadsAsASentence()
    {
        ActivityModel model;
        fill(model, {{{"kind", "policy"},
                      {"type", "update"},
                      {"by", "gui"},
                      {"origin", "policy update from gui"},
                      {"file", "/home/u/p/agent.json"},
                      {"commands_rules", 3},
                      {"network_rules", 1},
                      {"applied", {"commands", "network"}},
                      {"deferred", {"network.mode"}},
                      {"time_unix_ms", kStart}}});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.summary(0),
                 QStringLiteral("policy changed by gui: 3 command rules, 1 network rules; applied: "
                                "commands, network; for new sessions only: network.mode"));
        QCOMPARE(model.category(0), Category::Lifecycle);
    }

    void oddEventsDoNotBreakTheModel()
    {
        ActivityModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(model, {json::array({1, 2}),
                     {{"kind", 5}, {"status", "zero"}},
                     {{"kind", "command"}, {"argv", "not a list"}, {"decision", 1}},
                     {{"kind", "approval"}, {"type", "outcome"}, {"timed_out", "yes"}},
                     {{"kind", "telepathy"}, {"channel", "7"}}});
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.summary(4), QStringLiteral("telepathy: {\"channel\":\"7\"}"));
    }

    void timesAreWallClockOrRelativeToTheStart()
    {
        ActivityModel model;
        fill(model, {command({"ls"}, "allow", 65'000), command({"ls"}, "allow", 3'725'000)});
        const QString wall =
            QDateTime::fromMSecsSinceEpoch(kStart + 65'000).toString(QStringLiteral("HH:mm:ss"));
        QCOMPARE(cell(model, 0, ActivityModel::TimeColumn), wall);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSessionStart(kStart);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(cell(model, 0, ActivityModel::TimeColumn), QStringLiteral("+1:05"));
        QCOMPARE(cell(model, 1, ActivityModel::TimeColumn), QStringLiteral("+1:02:05"));
    }

    void eventsArriveInBatches()
    {
        ActivityModel model;
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        for (int i = 0; i < 100000; ++i)
            model.addEvent(command({"touch", "f" + std::to_string(i)}, "allow", i));
        // Not one insertion per event: nothing until the batch goes in, then all at once.
        QCOMPARE(model.rowCount(), 0);
        model.flush();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 99999);
        QCOMPARE(model.rowCount(), 100000);
        QCOMPARE(model.summary(99999), QStringLiteral("touch f99999"));

        // Without an explicit flush, the model's timer inserts soon after.
        model.addEvent(command({"touch", "late"}, "allow"));
        model.addEvent(command({"touch", "later"}, "allow"));
        QTRY_COMPARE(model.rowCount(), 100002);
        QCOMPARE(inserted.count(), 2);

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(reset.count(), 1);
    }

    void filterByKind()
    {
        ActivityModel model;
        ActivityFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester tester(&filter,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(model, sessionEvents());
        QCOMPARE(filter.rowCount(), 14);
        filter.setCategoryShown(Category::Command, false);
        QCOMPARE(filter.rowCount(), 11);
        QVERIFY(!summaries(filter).contains(QStringLiteral("git status")));
        filter.setCategoryShown(Category::Network, false);
        filter.setCategoryShown(Category::Lifecycle, false);
        QCOMPARE(filter.rowCount(), 5); // approvals (3), the file, the limit
        QVERIFY(!filter.isCategoryShown(Category::Network));
        QVERIFY(filter.isCategoryShown(Category::File));
        filter.setCategoryShown(Category::Command, true);
        QCOMPARE(filter.rowCount(), 8);
        // New events go through the same filter as they arrive.
        model.addEvent(command({"make"}, "allow"));
        model.addEvent({{"kind", "network"}, {"type", "failed"}, {"host", "a.b"}, {"port", 80}});
        model.flush();
        QCOMPARE(filter.rowCount(), 9);
        QCOMPARE(cell(filter, 8, ActivityModel::SummaryColumn), QStringLiteral("make"));
    }

    void filterDeniedOnly()
    {
        ActivityModel model;
        ActivityFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester tester(&filter,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(model, sessionEvents());
        filter.setDeniedOnly(true);
        QCOMPARE(summaries(filter),
                 QStringList({QStringLiteral("tracker.invalid:443 denied by network.rules[0] "
                                             "(allow \"*.example.com\")"),
                              QStringLiteral("rm -rf /"),
                              QStringLiteral("approval #4 timed out: denied")}));
        filter.setCategoryShown(Category::Approval, false);
        QCOMPARE(filter.rowCount(), 2);
        filter.setDeniedOnly(false);
        QCOMPARE(filter.rowCount(), 11);
    }

    void searchIsCaseInsensitiveOverSummaryAndFields()
    {
        ActivityModel model;
        ActivityFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester tester(&filter,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(model, sessionEvents());
        filter.setSearchText(QStringLiteral("GIT PUSH"));
        QCOMPARE(summaries(filter),
                 QStringList({QStringLiteral("git push origin"),
                              QStringLiteral("approval #3 asked: git push origin"),
                              QStringLiteral("rm -rf /")})); // its rule names "git push *"
        // A field that is only in the details: the proxy's resolved address.
        filter.setSearchText(QStringLiteral("93.184.216"));
        QCOMPARE(filter.rowCount(), 2);
        filter.setSearchText(QStringLiteral("Tracker"));
        QCOMPARE(filter.rowCount(), 1);
        filter.setDeniedOnly(true);
        QCOMPARE(filter.rowCount(), 1);
        filter.setSearchText(QStringLiteral("example.com:443"));
        QCOMPARE(filter.rowCount(), 0); // allowed, and denied only is on
        filter.setDeniedOnly(false);
        QCOMPARE(filter.rowCount(), 1);
        filter.setSearchText(QStringLiteral("nothing like this"));
        QCOMPARE(filter.rowCount(), 0);
        filter.setSearchText(QString());
        QCOMPARE(filter.rowCount(), 14);
    }
};

QTEST_MAIN(ActivityModelTest)
#include "ActivityModelTest.moc"
