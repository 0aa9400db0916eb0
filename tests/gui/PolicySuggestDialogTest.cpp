// Policy → Suggest from sessions…: the proposals listed with their evidence, risky ones left
// unchecked, what is saved only what stays checked, a double click asking for the example in
// the replay; and the dialog at work on a real recorded session.
#include "learning/PolicySuggestDialog.h"

#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "settings/Language.h"

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
};

QTEST_MAIN(PolicySuggestDialogTest)
#include "PolicySuggestDialogTest.moc"
