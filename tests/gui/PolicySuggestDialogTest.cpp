// Policy → Suggest from sessions…: the proposals listed with their evidence, risky ones left
// unchecked, what is saved only what stays checked, a double click asking for the example in
// the replay; and the dialog at work on a real recorded session.
#include "learning/PolicySuggestDialog.h"

#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "sessions/SessionConnection.h"
#include "settings/Language.h"

#include <QComboBox>
#include <QDateTime>

#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace sbgt;
using sbui::PolicySuggestDialog;

namespace {

sb::ProposedRule command(const std::string& match, const std::string& risk = {})
{
    sb::ProposedRule p;
    p.section = sb::ProposedRule::Section::Commands;
    p.command = {sb::RuleAction::Allow, match, {}};
    p.evidence = {3, {"s1", "s2"}, match + " origin main", "s2", 1'500'000'000};
    p.risk = risk;
    if (!risk.empty()) p.remark = sb::ProposedRule::Remark::Interpreter;
    return p;
}

sb::Suggestion suggestion()
{
    sb::Suggestion s;
    s.rules = {command("git push *"), command("python3 *", "an interpreter running anything")};
    sb::ProposedRule host;
    host.section = sb::ProposedRule::Section::Network;
    host.network.action = sb::RuleAction::Allow;
    host.network.host = "*.python.org";
    host.network.ports = {443};
    host.network.program = "/usr/bin/curl";
    host.evidence = {1, {"s1"}, "docs.python.org:443 by curl", "s1", 42};
    s.rules.push_back(host);
    return s;
}

} // namespace

class PolicySuggestDialogTest : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // English's plural forms ("3 times") come from its translation file, as in the window.
    void initTestCase()
    {
        if (qEnvironmentVariableIsSet("SANDBENCH_SHOTS"))
            installShotLanguage();
        else
            QVERIFY(sbui::installTranslations(QStringLiteral("en")));
    }

    void proposalsCheckedUnlessRiskyAndOnlyCheckedOnesSaved()
    {
        TestWorld world;
        PolicySuggestDialog dialog;
        std::vector<sb::SessionRecord> sessions(2);
        sessions[0].id = "20261206-101500-aaaaaa";
        sessions[0].command = {"claude"};
        sessions[1].id = "20261206-090000-bbbbbb";
        sessions[1].command = {"bash", "-c", "make test"};
        dialog.setSessions(sessions, {QStringLiteral("20261206-090000-bbbbbb")});
        QCOMPARE(dialog.sessions()->count(), 2);
        QCOMPARE(dialog.sessions()->item(1)->checkState(), Qt::Checked);
        auto* suggest = dialog.findChild<QPushButton*>();
        QVERIFY(suggest);

        dialog.setSuggestion(suggestion());
        screenshotAsIs(dialog, QStringLiteral("suggest-dialog"));
        QTreeWidget* list = dialog.proposals();
        QCOMPARE(list->topLevelItemCount(), 3);
        QCOMPARE(list->topLevelItem(0)->text(0), QStringLiteral("command git push *"));
        QCOMPARE(list->topLevelItem(0)->checkState(0), Qt::Checked);
        QCOMPARE(list->topLevelItem(1)->checkState(0), Qt::Unchecked); // risky
        QCOMPARE(list->topLevelItem(1)->text(2),
                 QStringLiteral("risky: an interpreter running anything would allow every "
                                "program"));
        QCOMPARE(list->topLevelItem(2)->text(0),
                 QStringLiteral("host *.python.org port 443 by /usr/bin/curl"));
        QVERIFY(list->topLevelItem(0)->text(1).contains(QStringLiteral("3 times in 2 sessions")));

        // The user keeps the host rule, drops git push and takes the risky one after all.
        list->topLevelItem(0)->setCheckState(0, Qt::Unchecked);
        list->topLevelItem(1)->setCheckState(0, Qt::Checked);
        const sb::Suggestion chosen = dialog.chosen();
        QCOMPARE(chosen.rules.size(), std::size_t{2});
        QCOMPARE(QString::fromStdString(chosen.rules[0].command.match),
                 QStringLiteral("python3 *"));
        QCOMPARE(QString::fromStdString(chosen.rules[1].network.host),
                 QStringLiteral("*.python.org"));
        auto back = sb::parsePolicy(sb::renderSuggestion(chosen, true), "chosen");
        QVERIFY2(back, back ? "" : back.error().describe().c_str());
        QCOMPARE(back->commands.rules.size(), std::size_t{1});
        QCOMPARE(back->network.rules.size(), std::size_t{1});

        // A double click asks for the example's place in the replay.
        QSignalSpy shown(&dialog, &PolicySuggestDialog::showEvidence);
        Q_EMIT list->itemDoubleClicked(list->topLevelItem(0), 0);
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.at(0).at(0).toString(), QStringLiteral("s2"));
        QCOMPARE(shown.at(0).at(1).toLongLong(), 1'500'000'000LL);
    }

    // The rules go into the running session: its own policy is the base, and Apply sends the
    // base with the checked rules through the control protocol; the session runs them at once.
    void rulesGoIntoTheRunningSession()
    {
        TestWorld world;
        QString why;
        if (!sandboxWorks(world, &why)) SBG_SKIP(why);
        const QString policy = world.writePolicy(R"({"version": 1, "network": {"mode": "none"},
            "commands": {"default": "allow", "rules": [{"action": "ask", "match": "ls *"}]},
            "approvals": {"timeout_seconds": 1, "on_timeout": "deny"}})");
        QString error;
        // Observed: the ls the policy would ask about runs, and is recorded as such.
        auto session = HeadlessSession::start(
            world, QStringLiteral("learn-live"),
            {QStringLiteral("--policy"), policy, QStringLiteral("--observe")},
            {QStringLiteral("bash"), QStringLiteral("-c"),
             QStringLiteral("ls -la >/dev/null; echo listed; sleep 600")},
            &error);
        QVERIFY2(session, qPrintable(error));
        auto connection = sbui::SessionConnection::open(session->id(), &error);
        QVERIFY2(connection, qPrintable(error));

        PolicySuggestDialog dialog;
        QVERIFY(!dialog.applyButton()->isVisible());
        dialog.setRunningSession(connection.get());
        dialog.show();
        QVERIFY(dialog.applyButton()->isVisible());
        QVERIFY(!dialog.applyButton()->isEnabled()); // nothing proposed yet
        // Suggest until the recording holds the observed ls (the writer batches).
        std::vector<sb::SessionRecord> records(1);
        records[0].id = session->id().toStdString();
        records[0].command = {"bash"};
        records[0].startedNs = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
        dialog.setSessions(records, {session->id()});
        auto* suggest = dialog.findChild<QPushButton*>();
        QTRY_VERIFY_WITH_TIMEOUT(
            (suggest->click(), dialog.proposals()->topLevelItemCount() > 0), 20000);
        QVERIFY2(dialog.proposals()->topLevelItem(0)->text(0).endsWith(u" ls *"),
                 qPrintable(dialog.proposals()->topLevelItem(0)->text(0)));
        QVERIFY(dialog.applyButton()->isEnabled());
        screenshotAsIs(dialog, QStringLiteral("suggest-dialog-running-session"));

        QSignalSpy updated(connection.get(), &sbui::SessionConnection::policyUpdated);
        dialog.applyButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(updated.size(), 1, 20000);
        QVERIFY2(dialog.summaryText().contains(session->id()) &&
                     dialog.summaryText().contains(QStringLiteral("commands")),
                 qPrintable(dialog.summaryText()));
        // A client that connects now is told the session's policy: ls is allowed before the
        // rule that asked.
        auto later = sbui::SessionConnection::open(session->id(), &error);
        QVERIFY2(later, qPrintable(error));
        const auto rules = later->summary().effectivePolicy["commands"]["rules"];
        QVERIFY2(rules.size() == 2 && rules[0].value("match", "") == "ls *" &&
                     rules[0].value("action", "") == "allow" &&
                     rules[1].value("action", "") == "ask",
                 rules.dump().c_str());

        // Another base would replace the session's rules: Apply is not offered for it.
        auto* base = dialog.findChild<QComboBox*>();
        base->setCurrentIndex(1);
        QVERIFY(!dialog.applyButton()->isEnabled());
    }
};

QTEST_MAIN(PolicySuggestDialogTest)
#include "PolicySuggestDialogTest.moc"
