// The policy editor in the window's Policy tab: a commented policy file edited through the
// widgets (rules added, typed, deleted, reordered; mode and defaults changed), saved and read
// back with its comments; the core's messages for a bad host, port or pattern, and a refused
// save; the tester naming the deciding rule; learned rules removed and promoted (the learned
// file checked after the save, keeping a rule a session learned meanwhile); a preset saved under
// a new name through the answerable dialog; the unsaved-changes question; and a live session
// that picks up a saved policy at once and denies the command it now forbids.
#include "policy/PolicyEditor.h"

#include "GuiTestSupport.h"
#include "activity/ActivityModel.h"
#include "activity/ActivityView.h"
#include "main/MainWindow.h"
#include "main/Prompt.h"
#include "policy/CommandPolicyPage.h"
#include "policy/CommandRulesModel.h"
#include "policy/LearnedRules.h"
#include "policy/NetworkPolicyPage.h"
#include "policy/NetworkRulesModel.h"
#include "policy/PolicyDocument.h"
#include "policy/PolicyTester.h"
#include "policy/RuleListEditor.h"
#include "terminal/TerminalWidget.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>

using namespace sbgt;
using sbui::CommandRulesModel;
using sbui::NetworkRulesModel;
using sbui::PolicyEditor;
namespace prompt = sbui::prompt;

namespace {

// (Split where "/" meets "*": moc would take it for a comment inside the raw string.)
const QByteArray kCommented = R"(// Team policy: reviewed by Ana.
{
  "version": 1,
  "network": {
    "mode": "filtered",   // through the proxy
    "default": "ask",
    "rules": [
      // Code hosting
      { "action": "allow", "host": "*.github.com", "ports": [443] },
      { "action": "deny", "host": "10.0.0.0/8", "comment": "the office network" }
    ]
  },
  "commands": {
    "default": "allow",
    "rules": [
      { "action": "ask", "match": "git push *" },   // pushes are reviewed
      { "action": "deny", "match": "rm -rf /)"
                              R"(*" }
    ]
  },
  /* limits stay as they are */
  "limits": { "memory_mb": 2048 }
}
)";

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Types into a cell as a user does: the cell's editor, the text, Return.
bool typeInto(QAbstractItemView* view, const QModelIndex& index, const QString& text)
{
    // "Add rule" has opened the editor of its new rule already.
    if (!view->indexWidget(index)) {
        view->setCurrentIndex(index);
        view->edit(index);
    }
    auto* editor = qobject_cast<QLineEdit*>(view->indexWidget(index));
    if (!editor || !editor->isVisible()) return false;
    editor->selectAll();
    QTest::keyClicks(editor, text);
    QTest::keyClick(editor, Qt::Key_Return);
    // The delegate commits and closes the editor on the next turn of the event loop.
    QPointer<QLineEdit> open(editor);
    return QTest::qWaitFor([&open] {
        const QLineEdit* closing = open.data(); // read once: GCC sees no null dereference then
        return closing == nullptr || !closing->isVisible();
    });
}

// Picks the entry whose data is `value` with the keyboard, as a user would (activated()).
bool choose(QComboBox* box, int value)
{
    for (int i = 0; i < box->count() * 2 && box->currentData().toInt() != value; ++i)
        QTest::keyClick(box,
                        box->findData(value) > box->currentIndex() ? Qt::Key_Down : Qt::Key_Up);
    return box->currentData().toInt() == value;
}

QStringList column(const QAbstractItemModel* model, int c)
{
    QStringList out;
    for (int r = 0; r < model->rowCount(); ++r)
        out << model->index(r, c).data(Qt::EditRole).toString();
    return out;
}

} // namespace

class PolicyEditorTest : public QObject {
    Q_OBJECT

    std::unique_ptr<TestWorld> m_world;
    std::unique_ptr<PolicyEditor> m_editor;

    PolicyEditor& editor()
    {
        m_editor = std::make_unique<PolicyEditor>();
        m_editor->resize(900, 700);
        m_editor->show();
        [[maybe_unused]] bool exposed = QTest::qWaitForWindowExposed(m_editor.get());
        return *m_editor;
    }

  private Q_SLOTS:
    void init()
    {
        m_world = std::make_unique<TestWorld>();
        prompt::setNextAnswer(std::nullopt);
        prompt::setNextUnsavedChoice(std::nullopt);
        prompt::setNextFileName(std::nullopt);
    }
    void cleanup()
    {
        m_editor.reset();
        m_world.reset();
    }

    void editSaveAndReloadKeepsComments()
    {
        const QString path = m_world->writePolicy(kCommented);
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(path));
        QCOMPARE(ed.titleText(), QStringLiteral("policy.json"));
        QVERIFY(!ed.saveAction()->isEnabled()); // nothing to save yet
        sbui::NetworkPolicyPage* net = ed.networkPage();
        QAbstractItemModelTester t1(ed.document()->networkRules(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(ed.document()->commandRules(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(column(ed.document()->networkRules(), NetworkRulesModel::HostColumn),
                 (QStringList{"*.github.com", "10.0.0.0/8"}));

        // Network: a new rule after the first, typed in; the deny rule moved to the top; the
        // default and the mode changed.
        sbui::RuleListEditor* rules = net->rules();
        rules->selectRow(0);
        QTest::mouseClick(rules->addButton(), Qt::LeftButton);
        QCOMPARE(rules->currentRow(), 1);
        QVERIFY(typeInto(rules->view(),
                         ed.document()->networkRules()->index(1, NetworkRulesModel::HostColumn),
                         "api.example.com"));
        QVERIFY(typeInto(rules->view(),
                         ed.document()->networkRules()->index(1, NetworkRulesModel::PortsColumn),
                         "443, 8443"));
        QVERIFY(ed.document()->isModified());
        QVERIFY(ed.saveAction()->isEnabled());
        QVERIFY(ed.titleText().contains("modified"));
        rules->selectRow(2);
        QTest::mouseClick(rules->upButton(), Qt::LeftButton);
        QTest::mouseClick(rules->upButton(), Qt::LeftButton);
        QVERIFY(!rules->upButton()->isEnabled()); // at the top
        QCOMPARE(column(ed.document()->networkRules(), NetworkRulesModel::HostColumn),
                 (QStringList{"10.0.0.0/8", "*.github.com", "api.example.com"}));
        QVERIFY(choose(net->defaultBox(), int(sb::RuleAction::Deny)));
        QVERIFY(choose(net->modeBox(), int(sb::NetworkMode::Host)));
        QVERIFY2(net->modeMessage().contains("unfiltered"), qPrintable(net->modeMessage()));
        QVERIFY(choose(net->modeBox(), int(sb::NetworkMode::None)));
        QVERIFY(net->modeMessage().contains("no network"));

        // Commands: the second rule deleted, one added and typed, the default changed.
        sbui::CommandPolicyPage* cmd = ed.commandPage();
        ed.pages()->setCurrentWidget(cmd);
        cmd->rules()->selectRow(1);
        QTest::mouseClick(cmd->rules()->deleteButton(), Qt::LeftButton);
        QTest::mouseClick(cmd->rules()->addButton(), Qt::LeftButton);
        QVERIFY(typeInto(cmd->rules()->view(),
                         ed.document()->commandRules()->index(1, CommandRulesModel::MatchColumn),
                         "curl *"));
        QVERIFY(ed.document()->commandRules()->setData(
            ed.document()->commandRules()->index(1, CommandRulesModel::ActionColumn),
            int(sb::RuleAction::Deny)));
        QVERIFY(choose(cmd->defaultBox(), int(sb::RuleAction::Ask)));

        ed.saveAction()->trigger();
        QVERIFY2(!ed.document()->isModified(), qPrintable(ed.messageText()));
        QCOMPARE(ed.messageText(), QStringLiteral("Saved."));

        // The file reads back as edited, with the user's comments.
        const QByteArray text = readAll(path);
        auto policy = sb::parsePolicy(text.toStdString(), "saved");
        QVERIFY2(policy, policy ? "" : policy.error().message.c_str());
        QVERIFY(policy->network.mode == sb::NetworkMode::None);
        QVERIFY(policy->network.defaultAction == sb::RuleAction::Deny);
        QCOMPARE(policy->network.rules.size(), std::size_t{3});
        QCOMPARE(policy->network.rules[0].host, std::string("10.0.0.0/8"));
        QCOMPARE(policy->network.rules[0].comment, std::string("the office network"));
        QCOMPARE(policy->network.rules[2].host, std::string("api.example.com"));
        QCOMPARE(policy->network.rules[2].ports, (std::vector<std::uint16_t>{443, 8443}));
        QVERIFY(policy->commands.defaultAction == sb::RuleAction::Ask);
        QCOMPARE(policy->commands.rules.size(), std::size_t{2});
        QCOMPARE(policy->commands.rules[0].match, std::string("git push *"));
        QCOMPARE(policy->commands.rules[1].match, std::string("curl *"));
        QVERIFY(policy->commands.rules[1].action == sb::RuleAction::Deny);
        QCOMPARE(policy->limits.memoryMb, std::uint64_t{2048});
        for (const char* comment :
             {"// Team policy: reviewed by Ana.", "/* limits stay as they are */",
              "// Code hosting", "// pushes are reviewed"})
            QVERIFY2(text.contains(comment), text.constData());

        // A new editor shows the same.
        PolicyEditor again;
        QVERIFY(again.openFile(path));
        QCOMPARE(column(again.document()->networkRules(), NetworkRulesModel::HostColumn),
                 (QStringList{"10.0.0.0/8", "*.github.com", "api.example.com"}));
        QCOMPARE(again.networkPage()->modeBox()->currentData().toInt(), int(sb::NetworkMode::None));
        QCOMPARE(again.commandPage()->defaultBox()->currentData().toInt(),
                 int(sb::RuleAction::Ask));
        QVERIFY(!again.document()->isModified());
    }

    // Each wrong value shows the core's message under the table, and Save writes nothing.
    // The action's list commits each choice at once, arrow keys included, and closes when the
    // focus moves on; Qt is never told of an editor already gone ("closeEditor called with an
    // editor that does not belong to this view").
    void actionChosenFromItsListClosesItsEditorOnce()
    {
        QTest::failOnWarning(QRegularExpression(QStringLiteral("closeEditor|does not belong")));
        const QString path = m_world->writePolicy(kCommented);
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(path));
        sbui::RuleListEditor* rules = ed.networkPage()->rules();
        QAbstractItemView* view = rules->view();
        auto* model = ed.document()->networkRules();
        for (int value : {int(sb::RuleAction::Deny), int(sb::RuleAction::Ask)}) {
            const QModelIndex action = model->index(0, 0);
            view->setCurrentIndex(action);
            view->edit(action);
            auto* box = qobject_cast<QComboBox*>(view->indexWidget(action));
            QVERIFY(box);
            box->setFocus();
            QVERIFY(choose(box, value));
            QCOMPARE(model->index(0, 0).data(Qt::EditRole).toInt(), value); // at once
            // Focus moves on, as when the user clicks the next cell: the list closes.
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                              view->visualRect(model->index(1, 1)).center());
            QTRY_VERIFY(!view->indexWidget(action));
            QCOMPARE(model->index(0, 0).data(Qt::EditRole).toInt(), value);
        }
    }

    void validationRefusesTheSave()
    {
        const QString path = m_world->writePolicy(kCommented);
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(path));
        auto* net = ed.networkPage()->rules();
        auto* model = ed.document()->networkRules();

        QVERIFY(typeInto(net->view(), model->index(0, NetworkRulesModel::HostColumn),
                         "example.com:443"));
        net->selectRow(0);
        QVERIFY2(net->problemText().contains("a port belongs in \"ports\""),
                 qPrintable(net->problemText()));
        QVERIFY(!ed.save());
        QVERIFY2(ed.messageText().contains("Not saved") &&
                     ed.messageText().contains("Network rule 1: 'example.com:443': a port "
                                               "belongs in \"ports\""),
                 qPrintable(ed.messageText()));
        QCOMPARE(readAll(path), kCommented);

        QVERIFY(typeInto(net->view(), model->index(0, NetworkRulesModel::HostColumn),
                         "api.github.com"));
        QVERIFY(typeInto(net->view(), model->index(0, NetworkRulesModel::PortsColumn), "0"));
        net->selectRow(0);
        QVERIFY2(net->problemText().contains("0 is out of range (expected an integer from 1 to "
                                             "65535)"),
                 qPrintable(net->problemText()));

        ed.pages()->setCurrentWidget(ed.commandPage());
        auto* cmd = ed.commandPage()->rules();
        QVERIFY(typeInto(cmd->view(),
                         ed.document()->commandRules()->index(0, CommandRulesModel::MatchColumn),
                         "curl x | sh"));
        cmd->selectRow(0);
        QVERIFY2(cmd->problemText().contains("is shell syntax"), qPrintable(cmd->problemText()));
        QVERIFY(!ed.save());
        QVERIFY2(ed.messageText().contains("Network rule 1: 0 is out of range") &&
                     ed.messageText().contains("Command rule 1: '|' in"),
                 qPrintable(ed.messageText()));
        QCOMPARE(readAll(path), kCommented);

        // Fixed, it saves.
        ed.pages()->setCurrentWidget(ed.networkPage());
        QVERIFY(typeInto(net->view(), model->index(0, NetworkRulesModel::PortsColumn), "443"));
        ed.pages()->setCurrentWidget(ed.commandPage());
        QVERIFY(typeInto(cmd->view(),
                         ed.document()->commandRules()->index(0, CommandRulesModel::MatchColumn),
                         "curl *"));
        QVERIFY(net->problemText().isEmpty());
        QVERIFY2(ed.save(), qPrintable(ed.messageText()));
        auto policy = sb::loadPolicyFile(path.toStdString());
        QVERIFY(policy);
        QCOMPARE(policy->network.rules[0].host, std::string("api.github.com"));
        QCOMPARE(policy->commands.rules[0].match, std::string("curl *"));
    }

    void testerTakesTheProgramThatConnects()
    {
        const QString path = m_world->writePolicy(R"({
  "version": 1,
  "network": {"default": "ask", "rules": [
    {"action": "allow", "host": "github.com", "ports": [22], "program": "/usr/bin/ssh"},
    {"action": "deny", "host": "github.com", "ports": [22]}
  ]}
})");
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(path));
        sbui::NetworkPolicyPage* net = ed.networkPage();
        // The table shows whom a rule is for, and keeps it.
        QCOMPARE(ed.document()->networkRules()->index(0, NetworkRulesModel::HostColumn).data(),
                 QVariant(QStringLiteral("github.com (program /usr/bin/ssh)")));
        QCOMPARE(ed.document()->policy().network.rules.at(0).program, "/usr/bin/ssh");
        QLineEdit* program = net->testProgramInput();
        QVERIFY(program->isVisibleTo(net->testInput()->parentWidget()));
        net->test(QStringLiteral("github.com:22"));
        // No program: unknown, so the rule naming ssh does not match and the next one decides.
        QCOMPARE(net->lastVerdict().userRule, 1);
        QVERIFY2(net->testHeadline()->text().startsWith("Denied"),
                 qPrintable(net->testHeadline()->text()));
        // Typing the program tests again: the rule naming it decides.
        program->setText(QStringLiteral("/usr/bin/ssh"));
        QCOMPARE(net->lastVerdict().userRule, 0);
        QCOMPARE(net->testHeadline()->text(), QStringLiteral("Allowed"));
        QVERIFY2(net->testReason()->text().startsWith(QStringLiteral("Your rule 1 decides: allow "
                                                                     "github.com port 22")),
                 qPrintable(net->testReason()->text()));
        QVERIFY2(net->testReason()->text().contains(QStringLiteral("/usr/bin/ssh")),
                 qPrintable(net->testReason()->text()));
        // Another program meets the next rule.
        program->setText(QStringLiteral("/usr/bin/curl"));
        QCOMPARE(net->lastVerdict().userRule, 1);
        QVERIFY(net->testHeadline()->text().startsWith("Denied"));
        // The program does not matter where no rule names one.
        net->test(QStringLiteral("example.com:443"));
        QVERIFY(net->testReason()->text().contains("the default decides"));
    }

    void testerNamesTheDecidingRule()
    {
        const QString path = m_world->writePolicy(kCommented);
        // A learned deny for one make target: learned rules decide first.
        QVERIFY(!sb::appendLearnedRule(sb::learnedRulesPath(path.toStdString()),
                                       sb::CommandRule{sb::RuleAction::Deny, "make deploy *", ""}));
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(path));
        sbui::NetworkPolicyPage* net = ed.networkPage();
        auto verdict = [](sbui::PolicyPage* page, const QString& input) {
            page->test(input);
            return page->testHeadline()->text() + QStringLiteral(" | ") +
                   page->testReason()->text();
        };
        QCOMPARE(verdict(net, "api.github.com:443"),
                 QStringLiteral("Allowed | Your rule 1 decides: allow *.github.com port 443."));
        QCOMPARE(net->lastVerdict().userRule, 0);
        QCOMPARE(net->rules()->currentRow(), 0); // the deciding rule is selected
        // A name's addresses can still change it: the tester says so and offers to look.
        QVERIFY(net->lastVerdict().dependsOnAddresses);
        QVERIFY(net->testNote()->text().contains("resolves to"));
        QVERIFY(net->checkAddressesButton()->isVisibleTo(net));
        QCOMPARE(verdict(net, "10.1.2.3:22"),
                 QStringLiteral("Denied | Your rule 2 decides: deny 10.0.0.0/8."));
        QCOMPARE(net->rules()->currentRow(), 1);
        QVERIFY(!net->checkAddressesButton()->isVisibleTo(net)); // an address is final
        QCOMPARE(verdict(net, "github.com:80"),
                 QStringLiteral("Asked: held until you answer | No rule matches, so the default "
                                "decides (Ask)."));
        QCOMPARE(verdict(net, "127.0.0.1:8080"),
                 QStringLiteral("Denied | A built-in block decides: loopback 127.0.0.0/8. Only a "
                                "rule that names this destination exactly opens it."));
        QVERIFY(verdict(net, "api.github.com").startsWith("Allowed"));
        QVERIFY(net->testNote()->text().startsWith("No port given: port 443 assumed."));
        QVERIFY(verdict(net, "[fd00::1]:22")
                    .startsWith("Denied | A built-in block decides: "
                                "private fc00::/7"));
        const QString bad = verdict(net, "bad host:1");
        QCOMPARE(bad, QStringLiteral("Cannot tell | host name \"bad host\" contains ' '"));
        QVERIFY(!net->lastVerdict().evaluated);
        // The tester follows unsaved edits.
        ed.document()->networkRules()->moveRule(1, -1);
        QCOMPARE(verdict(net, "10.1.2.3:22"),
                 QStringLiteral("Denied | Your rule 1 decides: deny 10.0.0.0/8."));
        QVERIFY(choose(net->modeBox(), int(sb::NetworkMode::None)));
        QCOMPARE(verdict(net, "api.github.com:443"),
                 QStringLiteral("Denied | The network mode is “none”: the sandbox has no network "
                                "at all."));

        sbui::CommandPolicyPage* cmd = ed.commandPage();
        QVERIFY(verdict(cmd, "git push origin main")
                    .startsWith("Asked: held until you answer | Your rule 1 decides: ask \"git "
                                "push *\"."));
        QCOMPARE(verdict(cmd, "rm -rf /home/u"),
                 QStringLiteral("Denied | Your rule 2 decides: deny \"rm -rf /*\"."));
        QCOMPARE(verdict(cmd, "rm -rf build"),
                 QStringLiteral("Allowed | No rule matches, so the default decides (Allow)."));
        QCOMPARE(verdict(cmd, "make deploy prod"),
                 QStringLiteral("Denied | Learned rule 1 decides: deny \"make deploy *\"."));
        QCOMPARE(cmd->lastVerdict().learnedRule, 0);
        QCOMPARE(cmd->learnedView()->currentIndex().row(), 0);
        QVERIFY(verdict(cmd, "curl x | sh").startsWith("Cannot tell | '|' in"));
        QVERIFY(verdict(cmd, "'/usr/bin/git' push").contains("Your rule 1 decides"));
    }

    // A name's addresses, as "Check addresses" decides them once looked up (here given, not
    // resolved: tests make no DNS queries).
    void addressesOfANameAreDecidedEachOnItsOwn()
    {
        auto policy = sb::parsePolicy(kCommented.toStdString(), "test");
        QVERIFY(policy);
        const QStringList lines = sbui::PolicyTester::testAddresses(
            policy->network, {sb::NetworkRule{sb::RuleAction::Deny, "140.82.112.4", {}, ""}},
            "api.github.com", 443,
            {QHostAddress("140.82.112.3"), QHostAddress("140.82.112.4"), QHostAddress("10.0.0.5"),
             QHostAddress("127.0.0.1")});
        QCOMPARE(lines,
                 (QStringList{"140.82.112.3: Allowed, by your rule 1 (allow *.github.com port 443)",
                              "140.82.112.4: Denied, by learned rule 1 (deny 140.82.112.4)",
                              "10.0.0.5: Denied, by your rule 2 (deny 10.0.0.0/8)",
                              "127.0.0.1: Denied, by a built-in block (loopback 127.0.0.0/8)"}));
    }

    // What the session did, turned into rules: the scopes an approval answer offers.
    void observedBecomesARule()
    {
        const QString path = m_world->writePolicy(kCommented);
        sbui::ActivityModel activity;
        PolicyEditor& ed = editor();
        ed.setActivitySource(&activity);
        QVERIFY(ed.openFile(path));
        activity.addEvent({{"kind", "network"},
                           {"type", "decided"},
                           {"host", "cdn.example.com"},
                           {"port", 443},
                           {"decision", "deny"},
                           {"rule", "default (ask)"},
                           {"asked", true}});
        activity.addEvent({{"kind", "command"},
                           {"program", "/usr/bin/git"},
                           {"argv", {"git", "commit", "-m", "fix it"}},
                           {"decision", "allow"},
                           {"rule", "commands.default"}});
        activity.flush();

        sbui::NetworkPolicyPage* net = ed.networkPage();
        net->bottomTabs()->setCurrentIndex(2);
        QVERIFY(net->bottomTabs()->tabText(2).contains("(1)"));
        QVERIFY(!net->makeRuleButton()->isEnabled());
        net->observedView()->selectRow(0);
        QVERIFY(net->makeRuleButton()->isEnabled());
        Q_EMIT net->makeRuleMenu()->aboutToShow();
        QStringList choices;
        for (QAction* a : net->makeRuleMenu()->actions())
            if (!a->isSeparator()) choices << a->text();
        QCOMPARE(
            choices,
            (QStringList{"Allow cdn.example.com on port 443", "Allow cdn.example.com on any port",
                         "Allow *.example.com on any port", "Deny cdn.example.com on port 443",
                         "Deny cdn.example.com on any port", "Deny *.example.com on any port"}));
        net->makeRuleMenu()->actions().at(2)->trigger();
        QCOMPARE(column(ed.document()->networkRules(), NetworkRulesModel::HostColumn),
                 (QStringList{"*.example.com", "*.github.com", "10.0.0.0/8"}));
        QCOMPARE(net->rules()->currentRow(), 0);
        QVERIFY(ed.document()->networkRules()->rule(0).comment.empty());
        net->test("cdn.example.com:443");
        QCOMPARE(net->testReason()->text(),
                 QStringLiteral("Your rule 1 decides: allow *.example.com."));

        sbui::CommandPolicyPage* cmd = ed.commandPage();
        ed.pages()->setCurrentWidget(cmd);
        QCOMPARE(cmd->observed()->subject(0), QStringLiteral("git commit -m 'fix it'"));
        QCOMPARE(cmd->makeRule(0, false, sb::ApprovalScope::Subcommand), 0);
        QCOMPARE(cmd->makeRule(0, true, sb::ApprovalScope::ExactCommand), 0);
        QCOMPARE(column(ed.document()->commandRules(), CommandRulesModel::MatchColumn),
                 (QStringList{"/usr/bin/git commit -m 'fix it'", "git commit *", "git push *",
                              "rm -rf /*"}));
        QVERIFY(ed.save());
        auto saved = sb::loadPolicyFile(path.toStdString());
        QVERIFY(saved);
        QCOMPARE(saved->commands.rules[1].match, std::string("git commit *"));
        QVERIFY(saved->commands.rules[1].action == sb::RuleAction::Deny);
    }

    // Learned rules: one promoted into the user's rules where it took effect, one removed; the
    // learned file is rewritten at the save and keeps a rule a session learned meanwhile.
    void learnedRulesRemovedAndPromoted()
    {
        const QString path = m_world->writePolicy(kCommented);
        const std::filesystem::path learned = sb::learnedRulesPath(path.toStdString());
        QVERIFY(!sb::appendLearnedRule(
            learned, sb::NetworkRule{sb::RuleAction::Allow, "api.example.com", {443}, ""}));
        QVERIFY(!sb::appendLearnedRule(
            learned, sb::NetworkRule{sb::RuleAction::Deny, "tracker.example.net", {}, ""}));
        QVERIFY(
            !sb::appendLearnedRule(learned, sb::CommandRule{sb::RuleAction::Allow, "npm *", ""}));
        // Broader than the user's "deny rm -rf /*": it can only take effect after that rule.
        QVERIFY(
            !sb::appendLearnedRule(learned, sb::CommandRule{sb::RuleAction::Allow, "rm *", ""}));
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(path));
        sbui::NetworkPolicyPage* net = ed.networkPage();
        QCOMPARE(net->learnedView()->model()->rowCount(), 2);
        QVERIFY(net->bottomTabs()->tabText(1).contains("(2)"));
        QAbstractItemModelTester t(ed.document()->learnedNetwork(),
                                   QAbstractItemModelTester::FailureReportingMode::QtTest);

        // Promote the allow of api.example.com: learned rules go first, so it goes first.
        const int apiRow =
            static_cast<int>(column(ed.document()->learnedNetwork(), NetworkRulesModel::HostColumn)
                                 .indexOf("api.example.com"));
        QVERIFY(apiRow >= 0);
        net->learnedView()->selectRow(apiRow);
        QTest::mouseClick(net->promoteButton(), Qt::LeftButton);
        QCOMPARE(column(ed.document()->networkRules(), NetworkRulesModel::HostColumn),
                 (QStringList{"api.example.com", "*.github.com", "10.0.0.0/8"}));
        QCOMPARE(net->learnedView()->model()->rowCount(), 1);
        QVERIFY(ed.document()->isModified());

        // Commands: "rm *" goes where the merge put it, after the deny; "npm *" is removed.
        sbui::CommandPolicyPage* cmd = ed.commandPage();
        ed.pages()->setCurrentWidget(cmd);
        const int rmRow = static_cast<int>(
            column(ed.document()->learnedCommands(), CommandRulesModel::MatchColumn)
                .indexOf("rm *"));
        cmd->learnedView()->selectRow(rmRow);
        QTest::mouseClick(cmd->promoteButton(), Qt::LeftButton);
        QCOMPARE(column(ed.document()->commandRules(), CommandRulesModel::MatchColumn),
                 (QStringList{"git push *", "rm -rf /*", "rm *"}));
        QCOMPARE(cmd->rules()->currentRow(), 2);
        cmd->learnedView()->selectRow(0);
        QTest::mouseClick(cmd->removeLearnedButton(), Qt::LeftButton);
        QCOMPARE(cmd->learnedView()->model()->rowCount(), 0);

        // Meanwhile a session learns something; the file change shows up in the list.
        QVERIFY(
            !sb::appendLearnedRule(learned, sb::CommandRule{sb::RuleAction::Allow, "make *", ""}));
        QTRY_COMPARE(cmd->learnedView()->model()->rowCount(), 1);

        QVERIFY2(ed.save(), qPrintable(ed.messageText()));
        auto rules = sb::loadLearnedRules(learned);
        QVERIFY(rules);
        QCOMPARE(rules->network.size(), std::size_t{1});
        QCOMPARE(rules->network[0].host, std::string("tracker.example.net"));
        QCOMPARE(rules->commands.size(), std::size_t{1});
        QCOMPARE(rules->commands[0].match, std::string("make *"));
        auto policy = sb::loadPolicyFile(path.toStdString());
        QVERIFY(policy);
        QCOMPARE(policy->network.rules[0].host, std::string("api.example.com"));
        QCOMPARE(policy->network.rules[0].ports, std::vector<std::uint16_t>{443});
        QCOMPARE(policy->commands.rules[2].match, std::string("rm *"));
        QVERIFY(readAll(path).contains("// pushes are reviewed"));
    }

    // A preset is read-only: Save asks for a new file (answered here), proposing the user's
    // policies folder; cancelling writes nothing.
    void presetIsSavedUnderANewName()
    {
        PolicyEditor& ed = editor();
        QVERIFY(ed.openPreset("generic"));
        QVERIFY(ed.document()->isReadOnly());
        QVERIFY(ed.titleText().contains("generic"));
        const QString expected = qEnvironmentVariable("XDG_CONFIG_HOME") +
                                 QStringLiteral("/sandbench/policies/generic.json");
        QCOMPARE(ed.document()->suggestedSavePath(), expected);

        sbui::CommandPolicyPage* cmd = ed.commandPage();
        ed.pages()->setCurrentWidget(cmd);
        QTest::mouseClick(cmd->rules()->addButton(), Qt::LeftButton);
        QVERIFY(typeInto(cmd->rules()->view(),
                         ed.document()->commandRules()->index(0, CommandRulesModel::MatchColumn),
                         "curl *"));
        QVERIFY(ed.saveAction()->isEnabled());

        ed.saveAction()->trigger(); // no answer: the dialog is cancelled
        QVERIFY(!QFile::exists(expected));
        QVERIFY(ed.document()->isModified());

        prompt::setNextFileName(expected);
        ed.saveAction()->trigger();
        QVERIFY2(QFile::exists(expected), qPrintable(ed.messageText()));
        QVERIFY(!ed.document()->isModified());
        QVERIFY(!ed.document()->isReadOnly());
        QCOMPARE(ed.document()->filePath(), expected);
        QCOMPARE(ed.titleText(), QStringLiteral("generic.json"));
        QVERIFY(ed.messageText().startsWith("Saved as"));
        const QByteArray text = readAll(expected);
        QVERIFY2(text.contains("// generic: any agent or script"), text.constData());
        auto policy = sb::loadPolicyFile(expected.toStdString());
        QVERIFY(policy);
        QCOMPARE(policy->commands.rules.size(), std::size_t{1});
        QCOMPARE(policy->commands.rules[0].match, std::string("curl *"));
        QVERIFY(policy->commands.rules[0].action == sb::RuleAction::Ask);
        // The shipped preset is as it was.
        auto preset = sb::loadPreset("generic");
        QVERIFY(preset);
        QVERIFY(preset->commands.rules.empty());
    }

    void unsavedChangesAreAskedAbout()
    {
        const QString first = m_world->writePolicy(kCommented, "first.json");
        const QString second = m_world->writePolicy(R"({"version": 1})", "second.json");
        PolicyEditor& ed = editor();
        QVERIFY(ed.openFile(first));
        ed.document()->networkRules()->removeRows(0, 1);
        QVERIFY(ed.document()->isModified());

        prompt::setNextUnsavedChoice(prompt::UnsavedChoice::Cancel);
        QVERIFY(!ed.openFile(second));
        QCOMPARE(ed.document()->filePath(), QFileInfo(first).absoluteFilePath());
        QVERIFY(ed.document()->isModified());
        QVERIFY(!ed.openFile(second)); // unanswered under test: cancelled too

        prompt::setNextUnsavedChoice(prompt::UnsavedChoice::Discard);
        QVERIFY(ed.openFile(second));
        QCOMPARE(readAll(first), kCommented);

        ed.document()->setCommandDefault(sb::RuleAction::Deny);
        prompt::setNextUnsavedChoice(prompt::UnsavedChoice::Save);
        QVERIFY(ed.openFile(first));
        auto saved = sb::loadPolicyFile(second.toStdString());
        QVERIFY(saved);
        QVERIFY(saved->commands.defaultAction == sb::RuleAction::Deny);

        // Undoing an edit by hand is no change.
        ed.document()->networkRules()->moveRule(0, 1);
        QVERIFY(ed.document()->isModified());
        ed.document()->networkRules()->moveRule(1, -1);
        QVERIFY(!ed.document()->isModified());
    }

    // File > Open policy… without any session: the window leaves its first-run view for the
    // Policy tab.
    // The header names the session whose policy is shown, from the moment it is shown: it named
    // the session shown before (or none) until the next edit.
    void headerNamesTheSessionShownNow()
    {
        PolicyEditor ed;
        const nlohmann::json builtIn = {{"version", 1}, {"network", {{"mode", "none"}}}};
        QString error;
        QVERIFY2(ed.document()->openSession(QStringLiteral("first-session"), {}, {}, {}, builtIn,
                                            &error),
                 qPrintable(error));
        QCOMPARE(ed.titleText(), QStringLiteral("Built-in policy"));
        QVERIFY2(ed.subtitleText().contains(QLatin1String("Session first-session runs")),
                 qPrintable(ed.subtitleText()));
        QVERIFY2(ed.document()->openSession(QStringLiteral("second-session"), {}, {}, {}, builtIn,
                                            &error),
                 qPrintable(error));
        QVERIFY2(ed.subtitleText().contains(QLatin1String("second-session")) &&
                     !ed.subtitleText().contains(QLatin1String("first-session")),
                 qPrintable(ed.subtitleText()));
        const QString path = m_world->writePolicy(kCommented);
        QVERIFY2(
            ed.document()->openSession(QStringLiteral("third-session"), path, {}, {}, {}, &error),
            qPrintable(error));
        QVERIFY2(ed.subtitleText().contains(QLatin1String("the policy of session third-session")),
                 qPrintable(ed.subtitleText()));
        QVERIFY(ed.document()->openFile(path, &error));
        QCOMPARE(ed.subtitleText(), QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()));
    }

    // Save with a cell still being edited: the edit is committed and saved (it was lost, and
    // the save refused the rule as empty, when the editor was not in the current cell), and Qt
    // has nothing to complain about ("closeEditor called with an editor that does not belong to
    // this view").
    void saveWithAnEditorOpenCommitsItQuietly()
    {
        static QStringList warnings;
        warnings.clear();
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType type, const QMessageLogContext&, const QString& message) {
                // The offscreen platform's own notice is not about this.
                if (type == QtWarningMsg && !message.contains(QLatin1String("propagateSizeHints")))
                    warnings << message;
            });
        const QString path = m_world->writePolicy(kCommented);
        PolicyEditor& ed = editor();
        ed.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ed));
        QVERIFY(ed.openFile(path));
        sbui::RuleListEditor* rules = ed.networkPage()->rules();
        rules->selectRow(0);
        QTest::mouseClick(rules->addButton(), Qt::LeftButton);
        const QModelIndex host =
            ed.document()->networkRules()->index(1, NetworkRulesModel::HostColumn);
        auto* line = qobject_cast<QLineEdit*>(rules->view()->indexWidget(host));
        QVERIFY(line);
        line->setFocus();
        QTest::keyClicks(line, QStringLiteral("typed.example.com"));
        ed.saveAction()->trigger(); // no Return: Save commits the open editor
        QTest::qWait(50);
        qInstallMessageHandler(previous);
        QVERIFY2(readAll(path).contains("typed.example.com"),
                 qPrintable(readAll(path) + ed.messageText() + warnings.join(u'\n') +
                            QString::number(ed.saveAction()->isEnabled())));
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(u'\n')));
    }

    void openPolicyWithoutASession()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        const QString path = m_world->writePolicy(kCommented);
        sbui::MainWindow window;
        window.show();
        QVERIFY(window.isShowingWelcome());
        QAction* open = nullptr;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction* a : menu->menu()->actions())
                    if (a->text() == QStringLiteral("Open &policy…")) open = a;
        QVERIFY(open);
        open->trigger(); // unanswered: cancelled
        QVERIFY(window.isShowingWelcome());
        prompt::setNextFileName(path);
        open->trigger();
        QVERIFY(!window.isShowingWelcome());
        QCOMPARE(window.tabs()->currentWidget(), window.policy());
        QCOMPARE(window.policy()->document()->filePath(), QFileInfo(path).absoluteFilePath());
        QVERIFY(window.policy()->document()->sessionId().isEmpty());
    }

    // The session's own policy in the window: a deny rule added and saved reaches the running
    // session at once; its agent's next `touch` is refused, and the timeline shows the change.
    // Save As on a session that has ended: saved, and said so; not "sending…" forever.
    void saveAsOnAnEndedSessionSaysItEnded()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QString why;
        if (!sandboxWorks(*m_world, &why)) SBG_SKIP(why);
        const QString path = m_world->writePolicy(
            R"({"version": 1, "network": {"mode": "none"}, "commands": {"default": "allow"}})");
        const QString id =
            QStringLiteral("policy-ended-%1").arg(QCoreApplication::applicationPid());
        QString error;
        auto session = HeadlessSession::start(
            *m_world, id, {QStringLiteral("--policy"), path},
            {QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("echo ready; sleep 1")},
            &error);
        QVERIFY2(session, qPrintable(error));
        sbui::MainWindow window;
        window.show();
        QVERIFY(window.selectSession(id));
        PolicyEditor* ed = window.policy();
        window.tabs()->setCurrentWidget(ed);
        QCOMPARE(ed->document()->sessionId(), id);
        QCOMPARE(session->waitForExit(), 0);
        const QString copy = QFileInfo(path).absolutePath() + QStringLiteral("/copy.json");
        prompt::setNextFileName(copy);
        ed->saveAsAction()->trigger();
        QVERIFY(QFile::exists(copy));
        QTRY_VERIFY2_WITH_TIMEOUT(ed->messageText().contains(QLatin1String("has ended")),
                                  qPrintable(ed->messageText()), 10000);
        QVERIFY2(!ed->messageText().contains(QLatin1String("Sending")),
                 qPrintable(ed->messageText()));
    }

    void liveSessionPicksUpTheSavedPolicy()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QString why;
        if (!sandboxWorks(*m_world, &why)) SBG_SKIP(why);
        const QString path = m_world->writePolicy(R"({
  "version": 1,
  "network": {"mode": "none"},
  // nothing asked, nothing denied yet
  "commands": {"default": "allow", "rules": []}
})");
        const QString id = QStringLiteral("policy-live-%1").arg(QCoreApplication::applicationPid());
        QString error;
        auto session = HeadlessSession::start(
            *m_world, id, {QStringLiteral("--policy"), path},
            {QStringLiteral("bash"), QStringLiteral("-c"),
             QStringLiteral("echo ready; read line; touch forbidden; echo touch=$?; sleep 600")},
            &error);
        QVERIFY2(session, qPrintable(error));

        sbui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.selectSession(id));
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains("ready"), 20000);
        PolicyEditor* ed = window.policy();
        window.tabs()->setCurrentWidget(ed);
        QCOMPARE(ed->document()->sessionId(), id);
        QCOMPARE(ed->document()->filePath(), QFileInfo(path).absoluteFilePath());

        sbui::CommandPolicyPage* cmd = ed->commandPage();
        ed->pages()->setCurrentWidget(cmd);
        QTest::mouseClick(cmd->rules()->addButton(), Qt::LeftButton);
        QVERIFY(typeInto(cmd->rules()->view(),
                         ed->document()->commandRules()->index(0, CommandRulesModel::MatchColumn),
                         "touch *"));
        QVERIFY(ed->document()->commandRules()->setData(
            ed->document()->commandRules()->index(0, CommandRulesModel::ActionColumn),
            int(sb::RuleAction::Deny)));
        QVERIFY(window.tabs()->tabText(window.tabs()->indexOf(ed)).contains("modified"));

        // Switching sessions or closing asks first; cancelled, nothing changes.
        prompt::setNextUnsavedChoice(prompt::UnsavedChoice::Cancel);
        QVERIFY(!window.close());
        QVERIFY(window.isVisible());

        QSignalSpy updated(ed, &PolicyEditor::sessionUpdated);
        ed->saveAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 1, 20000);
        QVERIFY2(ed->messageText().contains("picked up the new policy"),
                 qPrintable(ed->messageText()));
        QVERIFY(readAll(path).contains("// nothing asked, nothing denied yet"));

        window.tabs()->setCurrentWidget(window.terminal());
        QTest::keyClicks(window.terminal(), QStringLiteral("go"));
        QTest::keyClick(window.terminal(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(window.terminal()->screenText().contains("touch=1"), 20000);
        QVERIFY2(window.terminal()->screenText().contains("Operation not permitted"),
                 qPrintable(window.terminal()->screenText()));

        // The timeline has the policy change, and the denied command is observed.
        sbui::ActivityModel* activity = window.activity()->model();
        auto rowOfKind = [activity](const char* kind) {
            activity->flush();
            for (int r = 0; r < activity->rowCount(); ++r)
                if (activity->event(r).value("kind", "") == kind) return r;
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind("policy") >= 0, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(cmd->observed()->rowCount() > 0, 20000);
        bool sawDenied = false;
        for (int r = 0; r < cmd->observed()->rowCount(); ++r)
            sawDenied |= cmd->observed()->subject(r) == QStringLiteral("touch forbidden") &&
                         cmd->observed()->decision(r) == sbui::ActivityModel::Decision::Denied;
        QVERIFY(sawDenied);
    }
};

QTEST_MAIN(PolicyEditorTest)
#include "PolicyEditorTest.moc"
