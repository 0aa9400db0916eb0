// The policy editors' models: the rule tables under QAbstractItemModelTester through edits,
// insertions, deletions, moves and drag-and-drop reorders (mime data), each row checked by the
// core as it changes (its own messages, the faulty column marked), and the observed list built
// from activity events.
#include "activity/ActivityModel.h"
#include "policy/CommandRulesModel.h"
#include "policy/NetworkRulesModel.h"
#include "policy/ObservedModel.h"
#include "policy/RuleText.h"

#include <QAbstractItemModelTester>
#include <QIcon>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <memory>

using sbui::CommandRulesModel;
using sbui::NetworkRulesModel;
using sbui::ObservedModel;
using sbui::RuleTableModel;

namespace {

sb::NetworkRule net(sb::RuleAction action, const char* host, std::vector<std::uint16_t> ports = {})
{
    return {action, host, std::move(ports), ""};
}

QStringList hosts(const NetworkRulesModel& model)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.index(r, NetworkRulesModel::HostColumn).data().toString();
    return out;
}

QStringList matches(const CommandRulesModel& model)
{
    QStringList out;
    for (int r = 0; r < model.rowCount(); ++r)
        out << model.index(r, CommandRulesModel::MatchColumn).data().toString();
    return out;
}

// A drag of `row` dropped before `before`, as the view hands it to the model.
bool drag(RuleTableModel& model, int row, int before)
{
    std::unique_ptr<QMimeData> data(model.mimeData({model.index(row, 0), model.index(row, 1)}));
    if (!data) return false;
    return model.dropMimeData(data.get(), Qt::MoveAction, before, 0, {});
}

} // namespace

class PolicyModelTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void networkRulesEditMoveAndDrop()
    {
        NetworkRulesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy edited(&model, &RuleTableModel::edited);
        model.setRules({net(sb::RuleAction::Allow, "*.github.com", {443}),
                        net(sb::RuleAction::Deny, "10.0.0.0/8"), net(sb::RuleAction::Ask, "*")});
        QCOMPARE(edited.count(), 0); // a load is not an edit
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, NetworkRulesModel::PortsColumn).data().toString(),
                 QStringLiteral("443"));
        QCOMPARE(model.index(1, NetworkRulesModel::PortsColumn).data().toString(),
                 QStringLiteral("any"));
        QCOMPARE(model.headerData(0, Qt::Vertical).toInt(), 1); // rules are numbered from 1
        QVERIFY(model.flags(model.index(0, 0)) & Qt::ItemIsDragEnabled);
        QVERIFY(!(model.flags(model.index(0, 0)) & Qt::ItemIsDropEnabled)); // between rows only
        QVERIFY(model.flags({}) & Qt::ItemIsDropEnabled);

        // Up and down.
        QVERIFY(model.moveRule(2, -1));
        QCOMPARE(hosts(model), (QStringList{"*.github.com", "*", "10.0.0.0/8"}));
        QVERIFY(model.moveRule(0, +1));
        QCOMPARE(hosts(model), (QStringList{"*", "*.github.com", "10.0.0.0/8"}));
        QVERIFY(!model.moveRule(0, -1));
        QVERIFY(!model.moveRule(2, +1));

        // Drag and drop: the last to the top, the first to the end, onto itself changes nothing.
        QVERIFY(drag(model, 2, 0));
        QCOMPARE(hosts(model), (QStringList{"10.0.0.0/8", "*", "*.github.com"}));
        QVERIFY(drag(model, 0, 3));
        QCOMPARE(hosts(model), (QStringList{"*", "*.github.com", "10.0.0.0/8"}));
        QVERIFY(drag(model, 1, 1));
        QCOMPARE(hosts(model), (QStringList{"*", "*.github.com", "10.0.0.0/8"}));
        // Dropped on a rule: it goes before that rule.
        std::unique_ptr<QMimeData> data(model.mimeData({model.index(2, 0)}));
        QVERIFY(model.dropMimeData(data.get(), Qt::MoveAction, -1, -1, model.index(0, 0)));
        QCOMPARE(hosts(model), (QStringList{"10.0.0.0/8", "*", "*.github.com"}));
        // Rows of another table are not taken.
        NetworkRulesModel other;
        other.setRules({net(sb::RuleAction::Deny, "example.com")});
        std::unique_ptr<QMimeData> foreign(other.mimeData({other.index(0, 0)}));
        QVERIFY(!model.canDropMimeData(foreign.get(), Qt::MoveAction, 0, 0, {}));
        QVERIFY(!model.dropMimeData(foreign.get(), Qt::MoveAction, 0, 0, {}));

        // Edits, in place.
        QVERIFY(model.setData(model.index(1, NetworkRulesModel::ActionColumn),
                              static_cast<int>(sb::RuleAction::Deny)));
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("Deny"));
        QVERIFY(model.setData(model.index(2, NetworkRulesModel::PortsColumn), "443, 8443"));
        QCOMPARE(model.rule(2).ports, (std::vector<std::uint16_t>{443, 8443}));
        QVERIFY(model.setData(model.index(2, NetworkRulesModel::CommentColumn), "code hosting"));
        QCOMPARE(model.rule(2).comment, std::string("code hosting"));
        model.insertRule(1, net(sb::RuleAction::Allow, "fd00::1", {22}));
        QCOMPARE(hosts(model), (QStringList{"10.0.0.0/8", "fd00::1", "*", "*.github.com"}));
        QVERIFY(model.removeRows(0, 1));
        QCOMPARE(hosts(model), (QStringList{"fd00::1", "*", "*.github.com"}));
        QVERIFY(edited.count() >= 10);
        QVERIFY(model.problemRows().empty());
    }

    // The core's own words for what is wrong, on the cell at fault; fixing it clears them.
    void networkRowsAreCheckedByTheCore()
    {
        NetworkRulesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRules({net(sb::RuleAction::Allow, "api.example.com", {443})});
        const QModelIndex host = model.index(0, NetworkRulesModel::HostColumn);
        const QModelIndex ports = model.index(0, NetworkRulesModel::PortsColumn);

        QVERIFY(model.setData(host, "example.com:443"));
        QCOMPARE(model.problem(0), QStringLiteral("'example.com:443': a port belongs in \"ports\" "
                                                  "(expected the host alone, such as "
                                                  "'example.com')"));
        QCOMPARE(model.problemColumn(0), int(NetworkRulesModel::HostColumn));
        QCOMPARE(host.data(Qt::ToolTipRole).toString(), model.problem(0));
        QVERIFY(!host.data(Qt::DecorationRole).isNull());
        QVERIFY(ports.data(Qt::ToolTipRole).isNull());

        QVERIFY(model.setData(host, "10.0.0.1/8"));
        QVERIFY2(model.problem(0).contains("expected 10.0.0.0/8"), qPrintable(model.problem(0)));
        QVERIFY(model.setData(host, "*.ex*mple.com"));
        QVERIFY2(model.problem(0).contains("'*' may only be the whole first label"),
                 qPrintable(model.problem(0)));

        QVERIFY(model.setData(host, "api.example.com"));
        QVERIFY(model.problem(0).isEmpty());
        QVERIFY(model.setData(ports, "443, 70000"));
        QCOMPARE(model.problem(0),
                 QStringLiteral("70000 is out of range (expected an integer from 1 to 65535)"));
        QCOMPARE(model.problemColumn(0), int(NetworkRulesModel::PortsColumn));
        QVERIFY(model.setData(ports, "https"));
        QVERIFY2(model.problem(0).contains("expected an integer from 1 to 65535"),
                 qPrintable(model.problem(0)));
        QCOMPARE(model.problemRows(), std::vector<int>{0});
        QVERIFY(model.setData(ports, ""));
        QVERIFY(model.problem(0).isEmpty());
        QVERIFY(model.rule(0).ports.empty()); // empty: any port

        QVERIFY(model.setData(host, ""));
        QVERIFY2(model.problem(0).startsWith("empty host"), qPrintable(model.problem(0)));
    }

    void commandRulesEditMoveAndCheck()
    {
        CommandRulesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRules({{sb::RuleAction::Allow, "git push --dry-run *", ""},
                        {sb::RuleAction::Deny, "git push *", "push from your own shell"},
                        {sb::RuleAction::Allow, "git *", ""}});
        QCOMPARE(model.index(1, CommandRulesModel::CommentColumn).data().toString(),
                 QStringLiteral("push from your own shell"));
        QVERIFY(drag(model, 2, 0));
        QCOMPARE(matches(model), (QStringList{"git *", "git push --dry-run *", "git push *"}));
        QVERIFY(model.moveRows({}, 0, 1, {}, 3));
        QCOMPARE(matches(model), (QStringList{"git push --dry-run *", "git push *", "git *"}));

        const QModelIndex match = model.index(2, CommandRulesModel::MatchColumn);
        QVERIFY(model.setData(match, "curl x | sh"));
        QVERIFY2(model.problem(2).contains("'|' in \"curl x | sh\" is shell syntax"),
                 qPrintable(model.problem(2)));
        QCOMPARE(model.problemColumn(2), int(CommandRulesModel::MatchColumn));
        QVERIFY(model.setData(match, "echo 'unterminated"));
        QVERIFY2(model.problem(2).contains("unterminated ' quote"), qPrintable(model.problem(2)));
        QVERIFY(model.setData(match, "make *"));
        QVERIFY(model.problemRows().empty());
        QCOMPARE(model.rules()[2].match, std::string("make *"));

        // Read-only (learned rules): no edits, no drags, no drops.
        model.setReadOnly(true);
        QVERIFY(!(model.flags(match) & Qt::ItemIsEditable));
        QVERIFY(!(model.flags(match) & Qt::ItemIsDragEnabled));
        QVERIFY(!model.setData(match, "rm *"));
        QVERIFY(!model.moveRule(0, 1));
    }

    void portsText()
    {
        using sbui::RuleText;
        QVERIFY(RuleText::portsJson(QString()).is_null());
        QCOMPARE(RuleText::portsJson("443, 8443 22").dump(), std::string("[443,8443,22]"));
        QCOMPARE(RuleText::portsJson("443,x").dump(), std::string("[443,\"x\"]"));
        QCOMPARE(RuleText::ports("443, 0, 70000, 22"), (std::vector<std::uint16_t>{443, 22}));
        QCOMPARE(RuleText::portsText({80, 443}), QStringLiteral("80, 443"));
    }

    // One row per destination or command, the latest decision and how often.
    void observedFromActivity()
    {
        sbui::ActivityModel activity;
        ObservedModel network(ObservedModel::Kind::Network);
        ObservedModel commands(ObservedModel::Kind::Command);
        QAbstractItemModelTester t1(&network,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&commands,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        activity.addEvent({{"kind", "network"},
                           {"type", "decided"},
                           {"host", "api.example.com"},
                           {"port", 443},
                           {"decision", "deny"},
                           {"rule", "default (deny)"}});
        activity.addEvent({{"kind", "command"},
                           {"program", "/usr/bin/git"},
                           {"argv", {"git", "push", "origin"}},
                           {"decision", "ask"},
                           {"rule", "commands.rules[0] (ask \"git push *\")"}});
        activity.flush();
        network.setSource(&activity); // what was there before is read at once
        commands.setSource(&activity);
        QCOMPARE(network.rowCount(), 1);
        QCOMPARE(commands.rowCount(), 1);
        activity.addEvent({{"kind", "network"},
                           {"type", "decided"},
                           {"host", "api.example.com"},
                           {"port", 443},
                           {"decision", "allow"},
                           {"asked", true},
                           {"rule", "approval answered"}});
        activity.addEvent(
            {{"kind", "network"}, {"type", "closed"}, {"host", "api.example.com"}, {"port", 443}});
        activity.addEvent({{"kind", "network"},
                           {"type", "decided"},
                           {"host", "fd00::1"},
                           {"port", 22},
                           {"decision", "deny"},
                           {"rule", "built-in: private"}});
        activity.addEvent({{"kind", "command"},
                           {"program", "/usr/bin/ls"},
                           {"argv", {"ls"}},
                           {"decision", "allow"},
                           {"rule", "commands.default"}});
        activity.addEvent({{"kind", "command"},
                           {"program", "/usr/bin/git"},
                           {"argv", {"git-alias", "push", "origin"}},
                           {"decision", "deny"},
                           {"rule", "x"}});
        activity.flush();
        QCOMPARE(network.rowCount(), 2);
        QCOMPARE(network.subject(0), QStringLiteral("api.example.com:443"));
        QCOMPARE(network.index(0, ObservedModel::CountColumn).data().toInt(), 2);
        QCOMPARE(network.index(0, ObservedModel::DecisionColumn).data().toString(),
                 QStringLiteral("allowed when asked"));
        QCOMPARE(network.subject(1), QStringLiteral("[fd00::1]:22"));
        QCOMPARE(network.request(1).port, 22);
        // argv[0] differs, the program and arguments do not: the same command.
        QCOMPARE(commands.rowCount(), 2);
        QCOMPARE(commands.index(0, ObservedModel::CountColumn).data().toInt(), 2);
        QVERIFY(commands.decision(0) == sbui::ActivityModel::Decision::Denied);
        QCOMPARE(commands.request(0).program, std::string("/usr/bin/git"));
        QCOMPARE(commands.subject(1), QStringLiteral("ls"));
        // A decision's icon is made once, not parsed again each time a view sizes its columns
        // by every row (issue 37, item 7: thousands of rows under load).
        const auto icon = [&](int row) {
            return commands.index(row, ObservedModel::DecisionColumn)
                .data(Qt::DecorationRole)
                .value<QIcon>();
        };
        QVERIFY(!icon(1).isNull());
        QCOMPARE(icon(1).cacheKey(), icon(1).cacheKey());
        activity.clear();
        QCOMPARE(network.rowCount(), 0);
        QCOMPARE(commands.rowCount(), 0);
    }
};

QTEST_MAIN(PolicyModelTest)
#include "PolicyModelTest.moc"
